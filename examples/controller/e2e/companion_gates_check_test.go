package e2e

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestWorkloadBudgetCheck covers the bound the gate scenarios evaluate on
// every pod event; it needs no cluster. A node whose pod failed by itself
// does not count against the budget until it runs an available pod again
// (also while its failed pod is deleted and replaced); a node the
// controller took down does.
func TestWorkloadBudgetCheck(t *testing.T) {
	crashed := func(name, node string, deleting bool) *corev1.Pod {
		p := testPod(name, node, false, deleting)
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
	// One check, its steps in order: it keeps which nodes are broken.
	check := workloadBudgetCheck("agent", []string{"a", "b", "c"}, 1)
	for _, s := range []struct {
		name string
		pods map[string]*corev1.Pod
		want string // substring of the violation; "" for none
	}{
		{name: "one taken down", pods: state(testPod("a1", "a", true, false), testPod("b1", "b", true, false))},
		{name: "a's new pod crashed, b taken down", pods: state(crashed("a2", "a", false), testPod("c1", "c", true, false))},
		{name: "a's crashed pod deleted, b's new pod creating", pods: state(crashed("a2", "a", true), creating("b2", "b"), testPod("c1", "c", true, false))},
		{name: "a's crashed pod gone, its new pod creating", pods: state(creating("a3", "a"), creating("b2", "b"), testPod("c1", "c", true, false))},
		{name: "a available again", pods: state(testPod("a3", "a", true, false), testPod("b2", "b", true, false), testPod("c1", "c", true, false))},
		{name: "a and c taken down", pods: state(creating("a4", "a"), testPod("b2", "b", true, false)),
			want: "2 desired nodes without an available pod besides 0 the new revision broke, budget 1"},
	} {
		got := check(s.pods)
		if (s.want == "") != (got == "") || !strings.Contains(got, s.want) {
			t.Errorf("%s: check = %q, want %q", s.name, got, s.want)
		}
	}
}
