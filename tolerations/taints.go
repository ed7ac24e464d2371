package tolerations

import (
	corev1 "k8s.io/api/core/v1"
	schedcorev1 "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"
)

// EffectSet is a set of taint effects. Its zero value is empty.
type EffectSet uint8

// The taint effects an EffectSet can hold.
const (
	NoSchedule EffectSet = 1 << iota
	PreferNoSchedule
	NoExecute
)

// Has reports whether s contains the effect e. Unknown effects, including
// the empty effect, are never contained.
func (s EffectSet) Has(e corev1.TaintEffect) bool {
	switch e {
	case corev1.TaintEffectNoSchedule:
		return s&NoSchedule != 0
	case corev1.TaintEffectPreferNoSchedule:
		return s&PreferNoSchedule != 0
	case corev1.TaintEffectNoExecute:
		return s&NoExecute != 0
	default:
		return false
	}
}

// String returns the effects of s in the order NoSchedule,
// PreferNoSchedule, NoExecute, joined by "|", or "none" for the empty set.
// Bits that name no effect are ignored.
func (s EffectSet) String() string {
	out := ""
	for _, e := range [...]struct {
		bit  EffectSet
		name corev1.TaintEffect
	}{
		{NoSchedule, corev1.TaintEffectNoSchedule},
		{PreferNoSchedule, corev1.TaintEffectPreferNoSchedule},
		{NoExecute, corev1.TaintEffectNoExecute},
	} {
		if s&e.bit == 0 {
			continue
		}
		if out != "" {
			out += "|"
		}
		out += string(e.name)
	}
	if out == "" {
		return "none"
	}
	return out
}

// FindUntoleratedTaint returns the first taint of taints, in slice order,
// whose effect is in effects and which no toleration in tols tolerates, and
// true; or the zero taint and false when there is none. Matching one
// toleration against one taint is component-helpers'
// TolerationsTolerateTaint with enableComparisonOperators as the
// TaintTolerationComparisonOperators feature gate (alpha and off by
// default in Kubernetes 1.35 to 1.37). Nil or empty taints or tols are fine: with no taints
// nothing is untolerated, with no tolerations the first taint in effects
// is. The returned taint is a shallow copy of the element of taints (its
// TimeAdded pointer is shared). It runs in O(len(taints)*len(tols)) time
// and modifies nothing.
//
// It does not allocate, with one exception that lies inside
// component-helpers: when enableComparisonOperators is true and a Lt or Gt
// toleration meets a toleration or taint value that is not a decimal
// integer, component-helpers builds an error for its (discarded) log line.
func FindUntoleratedTaint(taints []corev1.Taint, tols []corev1.Toleration, effects EffectSet, enableComparisonOperators bool) (corev1.Taint, bool) {
	for i := range taints {
		if !effects.Has(taints[i].Effect) {
			continue
		}
		// The zero klog.Logger discards everything.
		if !schedcorev1.TolerationsTolerateTaint(klog.Logger{}, tols, &taints[i], enableComparisonOperators) {
			return taints[i], true
		}
	}
	return corev1.Taint{}, false
}

// FindUntoleratedDaemonTaint is FindUntoleratedTaint with tols merged with
// DaemonTolerations(hostNetwork), as a daemon pod carries them, but without
// building the merged slice: it does not allocate (with the exception noted
// on FindUntoleratedTaint). The result is the same because the merge only
// replaces a toleration by a default with the same key, operator, value and
// effect, which tolerates the same taints, so the merged list tolerates a
// taint exactly when tols or a default does. It modifies nothing.
func FindUntoleratedDaemonTaint(taints []corev1.Taint, tols []corev1.Toleration, hostNetwork bool, effects EffectSet, enableComparisonOperators bool) (corev1.Taint, bool) {
	defaults := daemonDefaults()
	defs := defaults[:defaultCount(hostNetwork)]
	for i := range taints {
		if !effects.Has(taints[i].Effect) {
			continue
		}
		// The zero klog.Logger discards everything.
		if !schedcorev1.TolerationsTolerateTaint(klog.Logger{}, tols, &taints[i], enableComparisonOperators) &&
			!schedcorev1.TolerationsTolerateTaint(klog.Logger{}, defs, &taints[i], enableComparisonOperators) {
			return taints[i], true
		}
	}
	return corev1.Taint{}, false
}
