package rollout

import (
	"time"

	corev1 "k8s.io/api/core/v1"
)

// IsPodReady reports whether pod has a Ready condition with status True. A
// nil pod is not ready. Only the first condition of type Ready counts, as
// upstream. It does not allocate.
func IsPodReady(pod *corev1.Pod) bool {
	c := readyCondition(pod)
	return c != nil && c.Status == corev1.ConditionTrue
}

// IsPodAvailable reports whether pod is available at now: it is ready, and
// either minReadySeconds is 0 or its Ready condition's lastTransitionTime is
// set and lies at least minReadySeconds before now (the same rule as
// upstream's podutil.IsPodAvailable). A nil pod is not available.
//
// A negative minReadySeconds follows the same formula: the pod is available
// once lastTransitionTime minus |minReadySeconds| is not after now, and
// never when lastTransitionTime is unset. It does not allocate.
func IsPodAvailable(pod *corev1.Pod, minReadySeconds int32, now time.Time) bool {
	at, ok := AvailableAt(pod, minReadySeconds)
	if !ok {
		return false
	}
	return minReadySeconds == 0 || !at.After(now)
}

// AvailableAt returns the instant a ready pod becomes (or became) available:
// the Ready condition's lastTransitionTime plus minReadySeconds. ok is false
// when the pod is not ready, or when minReadySeconds is not 0 and the
// lastTransitionTime is unset, so the pod never becomes available without a
// change. With minReadySeconds 0 a ready pod is available at once, and
// AvailableAt returns the zero time and true.
//
// For every pod, minReadySeconds and now, IsPodAvailable(pod,
// minReadySeconds, now) equals ok && (minReadySeconds == 0 ||
// !at.After(now)). A nil pod gives false. It does not allocate.
func AvailableAt(pod *corev1.Pod, minReadySeconds int32) (at time.Time, ok bool) {
	c := readyCondition(pod)
	if c == nil || c.Status != corev1.ConditionTrue {
		return time.Time{}, false
	}
	return availableAt(c.LastTransitionTime.Time, minReadySeconds)
}

// AvailableSince returns when pod, available, became so: its Ready
// condition's lastTransitionTime plus minReadySeconds, whatever
// minReadySeconds is (where AvailableAt gives no instant at 0). It is the
// zero time when pod is nil, has no Ready condition or its
// lastTransitionTime is unset. It does not judge availability: ask
// IsPodAvailable first. It does not allocate.
func AvailableSince(pod *corev1.Pod, minReadySeconds int32) time.Time {
	c := readyCondition(pod)
	if c == nil || c.LastTransitionTime.IsZero() {
		return time.Time{}
	}
	return c.LastTransitionTime.Add(time.Duration(minReadySeconds) * time.Second)
}

// readyCondition returns the first condition of type Ready of pod, or nil
// when pod is nil or has none. The pointer aliases pod's status.
func readyCondition(pod *corev1.Pod) *corev1.PodCondition {
	if pod == nil {
		return nil
	}
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == corev1.PodReady {
			return &pod.Status.Conditions[i]
		}
	}
	return nil
}
