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
	panic("unimplemented")
}

// AddOrUpdateDaemonPodTolerations modifies spec.Tolerations so that it holds
// every toleration of DaemonTolerations(spec.HostNetwork), exactly as the
// upstream helper of the same name does: for each default toleration in
// order, every existing toleration with the same key, operator, value and
// effect is replaced by the default one (so a differing tolerationSeconds is
// dropped), and the default is appended when none matched. Other
// tolerations keep their place. spec.Tolerations is set to a new slice; the
// old backing array is never written. Applying it twice gives the same
// result as applying it once. It reports whether spec.Tolerations changed.
// A nil spec is a no-op that reports false.
func AddOrUpdateDaemonPodTolerations(spec *corev1.PodSpec) (changed bool) {
	panic("unimplemented")
}

// WithDaemonTolerations returns a new slice holding tols merged with
// DaemonTolerations(hostNetwork) by the rule of AddOrUpdateDaemonPodTolerations.
// It does not modify tols.
func WithDaemonTolerations(tols []corev1.Toleration, hostNetwork bool) []corev1.Toleration {
	panic("unimplemented")
}
