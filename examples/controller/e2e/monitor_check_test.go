package e2e

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

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
			pods := map[string]*corev1.Pod{}
			for _, p := range tc.pods {
				pods[p.Name] = p
			}
			got := budgetCheck("agent", desired, tc.maxUnavailable, tc.maxPerNode)(pods)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("budgetCheck (-want +got):\n%s", d)
			}
		})
	}
}
