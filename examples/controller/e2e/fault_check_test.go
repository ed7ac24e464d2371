package e2e

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

// TestRolloutCheck covers the bound the fault scenarios evaluate on every
// pod state; it needs no cluster.
func TestRolloutCheck(t *testing.T) {
	desired := []string{"n1", "n2", "n3"}
	finished := func(p *corev1.Pod) *corev1.Pod {
		p.Status.Phase = corev1.PodSucceeded
		return p
	}
	for _, tc := range []struct {
		name string
		pods []*corev1.Pod
		want string
	}{{
		name: "all available",
		pods: []*corev1.Pod{testPod("a", "n1", true, false), testPod("b", "n2", true, false), testPod("c", "n3", true, false)},
	}, {
		name: "one replaced: terminating, then a new pod pinned but not yet bound",
		pods: []*corev1.Pod{pinned("a2", "n1"), testPod("b", "n2", true, false), testPod("c", "n3", true, false)},
	}, {
		name: "a new pod pinned to a node whose old pod is terminating",
		pods: []*corev1.Pod{testPod("a", "n1", true, true), pinned("a2", "n1"), testPod("b", "n2", true, false), testPod("c", "n3", true, false)},
		want: "node n1 has 2 pods, at most 1 allowed",
	}, {
		name: "a finished pod being deleted does not count",
		pods: []*corev1.Pod{finished(testPod("a", "n1", false, true)), pinned("a2", "n1"), testPod("b", "n2", true, false), testPod("c", "n3", true, false)},
	}, {
		name: "two nodes unavailable over a budget of one",
		pods: []*corev1.Pod{testPod("a", "n1", false, false), testPod("b", "n2", true, true), testPod("c", "n3", true, false)},
		want: "2 desired nodes without an available pod, budget 1",
	}, {
		name: "a pod for an excluded node",
		pods: []*corev1.Pod{testPod("a", "n1", true, false), testPod("b", "n2", true, false), testPod("c", "n3", true, false), pinned("x", "excluded-0")},
		want: "pod x is for node excluded-0, which should run none",
	}, {
		name: "a pod for no node",
		pods: []*corev1.Pod{testPod("a", "", true, false), testPod("b", "n2", true, false), testPod("c", "n3", true, false)},
		want: "pod a is for no node",
	}, {
		name: "other apps ignored",
		pods: func() []*corev1.Pod {
			other := testPod("x", "excluded-0", true, false)
			other.Labels["app"] = "other"
			return []*corev1.Pod{other, testPod("a", "n1", true, false), testPod("b", "n2", true, false), testPod("c", "n3", true, false)}
		}(),
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := rolloutCheck("agent", desired, 1, 1)(podsByName(tc.pods))
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("rolloutCheck (-want +got):\n%s", d)
			}
		})
	}
}
