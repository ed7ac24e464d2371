package tolerations

import (
	corev1 "k8s.io/api/core/v1"
)

// DaemonTolerations returns, in a new slice, the tolerations the DaemonSet
// controller gives every daemon pod, in the order upstream adds them:
// node.kubernetes.io/not-ready:NoExecute, unreachable:NoExecute,
// disk-pressure:NoSchedule, memory-pressure:NoSchedule,
// pid-pressure:NoSchedule, unschedulable:NoSchedule and, only when
// hostNetwork is true, network-unavailable:NoSchedule. All use the Exists
// operator and no tolerationSeconds.
func DaemonTolerations(hostNetwork bool) []corev1.Toleration {
	defs := daemonDefaults()
	n := defaultCount(hostNetwork)
	return append(make([]corev1.Toleration, 0, n), defs[:n]...)
}

// maxDefaults is the number of default tolerations of a host-network pod.
const maxDefaults = 7

// daemonDefaults returns every default toleration in the order upstream
// applies them; the last entry applies only to host-network pods. It builds
// the table on each call (an array value, no allocation) so that the
// package holds no mutable state.
func daemonDefaults() [maxDefaults]corev1.Toleration {
	return [maxDefaults]corev1.Toleration{
		exists(corev1.TaintNodeNotReady, corev1.TaintEffectNoExecute),
		exists(corev1.TaintNodeUnreachable, corev1.TaintEffectNoExecute),
		exists(corev1.TaintNodeDiskPressure, corev1.TaintEffectNoSchedule),
		exists(corev1.TaintNodeMemoryPressure, corev1.TaintEffectNoSchedule),
		exists(corev1.TaintNodePIDPressure, corev1.TaintEffectNoSchedule),
		exists(corev1.TaintNodeUnschedulable, corev1.TaintEffectNoSchedule),
		exists(corev1.TaintNodeNetworkUnavailable, corev1.TaintEffectNoSchedule),
	}
}

// defaultCount returns how many leading entries of daemonDefaults apply.
func defaultCount(hostNetwork bool) int {
	if hostNetwork {
		return maxDefaults
	}
	return maxDefaults - 1
}

func exists(key string, effect corev1.TaintEffect) corev1.Toleration {
	return corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: effect}
}

// AddOrUpdateDaemonPodTolerations modifies spec.Tolerations so that it holds
// every toleration of DaemonTolerations(spec.HostNetwork), exactly as the
// upstream helper of the same name does: for each default toleration in
// order, every existing toleration with the same key, operator, value and
// effect is replaced by the default one (so a differing tolerationSeconds is
// dropped), and the default is appended when none matched. Other
// tolerations keep their place. Key, operator, value and effect are compared
// as exact strings, so an empty operator does not match Exists, and
// duplicated matches stay duplicated.
//
// It reports whether the resulting list differs from the old one. When it
// does not, spec is left untouched (spec.Tolerations keeps its slice
// header). When it does, spec.Tolerations is set to a new slice that shares
// no memory with the old one; the old backing array is never written.
// Applying it twice gives the same result as applying it once, and the
// second call reports false. A nil spec is a no-op that reports false.
// It runs in O(len(spec.Tolerations)) time.
func AddOrUpdateDaemonPodTolerations(spec *corev1.PodSpec) (changed bool) {
	if spec == nil {
		return false
	}
	if !needsMerge(spec.Tolerations, spec.HostNetwork) {
		return false
	}
	spec.Tolerations = merge(spec.Tolerations, spec.HostNetwork)
	return true
}

// WithDaemonTolerations returns a new slice holding tols merged with
// DaemonTolerations(hostNetwork) by the rule of
// AddOrUpdateDaemonPodTolerations. It never returns nil, always allocates
// (even when the merge changes nothing), and the result shares no memory
// with tols: tolerationSeconds pointers are copied too. It does not modify
// tols. It runs in O(len(tols)) time.
func WithDaemonTolerations(tols []corev1.Toleration, hostNetwork bool) []corev1.Toleration {
	return merge(tols, hostNetwork)
}

// defaultIndex returns the index in defs of the default toleration t
// matches by key, operator, value and effect, or -1.
func defaultIndex(defs []corev1.Toleration, t *corev1.Toleration) int {
	for i := range defs {
		if defs[i].MatchToleration(t) {
			return i
		}
	}
	return -1
}

// needsMerge reports whether merging the defaults into tols would give a
// list with other content than tols: when a default is missing, or when a
// toleration matching a default carries a tolerationSeconds (the only field
// the replacement can change, as the other four are equal by definition of
// a match).
func needsMerge(tols []corev1.Toleration, hostNetwork bool) bool {
	all := daemonDefaults()
	defs := all[:defaultCount(hostNetwork)]
	var seen [maxDefaults]bool
	for i := range tols {
		d := defaultIndex(defs, &tols[i])
		if d < 0 {
			continue
		}
		if tols[i].TolerationSeconds != nil {
			return true
		}
		seen[d] = true
	}
	for i := range defs {
		if !seen[i] {
			return true
		}
	}
	return false
}

// merge returns tols with every toleration matching a default replaced by
// that default, followed by the defaults nothing matched, in default order.
//
// Upstream applies the defaults one at a time, each pass rebuilding the
// list. A single pass gives the same list: the defaults have distinct keys,
// so an existing toleration matches at most one of them, and a default
// appended by an earlier pass is never matched by a later one.
func merge(tols []corev1.Toleration, hostNetwork bool) []corev1.Toleration {
	all := daemonDefaults()
	defs := all[:defaultCount(hostNetwork)]
	out := make([]corev1.Toleration, 0, len(tols)+len(defs))
	var seen [maxDefaults]bool
	for i := range tols {
		if d := defaultIndex(defs, &tols[i]); d >= 0 {
			seen[d] = true
			out = append(out, defs[d])
			continue
		}
		var t corev1.Toleration
		tols[i].DeepCopyInto(&t)
		out = append(out, t)
	}
	for i := range defs {
		if !seen[i] {
			out = append(out, defs[i])
		}
	}
	return out
}
