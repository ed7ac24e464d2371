package progressive_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/rollout"
)

// TestStopped: the cause of a rollout stopped at its progress deadline
// comes from where the standing puts its desired nodes in scope, judged
// by the pod the status counts on each; the companion's RolloutBlocked
// reason and dsplan's preview read it here (issue 31 §2).
func TestStopped(t *testing.T) {
	ready, notReady := dt.Node("n"), dt.Node("n", dt.NotReady())
	node := func(name string, n *corev1.Node, held daemon.KeepReason, states ...rollout.PodState) daemon.NodeStanding {
		r := daemon.NodeStanding{Name: name, Node: n, ShouldRun: true, Held: held, Oldest: -1, States: states}
		if len(states) > 0 {
			r.Oldest = 0
		}
		return r
	}
	newUnready, oldUnready := rollout.PodState{Updated: true}, rollout.PodState{}
	type verdict struct {
		Cause   progressive.StopCause
		Message string
	}
	tests := []struct {
		name string
		ro   *daemon.Standing
		want verdict
	}{
		{name: "the new revision is not ready", ro: &daemon.Standing{Nodes: []daemon.NodeStanding{
			node("n1", ready, daemon.HeldNone, newUnready), node("n2", notReady, daemon.HeldNone, oldUnready),
			node("n5", ready, daemon.HeldNone, rollout.PodState{Updated: true, Ready: true, Available: true}),
		}}, want: verdict{progressive.StopNewRevisionUnavailable, "the new revision is not becoming available on n1; nodes NotReady: n2"}},
		{name: "nodes NotReady", ro: &daemon.Standing{Nodes: []daemon.NodeStanding{
			node("n2", notReady, daemon.HeldNone, oldUnready), node("n3", ready, daemon.HeldNone),
		}}, want: verdict{progressive.StopNodesNotReady, "nodes NotReady: n2; no pod yet on n3"}},
		{name: "a pod being deleted is no pod", ro: &daemon.Standing{Nodes: []daemon.NodeStanding{
			node("n3", ready, daemon.HeldNone, rollout.PodState{Deleting: true}),
		}}, want: verdict{progressive.StopPodsMissing, "no pod yet on n3"}},
		{name: "old pods; nodes outside the scope do not count", ro: &daemon.Standing{Nodes: []daemon.NodeStanding{
			node("n4", ready, daemon.HeldNone, oldUnready), node("n6", notReady, daemon.HeldScope, oldUnready),
		}}, want: verdict{progressive.StopOldPodsUnavailable, "old pods unavailable on n4"}},
		{name: "more than MaxReasonNodes", ro: &daemon.Standing{Nodes: []daemon.NodeStanding{
			node("a", notReady, daemon.HeldNone, oldUnready), node("b", notReady, daemon.HeldNone, oldUnready),
			node("c", notReady, daemon.HeldNone, oldUnready), node("d", notReady, daemon.HeldNone, oldUnready),
			node("e", notReady, daemon.HeldNone, oldUnready), node("f", notReady, daemon.HeldNone, oldUnready),
			node("g", notReady, daemon.HeldNone, oldUnready),
		}}, want: verdict{progressive.StopNodesNotReady, "nodes NotReady: a, b, c, d, e and 2 more"}},
		{name: "nothing unavailable", ro: &daemon.Standing{},
			want: verdict{progressive.StopNoProgress, "no node is unavailable, yet none became updated and available"}},
		{name: "no standing", want: verdict{progressive.StopNoProgress, "no node is unavailable, yet none became updated and available"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cause, msg := progressive.Stopped(tt.ro)
			if diff := cmp.Diff(tt.want, verdict{cause, msg}); diff != "" {
				t.Errorf("Stopped (-want +got):\n%s", diff)
			}
		})
	}
}
