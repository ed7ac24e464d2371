package companion

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/rollout"
)

// TestSummary: the progress message says what the judgement of the plan
// counts (progressive.Judge): the current wave, the nodes updated and
// outside the scope, those being replaced.
func TestSummary(t *testing.T) {
	ds := testDS("ns", "ds")
	rev, h := revisionOf(t, ds)
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
		daemonPod(ds, "new-a1", "a1", h, ready), daemonPod(ds, "new-a2", "a2", h, t0.Add(-time.Minute)),
		daemonPod(ds, "new-b1", "b1", h, time.Time{}), deleting,
		daemonPod(ds, "old-b3", "b3", "old", ready), daemonPod(ds, "old-x1", "x1", "old", ready),
		daemonPod(ds, "old-s1", "s1", "old", ready),
		daemonPod(testDS("ns", "other"), "other-b3", "b3", h, ready),
	}
	policy := daemon.RolloutPolicy{
		Order: daemon.UpdateOrder{Label: zone, Values: []string{"b"}},
		Scope: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "spot", Operator: metav1.LabelSelectorOpDoesNotExist}}},
	}
	plan, err := daemon.Compute(ds, nodes, pods, daemon.Options{Now: t0, Revisions: []*appsv1.ControllerRevision{rev}, Rollout: policy, ReportStanding: true})
	if err != nil {
		t.Fatal(err)
	}
	j, err := progressive.Judge(ds, &plan)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := j.LastAvailable, t0.Add(-time.Minute); !got.Equal(want) {
		t.Errorf("LastAvailable = %s, want %s", got, want)
	}
	if s, w := summary(j), "zone b: 0/3 updated (wave 1 of 3); 2/6 nodes updated (1 outside the scope); waiting for b1, b2 to become available"; s != w {
		t.Errorf("summary:\n got %s\nwant %s", s, w)
	}
	j.Complete = true
	if s, w := summary(j), "2/6 nodes updated (1 outside the scope); waiting for b1, b2 to become available"; s != w {
		t.Errorf("summary when complete:\n got %s\nwant %s", s, w)
	}
	if s := summary(progressive.Judgement{Complete: true, Total: progressive.Tally{Desired: 8, Updated: 8}}); s != "8/8 nodes updated" {
		t.Errorf("summary without waves: %s", s)
	}
	for w, want := range map[string]string{zone + "=us-east-1b": "zone us-east-1b", "!" + zone: "nodes without zone", "pool=a": "pool a", daemon.CanaryWave: "canary", daemon.RestWave: "rest"} {
		if got := waveName(w); got != want {
			t.Errorf("waveName(%q) = %q, want %q", w, got, want)
		}
	}
	if s := nodeList([]string{"a", "b", "c", "d", "e"}, 3); s != "a, b, c and 2 more" {
		t.Errorf("nodeList: %s", s)
	}
}

// TestBlockedCause: the cause of a rollout stopped at its deadline comes
// from where the plan's standing puts its desired nodes in scope, judged
// by the pod the status counts on each.
func TestBlockedCause(t *testing.T) {
	ready, notReady := testNode("n", nil), testNode("n", nil)
	notReady.Status.Conditions[0].Status = corev1.ConditionFalse
	node := func(name string, n *corev1.Node, held daemon.KeepReason, states ...rollout.PodState) daemon.NodeStanding {
		r := daemon.NodeStanding{Name: name, Node: n, ShouldRun: true, Held: held, Oldest: -1, States: states}
		if len(states) > 0 {
			r.Oldest = 0
		}
		return r
	}
	newUnready := rollout.PodState{Updated: true}
	oldUnready := rollout.PodState{}
	tests := []struct {
		name, wantReason, wantMsg string
		nodes                     []daemon.NodeStanding
	}{{
		name: "the new revision is not ready",
		nodes: []daemon.NodeStanding{
			node("n1", ready, daemon.HeldNone, newUnready), node("n2", notReady, daemon.HeldNone, oldUnready),
			node("n5", ready, daemon.HeldNone, rollout.PodState{Updated: true, Ready: true, Available: true}),
		},
		wantReason: ReasonNewRevisionUnavailable,
		wantMsg:    "the new revision is not becoming available on n1; nodes NotReady: n2",
	}, {
		name:       "nodes NotReady",
		nodes:      []daemon.NodeStanding{node("n2", notReady, daemon.HeldNone, oldUnready), node("n3", ready, daemon.HeldNone)},
		wantReason: ReasonNodesNotReady,
		wantMsg:    "nodes NotReady: n2; no pod yet on n3",
	}, {
		name:       "a pod being deleted is no pod",
		nodes:      []daemon.NodeStanding{node("n3", ready, daemon.HeldNone, rollout.PodState{Deleting: true})},
		wantReason: ReasonPodsMissing,
		wantMsg:    "no pod yet on n3",
	}, {
		name:       "old pods; nodes outside the scope do not count",
		nodes:      []daemon.NodeStanding{node("n4", ready, daemon.HeldNone, oldUnready), node("n6", notReady, daemon.HeldScope, oldUnready)},
		wantReason: ReasonOldPodsUnavailable,
		wantMsg:    "old pods unavailable on n4",
	}, {
		name:       "nothing unavailable",
		wantReason: ReasonNoProgress,
		wantMsg:    "no node is unavailable, yet none became updated and available",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, m := blockedCause(&daemon.Standing{Nodes: tt.nodes})
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
	look := func(hash string, waves ...progressive.Tally) []string {
		var out []string
		for _, w := range s.newlyComplete("ns/ds", "uid", hash, progressive.Judgement{Waves: waves}) {
			out = append(out, w.Wave)
		}
		return out
	}
	steps := []struct {
		name  string
		hash  string
		waves []progressive.Tally
		want  []string
	}{
		{name: "first placement", hash: "h1", waves: []progressive.Tally{{Wave: "a", Desired: 2}, {Wave: "b", Desired: 2}}},
		{name: "first placement done", hash: "h1", waves: []progressive.Tally{{Wave: "a", Desired: 2, Updated: 2}, {Wave: "b", Desired: 2, Updated: 2}}},
		{name: "rollout starts", hash: "h2", waves: []progressive.Tally{{Wave: "a", Desired: 2, Old: 1, Updated: 1}, {Wave: "b", Desired: 2, Old: 2}}},
		{name: "a done", hash: "h2", waves: []progressive.Tally{{Wave: "a", Desired: 2, Updated: 2}, {Wave: "b", Desired: 2, Old: 2}}, want: []string{"a"}},
		{name: "a again", hash: "h2", waves: []progressive.Tally{{Wave: "a", Desired: 2, Updated: 2}, {Wave: "b", Desired: 2, Old: 1}}},
		{name: "b done", hash: "h2", waves: []progressive.Tally{{Wave: "a", Desired: 2, Updated: 2}, {Wave: "b", Desired: 2, Updated: 2}}, want: []string{"b"}},
	}
	for _, st := range steps {
		if diff := cmp.Diff(st.want, look(st.hash, st.waves...)); diff != "" {
			t.Errorf("%s: announced (-want,+got):\n%s", st.name, diff)
		}
	}
}
