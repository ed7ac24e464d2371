package rollout

import (
	corev1 "k8s.io/api/core/v1"
)

// ComputeHash returns the controller-revision-hash of a pod template, byte
// for byte the value kube-controller-manager computes: the FNV-32a hash of
// the k8s.io/utils/dump.ForHash rendering of *template, followed, when
// collisionCount is non-nil, by the collision count as 8 little-endian bytes
// (the low 4 holding the value), printed in decimal and encoded with
// apimachinery's rand.SafeEncodeString. A nil template hashes as the zero
// template. It modifies nothing.
func ComputeHash(template *corev1.PodTemplateSpec, collisionCount *int32) string {
	panic("unimplemented")
}
