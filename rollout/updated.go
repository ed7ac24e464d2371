package rollout

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// GetTemplateGeneration returns the template generation recorded in ds's
// deprecated annotation deprecated.daemonset.template.generation: nil and no
// error when the annotation is absent (or ds is nil), nil and an error
// naming the DaemonSet and the annotation when it is not a base-10 int64.
func GetTemplateGeneration(ds *appsv1.DaemonSet) (*int64, error) {
	panic("unimplemented")
}

// IsPodUpdated reports whether pod runs the current template: its
// controller-revision-hash label equals a non-empty hash, or
// dsTemplateGeneration is non-nil and its pod-template-generation label
// equals it in base 10. A nil pod is not updated.
func IsPodUpdated(pod *corev1.Pod, hash string, dsTemplateGeneration *int64) bool {
	panic("unimplemented")
}
