package rollout

import (
	"time"

	corev1 "k8s.io/api/core/v1"
)

// IsPodReady reports whether pod has a Ready condition with status True. A
// nil pod is not ready.
func IsPodReady(pod *corev1.Pod) bool {
	panic("unimplemented")
}

// IsPodAvailable reports whether pod is available at now: it is ready, and
// either minReadySeconds is 0 or its Ready condition's lastTransitionTime is
// set and lies at least minReadySeconds before now (the same rule as
// upstream's podutil.IsPodAvailable). A nil pod is not available.
func IsPodAvailable(pod *corev1.Pod, minReadySeconds int32, now time.Time) bool {
	panic("unimplemented")
}

// AvailableAt returns the instant a ready pod becomes (or became) available:
// the Ready condition's lastTransitionTime plus minReadySeconds. ok is false
// when the pod is not ready, or when minReadySeconds is positive and the
// lastTransitionTime is unset, so the pod never becomes available without a
// change. With minReadySeconds 0 a ready pod is available at once, and
// AvailableAt returns the zero time and true.
func AvailableAt(pod *corev1.Pod, minReadySeconds int32) (at time.Time, ok bool) {
	panic("unimplemented")
}
