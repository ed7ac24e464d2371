package e2e

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// podsByName is the pods as a check takes them, by name.
func podsByName(pods []*corev1.Pod) map[string]*corev1.Pod {
	out := make(map[string]*corev1.Pod, len(pods))
	for _, p := range pods {
		out[p.Name] = p
	}
	return out
}

// testPod is a Running pod of app "agent" on node.
func testPod(name, node string, ready, deleting bool) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "agent"}},
		Spec:       corev1.PodSpec{NodeName: node},
		Status:     corev1.PodStatus{Phase: corev1.PodRunning},
	}
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}
	if deleting {
		now := metav1.NewTime(time.Unix(0, 0))
		p.DeletionTimestamp = &now
	}
	return p
}

// TestBudgetCheck covers the safety bound the monitor evaluates on every
// watch event; it needs no cluster.
func TestBudgetCheck(t *testing.T) {
	desired := []string{"n1", "n2", "n3"}
	for _, tc := range []struct {
		name                       string
		maxUnavailable, maxPerNode int
		pods                       []*corev1.Pod
		want                       string
	}{{
		name: "all available", maxUnavailable: 0, maxPerNode: 1,
		pods: []*corev1.Pod{testPod("a", "n1", true, false), testPod("b", "n2", true, false), testPod("c", "n3", true, false)},
	}, {
		name: "one not ready within budget", maxUnavailable: 1, maxPerNode: 1,
		pods: []*corev1.Pod{testPod("a", "n1", false, false), testPod("b", "n2", true, false), testPod("c", "n3", true, false)},
	}, {
		name: "terminating pod is not available", maxUnavailable: 1, maxPerNode: 1,
		pods: []*corev1.Pod{testPod("a", "n1", true, true), testPod("c", "n3", true, false)},
		want: "2 desired nodes without an available pod, budget 1",
	}, {
		name: "surge allows two pods on a node", maxUnavailable: 0, maxPerNode: 2,
		pods: []*corev1.Pod{testPod("a", "n1", true, true), testPod("a2", "n1", true, false), testPod("b", "n2", true, false), testPod("c", "n3", true, false)},
	}, {
		name: "three pods on a node", maxUnavailable: 0, maxPerNode: 2,
		pods: []*corev1.Pod{testPod("a", "n1", true, true), testPod("a2", "n1", true, false), testPod("a3", "n1", false, false), testPod("b", "n2", true, false), testPod("c", "n3", true, false)},
		want: "node n1 has 3 pods, at most 2 allowed",
	}, {
		name: "other apps ignored", maxUnavailable: 0, maxPerNode: 1,
		pods: func() []*corev1.Pod {
			other := testPod("x", "n1", true, false)
			other.Labels["app"] = "other"
			return []*corev1.Pod{other, testPod("a", "n1", true, false), testPod("b", "n2", true, false), testPod("c", "n3", true, false)}
		}(),
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := budgetCheck("agent", desired, tc.maxUnavailable, tc.maxPerNode)(podsByName(tc.pods))
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("budgetCheck (-want +got):\n%s", d)
			}
		})
	}
}

// pinned is testPod for a pod not yet bound, pinned to node by required
// node affinity on metadata.name.
func pinned(name, node string) *corev1.Pod {
	p := testPod(name, "", false, false)
	p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{node}}},
		}}},
	}}
	return p
}

// TestPlacementCheck covers the fresh-placement bound: one pod per desired
// node at most, none elsewhere, and never more pods created than desired
// nodes, counted over successive evaluations.
func TestPlacementCheck(t *testing.T) {
	desired := []string{"n1", "n2"}
	withUID := func(p *corev1.Pod, uid string) *corev1.Pod {
		p.UID = types.UID(uid)
		return p
	}
	for _, tc := range []struct {
		name string
		// steps are the pods at each evaluation; want is the last one's
		// verdict (every earlier one must pass).
		steps [][]*corev1.Pod
		want  string
	}{{
		name:  "pods appear, are bound and become ready",
		steps: [][]*corev1.Pod{{withUID(pinned("a", "n1"), "1")}, {withUID(testPod("a", "n1", true, false), "1"), withUID(pinned("b", "n2"), "2")}},
	}, {
		name:  "two pods for one node before binding",
		steps: [][]*corev1.Pod{{withUID(pinned("a", "n1"), "1"), withUID(pinned("b", "n1"), "2")}},
		want:  "node n1 has 2 pods",
	}, {
		name:  "pod for an ineligible node",
		steps: [][]*corev1.Pod{{withUID(testPod("a", "n3", true, false), "1")}},
		want:  "pod a is for node n3, which should run none",
	}, {
		name:  "pod for no node",
		steps: [][]*corev1.Pod{{withUID(testPod("a", "", false, false), "1")}},
		want:  "pod a is for no node",
	}, {
		name: "a replacement beyond the node count",
		steps: [][]*corev1.Pod{
			{withUID(testPod("a", "n1", true, false), "1"), withUID(testPod("b", "n2", true, false), "2")},
			{withUID(testPod("a", "n1", true, false), "1"), withUID(pinned("c", "n2"), "3")},
		},
		want: "3 pods created for 2 desired nodes",
	}, {
		name: "other apps ignored",
		steps: [][]*corev1.Pod{func() []*corev1.Pod {
			other := withUID(testPod("x", "n9", true, false), "9")
			other.Labels["app"] = "other"
			return []*corev1.Pod{other, withUID(testPod("a", "n1", true, false), "1")}
		}()},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			check := placementCheck("agent", desired)
			var got string
			for i, step := range tc.steps {
				got = check(podsByName(step))
				if i < len(tc.steps)-1 && got != "" {
					t.Fatalf("step %d: unexpected violation %q", i, got)
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("placementCheck (-want +got):\n%s", d)
			}
		})
	}
}
