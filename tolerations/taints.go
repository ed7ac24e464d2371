package tolerations

import (
	corev1 "k8s.io/api/core/v1"
)

// EffectSet is a set of taint effects. Its zero value is empty.
type EffectSet uint8

// The taint effects an EffectSet can hold.
const (
	NoSchedule EffectSet = 1 << iota
	PreferNoSchedule
	NoExecute
)

// Has reports whether s contains the effect e. Unknown effects are never
// contained.
func (s EffectSet) Has(e corev1.TaintEffect) bool {
	panic("unimplemented")
}

// FindUntoleratedTaint returns the first taint of taints, in slice order,
// whose effect is in effects and which no toleration in tols tolerates, and
// true; or the zero taint and false when there is none. Matching one
// toleration against one taint is component-helpers'
// TolerationsTolerateTaint with enableComparisonOperators as the
// TaintTolerationComparisonOperators feature gate (off by default in
// Kubernetes 1.36). It does not allocate and modifies nothing.
func FindUntoleratedTaint(taints []corev1.Taint, tols []corev1.Toleration, effects EffectSet, enableComparisonOperators bool) (corev1.Taint, bool) {
	panic("unimplemented")
}
