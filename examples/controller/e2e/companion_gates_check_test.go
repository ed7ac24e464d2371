package e2e

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestWorkloadBudgetCheck covers the bound the gate scenarios evaluate on
// every pod event; it needs no cluster: a node whose new pod fails by
// itself widens the budget by one, a node the controller took down does
// not.
func TestWorkloadBudgetCheck(t *testing.T) {
	crashed := func(name, node string) *corev1.Pod {
		p := testPod(name, node, false, false)
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "agent", RestartCount: 1,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}}}
		return p
	}
	creating := func(name, node string) *corev1.Pod {
		p := testPod(name, node, false, false)
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "agent",
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}}}
		return p
	}
	state := func(pods ...*corev1.Pod) map[string]*corev1.Pod {
		m := map[string]*corev1.Pod{}
		for _, p := range pods {
			m[p.Name] = p
		}
		return m
	}
	desired := []string{"a", "b", "c"}
	for _, tc := range []struct {
		name string
		pods map[string]*corev1.Pod
		want string // substring of the violation; "" for none
	}{
		{name: "one taken down", pods: state(testPod("a1", "a", true, false), testPod("b1", "b", true, false))},
		{name: "one crashed, one taken down", pods: state(crashed("a2", "a"), testPod("c1", "c", true, false))},
		{name: "one creating, one taken down", pods: state(creating("a2", "a"), testPod("c1", "c", true, false)),
			want: "2 desired nodes without an available pod, budget 1"},
		{name: "two taken down", pods: state(testPod("c1", "c", true, false)), want: "2 desired nodes without an available pod, budget 1"},
	} {
		got := workloadBudgetCheck("agent", desired, 1)(tc.pods)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: check = %q, want %q", tc.name, got, tc.want)
		}
	}
}
