// Package podbuild builds the daemon pods the planner creates: daemon.Compute
// builds its Creates with it and daemon/whatif its answers, so that a pod
// predicted for a node is the pod a plan would create there, field for
// field. It performs no I/O.
package podbuild

import (
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/affinity"
	"github.com/daemonplan/daemonplan/tolerations"
)

// Template returns a deep copy of template prepared for new daemon pods, as
// upstream's CreatePodTemplate: the daemon tolerations are added, and the
// labels get pod-template-generation (when generation is non-nil) and
// controller-revision-hash (when hash is non-empty). template is passed by
// value but its maps and slices are not written either.
func Template(template corev1.PodTemplateSpec, generation *int64, hash string) corev1.PodTemplateSpec {
	out := *template.DeepCopy()
	tolerations.AddOrUpdateDaemonPodTolerations(&out.Spec)
	if out.Labels == nil {
		out.Labels = make(map[string]string, 2)
	}
	if generation != nil {
		out.Labels[extensionsv1beta1.DaemonSetTemplateGenerationKey] = strconv.FormatInt(*generation, 10)
	}
	if hash != "" {
		out.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = hash
	}
	return out
}

// Builder builds the pods of one DaemonSet at one revision, from a template
// prepared once. It keeps no reference to the DaemonSet.
type Builder struct {
	template     corev1.PodTemplateSpec
	namespace    string
	generateName string
	owner        metav1.OwnerReference
}

// New prepares the pods of ds with the template generation and revision
// hash their labels carry (see Template). ds must not be nil.
func New(ds *appsv1.DaemonSet, generation *int64, hash string) *Builder {
	prefix := ds.Name + "-"
	if len(apivalidation.NameIsDNSSubdomain(prefix, true)) != 0 {
		prefix = ds.Name
	}
	return &Builder{
		template:     Template(ds.Spec.Template, generation, hash),
		namespace:    ds.Namespace,
		generateName: prefix,
		owner:        controllerRef(ds),
	}
}

// controllerRef is the controller reference of a pod owned by ds.
func controllerRef(ds *appsv1.DaemonSet) metav1.OwnerReference {
	yes := true
	return metav1.OwnerReference{
		APIVersion:         appsv1.SchemeGroupVersion.String(),
		Kind:               "DaemonSet",
		Name:               ds.Name,
		UID:                ds.UID,
		Controller:         &yes,
		BlockOwnerDeletion: &yes,
	}
}

// Pod returns the complete pod to POST for nodeName, as upstream's pod
// control builds it from the template: labels, annotations and finalizers
// copied, generateName, namespace, the controller reference, and the spec
// with its node affinity bound to nodeName. It is a new object that shares
// nothing with the Builder.
func (b *Builder) Pod(nodeName string) *corev1.Pod {
	t := &b.template
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: b.generateName,
			Namespace:    b.namespace,
			Labels:       copyMap(t.Labels),
			Annotations:  copyMap(t.Annotations),
			Finalizers:   append([]string(nil), t.Finalizers...),
		},
	}
	spec := t.Spec // a shallow copy, so the affinity is not deep-copied twice
	spec.Affinity = nil
	pod.Spec = *spec.DeepCopy()
	owner := b.owner
	yes, yes2 := true, true
	owner.Controller, owner.BlockOwnerDeletion = &yes, &yes2
	pod.OwnerReferences = []metav1.OwnerReference{owner}
	pod.Spec.Affinity = affinity.ReplaceDaemonSetPodNodeNameNodeAffinity(t.Spec.Affinity, nodeName)
	return pod
}

// copyMap returns a copy of m, nil when m is empty.
func copyMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
