package daemontest_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/simulate"
)

// TestSimulateAssume: a cluster Blocked by a crash-looping pod or a
// NotReady node converges once the trouble is assumed gone
// (simulate.Assume), and the rollout the template change starts reaches
// every node the assumptions keep (issue 31 §2).
func TestSimulateAssume(t *testing.T) {
	crashLoop := func() simulate.Input {
		in := captured()
		starting(in, "n2", time.Hour, crashLooping(12))
		return in
	}
	notReady := func() simulate.Input {
		in := captured(func(ds *appsv1.DaemonSet) {
			ds.Spec.Template.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
		})
		in.Nodes[1] = dt.Node("n2", dt.NotReady())
		podOn(in, "n2").Status.Conditions[0].Status = corev1.ConditionFalse
		return in
	}
	rollout := []simulate.Event{{Kind: simulate.TemplateChange, Image: "registry.example/fluentd:v2"}}
	type result struct {
		Outcome  simulate.Outcome
		Excluded []string
		Updated  []string
	}
	tests := []struct {
		name   string
		in     func() simulate.Input
		assume simulate.Assumptions
		events []simulate.Event
		want   result
	}{
		{name: "crash loop, nothing assumed", in: crashLoop, want: result{Outcome: simulate.OutcomeBlocked}},
		{name: "crash loop, node assumed ready", in: crashLoop, assume: simulate.Assumptions{Ready: []string{"n2"}},
			want: result{Outcome: simulate.OutcomeConverged}},
		// A rollout replaces the crash-looping pod first: the new one runs.
		{name: "crash loop, rollout replaces it first", in: crashLoop, events: rollout,
			want: result{Outcome: simulate.OutcomeConverged, Updated: []string{"n2", "n1", "n3"}}},
		{name: "crash loop, rollout with the node assumed ready", in: crashLoop, events: rollout,
			assume: simulate.Assumptions{Ready: []string{"n2"}},
			want:   result{Outcome: simulate.OutcomeConverged, Updated: []string{"n1", "n2", "n3"}}},
		{name: "NotReady node, nothing assumed", in: notReady, want: result{Outcome: simulate.OutcomeBlocked}},
		{name: "NotReady node excluded", in: notReady, assume: simulate.Assumptions{ExcludeNotReady: true},
			want: result{Outcome: simulate.OutcomeConverged, Excluded: []string{"n2"}}},
		{name: "NotReady node excluded, rollout", in: notReady, events: rollout, assume: simulate.Assumptions{ExcludeNotReady: true},
			want: result{Outcome: simulate.OutcomeConverged, Excluded: []string{"n2"}, Updated: []string{"n1", "n3"}}},
		{name: "NotReady node assumed ready, rollout", in: notReady, events: rollout, assume: simulate.Assumptions{Ready: []string{"n2"}},
			want: result{Outcome: simulate.OutcomeConverged, Updated: []string{"n1", "n2", "n3"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := clusterOf(tt.in())
			before := c.DeepCopy()
			assumed, excluded, err := simulate.Assume(c, tt.assume)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(before, c); diff != "" {
				t.Fatalf("Assume modified its cluster (-before +after):\n%s", diff)
			}
			res := simulate.Run(assumed, simulate.Config{ReadyDelay: 5 * time.Second, Events: tt.events, Check: dt.Checker(dt.CheckOptions{})})
			got := result{Outcome: res.Outcome, Excluded: excluded}
			for _, st := range res.Steps {
				got.Updated = append(got.Updated, st.UpdateNodes...)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s\nreason: %s", diff, res.Reason)
			}
			for _, st := range res.Steps {
				if len(st.Violations) > 0 {
					t.Errorf("step %d: %v", st.Step, st.Violations)
				}
			}
		})
	}
}

// TestSimulateAssumeUnknownNode: a node to assume Ready that the cluster
// does not have is an error naming it.
func TestSimulateAssumeUnknownNode(t *testing.T) {
	_, _, err := simulate.Assume(clusterOf(captured()), simulate.Assumptions{Ready: []string{"n9"}})
	want := `assume ready: node "n9": not found in the cluster`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}
