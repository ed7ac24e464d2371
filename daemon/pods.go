package daemon

import (
	"cmp"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon/internal/podbuild"
	"github.com/daemonplan/daemonplan/tolerations"
)

// NewPod returns the pod upstream's placement predicates judge for ds on
// nodeName: the template's metadata and spec, the DaemonSet's namespace,
// spec.nodeName set to nodeName and the daemon tolerations added. It is a
// deep copy that shares nothing with ds. A nil ds gives nil.
func NewPod(ds *appsv1.DaemonSet, nodeName string) *corev1.Pod {
	if ds == nil {
		return nil
	}
	tmpl := ds.Spec.Template.DeepCopy()
	pod := &corev1.Pod{ObjectMeta: tmpl.ObjectMeta, Spec: tmpl.Spec}
	pod.Namespace = ds.Namespace
	pod.Spec.NodeName = nodeName
	tolerations.AddOrUpdateDaemonPodTolerations(&pod.Spec)
	return pod
}

// CreatePodTemplate returns a deep copy of template prepared for new daemon
// pods, as upstream's function of the same name: the daemon tolerations are
// added, and the labels get pod-template-generation (when generation is
// non-nil) and controller-revision-hash (when hash is non-empty). template
// is passed by value but its maps and slices are not written either. The
// pods of a plan's Creates are built from this template.
func CreatePodTemplate(template corev1.PodTemplateSpec, generation *int64, hash string) corev1.PodTemplateSpec {
	return podbuild.Template(template, generation, hash)
}

// comparePodNames orders pods by name, then UID.
func comparePodNames(a, b *corev1.Pod) int {
	return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.UID, b.UID))
}

// isTerminal reports whether pod failed or succeeded.
func isTerminal(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded
}

// compareAge orders pods the way upstream keeps the oldest one: scheduled
// pods first, then by creation time, then by name.
func compareAge(a, b *corev1.Pod) int {
	aScheduled, bScheduled := a.Spec.NodeName != "", b.Spec.NodeName != ""
	if aScheduled != bScheduled {
		if aScheduled {
			return -1
		}
		return 1
	}
	if c := a.CreationTimestamp.Time.Compare(b.CreationTimestamp.Time); c != 0 {
		return c
	}
	return cmp.Compare(a.Name, b.Name)
}

// oldest returns the index of the first pod of pods in compareAge order,
// without reordering pods. pods must not be empty.
func oldest(pods []*corev1.Pod) int {
	o := 0
	for i, p := range pods[1:] {
		if compareAge(p, pods[o]) < 0 {
			o = i + 1
		}
	}
	return o
}
