package rollout_test

// Builders shared by the history tests, fuzz targets and benchmarks.

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonplan/daemonplan/rollout"
)

const revHashKey = appsv1.ControllerRevisionHashLabelKey

// histDS returns kube-system/agent running image, with template labels
// app=agent.
func histDS(image string) *appsv1.DaemonSet {
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "agent", UID: "uid-agent"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "agent"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: image}}},
			},
		},
	}
}

// histData returns the revision data of ds, failing the test on error.
func histData(t testing.TB, ds *appsv1.DaemonSet) []byte {
	t.Helper()
	p, err := rollout.Patch(ds)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// histRev returns revision kube-system/name with the given number and data,
// labelled app=agent plus the hash label hash (withoutHashLabel removes it).
func histRev(name string, number int64, data []byte, hash string) *appsv1.ControllerRevision {
	return &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "kube-system", Name: name, UID: types.UID("uid-" + name),
			Labels: map[string]string{"app": "agent", revHashKey: hash},
		},
		Data:     runtimeRaw(data),
		Revision: number,
	}
}

// noHashLabel asks hashPod for a pod without the hash label.
const noHashLabel = "\x00no-label"

// withoutHashLabel returns rev with its hash label removed.
func withoutHashLabel(rev *appsv1.ControllerRevision) *appsv1.ControllerRevision {
	delete(rev.Labels, revHashKey)
	return rev
}

// relabelled returns a copy of rev with the hash label set to its name.
func relabelled(rev *appsv1.ControllerRevision) *appsv1.ControllerRevision {
	c := rev.DeepCopy()
	if c.Labels == nil {
		c.Labels = map[string]string{}
	}
	c.Labels[revHashKey] = c.Name
	return c
}

// renumbered returns a copy of rev with revision number n.
func renumbered(rev *appsv1.ControllerRevision, n int64) *appsv1.ControllerRevision {
	c := rev.DeepCopy()
	c.Revision = n
	return c
}

// hashPod returns pod kube-system/name carrying hash in its hash label
// (noHashLabel: no label).
func hashPod(name, hash string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: name, UID: types.UID("uid-" + name), Labels: map[string]string{"app": "agent"}}}
	if hash != noHashLabel {
		p.Labels[revHashKey] = hash
	}
	return p
}

// expectedNewRevision is the revision ConstructHistory must create for ds.
func expectedNewRevision(t testing.TB, ds *appsv1.DaemonSet, number int64) *appsv1.ControllerRevision {
	hash := rollout.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount)
	labels := map[string]string{revHashKey: hash}
	for k, v := range ds.Spec.Template.Labels {
		labels[k] = v
	}
	var ann map[string]string
	if ds.Annotations != nil {
		ann = map[string]string{}
		for k, v := range ds.Annotations {
			ann[k] = v
		}
	}
	yes := true
	return &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{
			Name: ds.Name + "-" + hash, Namespace: ds.Namespace, Labels: labels, Annotations: ann,
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, UID: ds.UID,
				Controller: &yes, BlockOwnerDeletion: &yes,
			}},
		},
		Data:     runtimeRaw(histData(t, ds)),
		Revision: number,
	}
}

func deepCopyRevisions(revs []*appsv1.ControllerRevision) []*appsv1.ControllerRevision {
	if revs == nil {
		return nil
	}
	out := make([]*appsv1.ControllerRevision, len(revs))
	for i, r := range revs {
		out[i] = r.DeepCopy()
	}
	return out
}

func deepCopyPods(pods []*corev1.Pod) []*corev1.Pod {
	if pods == nil {
		return nil
	}
	out := make([]*corev1.Pod, len(pods))
	for i, p := range pods {
		out[i] = p.DeepCopy()
	}
	return out
}
