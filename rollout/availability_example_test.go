package rollout_test

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/rollout"
)

// exampleReadyPod is a pod that became ready at since.
func exampleReadyPod(since time.Time) *corev1.Pod {
	return &corev1.Pod{Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{
		Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(since),
	}}}}
}

func ExampleIsPodReady() {
	fmt.Println(rollout.IsPodReady(exampleReadyPod(time.Date(2025, 6, 1, 11, 0, 0, 0, time.UTC))))
	fmt.Println(rollout.IsPodReady(&corev1.Pod{}))
	// Output:
	// true
	// false
}

func ExampleIsPodAvailable() {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	pod := exampleReadyPod(now.Add(-20 * time.Second))
	fmt.Println(rollout.IsPodAvailable(pod, 0, now))
	fmt.Println(rollout.IsPodAvailable(pod, 20, now))
	fmt.Println(rollout.IsPodAvailable(pod, 30, now))
	// Output:
	// true
	// true
	// false
}

func ExampleAvailableAt() {
	pod := exampleReadyPod(time.Date(2025, 6, 1, 11, 59, 40, 0, time.UTC))
	at, ok := rollout.AvailableAt(pod, 30)
	fmt.Println(at.Format(time.RFC3339), ok)
	_, ok = rollout.AvailableAt(&corev1.Pod{}, 30)
	fmt.Println(ok)
	// Output:
	// 2025-06-01T12:00:10Z true
	// false
}

// AvailableSince gives the instant at minReadySeconds 0 too, where
// AvailableAt reports only that the pod is available: a progress deadline
// that counts from the last node to become available needs it.
func ExampleAvailableSince() {
	ready := time.Date(2025, 6, 1, 11, 59, 0, 0, time.UTC)
	pod := exampleReadyPod(ready)
	at, ok := rollout.AvailableAt(pod, 0)
	fmt.Println(at.IsZero(), ok)
	fmt.Println(rollout.AvailableSince(pod, 0).Format(time.TimeOnly))
	fmt.Println(rollout.AvailableSince(pod, 30).Format(time.TimeOnly))
	// Output:
	// true true
	// 11:59:00
	// 11:59:30
}
