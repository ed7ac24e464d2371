package companion

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/whatif"
)

func TestMeasureAndSummary(t *testing.T) {
	ds := testDS("ns", "ds")
	zone := "topology.kubernetes.io/zone"
	nodes := []*corev1.Node{
		testNode("a1", map[string]string{zone: "a"}), testNode("a2", map[string]string{zone: "a"}),
		testNode("b1", map[string]string{zone: "b"}), testNode("b2", map[string]string{zone: "b"}), testNode("b3", map[string]string{zone: "b"}),
		testNode("x1", nil),
		testNode("s1", map[string]string{zone: "a", "spot": "true"}),
	}
	ready := t0.Add(-time.Hour)
	deleting := daemonPod(ds, "old-b2", "b2", "old", ready)
	deleting.DeletionTimestamp = &metav1.Time{Time: t0}
	pods := []*corev1.Pod{
		daemonPod(ds, "new-a1", "a1", "h", ready), daemonPod(ds, "new-a2", "a2", "h", t0.Add(-time.Minute)),
		daemonPod(ds, "new-b1", "b1", "h", time.Time{}), deleting,
		daemonPod(ds, "old-b3", "b3", "old", ready), daemonPod(ds, "old-x1", "x1", "old", ready),
		daemonPod(ds, "old-s1", "s1", "old", ready),
		daemonPod(testDS("ns", "other"), "other-b3", "b3", "h", ready),
	}
	policy := &daemon.RolloutPolicy{
		Order: daemon.UpdateOrder{Label: zone, Values: []string{"b"}},
		Scope: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "spot", Operator: metav1.LabelSelectorOpDoesNotExist}}},
	}
	got := measure(ds, daemon.NewEligibility(ds, false), policy, nodes, pods, "h", t0)
	want := progress{
		Desired: 6, Updated: 2, Held: 1, Old: 2, Label: zone,
		Waves: []wave{
			{Value: "b", Desired: 3, Old: 1},
			{Value: "a", Desired: 2, Updated: 2},
			{Unlabelled: true, Desired: 1, Old: 1},
		},
		Waiting:       []string{"b1", "b2"},
		LastAvailable: t0.Add(-time.Minute),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("measure (-want,+got):\n%s", diff)
	}
	if s, w := got.summary(false), "zone b: 0/3 updated (wave 1 of 3); 2/6 nodes updated (1 outside the scope); waiting for b1, b2 to become available"; s != w {
		t.Errorf("summary:\n got %s\nwant %s", s, w)
	}
	if s := (progress{Desired: 8, Updated: 8}).summary(true); s != "8/8 nodes updated" {
		t.Errorf("summary without waves: %s", s)
	}
	if s, w := got.summary(true), "2/6 nodes updated (1 outside the scope); waiting for b1, b2 to become available"; s != w {
		t.Errorf("summary when complete:\n got %s\nwant %s", s, w)
	}
	if s := nodeList([]string{"a", "b", "c", "d", "e"}, 3); s != "a, b, c and 2 more" {
		t.Errorf("nodeList: %s", s)
	}
}

func TestBlockedCause(t *testing.T) {
	ds := testDS("ns", "ds")
	newPod := daemonPod(ds, "new", "n1", "h", time.Time{})
	oldPod := daemonPod(ds, "old", "n4", "old", time.Time{})
	all := func(string) bool { return true }
	tests := []struct {
		name, wantReason, wantMsg string
		nodes                     []whatif.UnavailableNode
	}{{
		name:       "the new revision is not ready",
		nodes:      []whatif.UnavailableNode{{NodeName: "n1", Pod: newPod, Cause: whatif.CauseNotReady}, {NodeName: "n2", Cause: whatif.CauseNodeNotReady}},
		wantReason: ReasonNewRevisionUnavailable,
		wantMsg:    "the new revision is not becoming available on n1; nodes NotReady: n2",
	}, {
		name:       "nodes NotReady",
		nodes:      []whatif.UnavailableNode{{NodeName: "n2", Pod: oldPod, Cause: whatif.CauseNodeNotReady}, {NodeName: "n3", Cause: whatif.CauseNoPod}},
		wantReason: ReasonNodesNotReady,
		wantMsg:    "nodes NotReady: n2; no pod yet on n3",
	}, {
		name:       "old pods",
		nodes:      []whatif.UnavailableNode{{NodeName: "n4", Pod: oldPod, Cause: whatif.CauseNotReady}},
		wantReason: ReasonOldPodsUnavailable,
		wantMsg:    "old pods unavailable on n4",
	}, {
		name:       "nothing unavailable",
		wantReason: ReasonNoProgress,
		wantMsg:    "no node is unavailable, yet none became updated and available",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, m := blockedCause(whatif.Unavailability{Nodes: tt.nodes}, "h", all)
			if r != tt.wantReason || m != tt.wantMsg {
				t.Errorf("blockedCause = %q, %q; want %q, %q", r, m, tt.wantReason, tt.wantMsg)
			}
		})
	}
}

func TestConditionChangesKeepTransitionTimes(t *testing.T) {
	earlier := metav1.NewTime(t0.Add(-time.Hour))
	have := []appsv1.DaemonSetCondition{
		{Type: ConditionProgressing, Status: corev1.ConditionTrue, Reason: ReasonUpdating, Message: "1/3", LastTransitionTime: earlier},
		{Type: ConditionPaused, Status: corev1.ConditionFalse, Reason: ReasonNotPaused, LastTransitionTime: earlier},
		{Type: ConditionBlocked, Status: corev1.ConditionFalse, Reason: ReasonNotBlocked, LastTransitionTime: earlier},
	}
	want := []appsv1.DaemonSetCondition{
		condition(ConditionProgressing, true, ReasonUpdating, "2/3"),
		condition(ConditionPaused, true, ReasonPausedByAnnotation, "paused"),
		condition(ConditionBlocked, false, ReasonNotBlocked, ""),
	}
	got := conditionChanges(have, want, t0)
	wantChanges := []appsv1.DaemonSetCondition{
		{Type: ConditionProgressing, Status: corev1.ConditionTrue, Reason: ReasonUpdating, Message: "2/3", LastTransitionTime: earlier},
		{Type: ConditionPaused, Status: corev1.ConditionTrue, Reason: ReasonPausedByAnnotation, Message: "paused", LastTransitionTime: metav1.NewTime(t0)},
	}
	if diff := cmp.Diff(wantChanges, got); diff != "" {
		t.Errorf("conditionChanges (-want,+got):\n%s", diff)
	}
}

// TestWavesAnnouncedOnce: a wave is announced when it completes after
// having had old pods, once per revision; a first placement is not.
func TestWavesAnnouncedOnce(t *testing.T) {
	s := newMemory()
	look := func(hash string, waves ...wave) []string {
		var out []string
		for _, w := range s.newlyComplete("ns/ds", "uid", hash, progress{Label: "zone", Waves: waves}) {
			out = append(out, w.Value)
		}
		return out
	}
	steps := []struct {
		name  string
		hash  string
		waves []wave
		want  []string
	}{
		{name: "first placement", hash: "h1", waves: []wave{{Value: "a", Desired: 2}, {Value: "b", Desired: 2}}},
		{name: "first placement done", hash: "h1", waves: []wave{{Value: "a", Desired: 2, Updated: 2}, {Value: "b", Desired: 2, Updated: 2}}},
		{name: "rollout starts", hash: "h2", waves: []wave{{Value: "a", Desired: 2, Old: 1, Updated: 1}, {Value: "b", Desired: 2, Old: 2}}},
		{name: "a done", hash: "h2", waves: []wave{{Value: "a", Desired: 2, Updated: 2}, {Value: "b", Desired: 2, Old: 2}}, want: []string{"a"}},
		{name: "a again", hash: "h2", waves: []wave{{Value: "a", Desired: 2, Updated: 2}, {Value: "b", Desired: 2, Old: 1}}},
		{name: "b done", hash: "h2", waves: []wave{{Value: "a", Desired: 2, Updated: 2}, {Value: "b", Desired: 2, Updated: 2}}, want: []string{"b"}},
	}
	for _, st := range steps {
		if diff := cmp.Diff(st.want, look(st.hash, st.waves...)); diff != "" {
			t.Errorf("%s: announced (-want,+got):\n%s", st.name, diff)
		}
	}
}
