package upstreambench

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon"
)

// TestHarness checks, on small fleets, that the harness drives upstream's
// controller as BenchmarkSync claims: every trigger gives a measured sync,
// the sync makes the API calls daemonplan's plan of the same
// objects asks for (and no others: no status write, no revision, no
// create), and the status daemonplan stores
// beforehand is the one upstream computes, so nothing drifts between syncs.
func TestHarness(t *testing.T) {
	const nodes = 100
	tests := []struct {
		state       syncState
		wantDeletes int // per sync
	}{
		{state: steady, wantDeletes: 0},
		{state: rollout, wantDeletes: 10}, // maxUnavailable 10%
		{state: exclusion, wantDeletes: 0},
		{state: plain, wantDeletes: 0},
	}
	for _, tt := range tests {
		t.Run(string(tt.state), func(t *testing.T) {
			c, err := syncFleet(nodes, tt.state)
			if err != nil {
				t.Fatal(err)
			}
			u := startUpstreamTB(t, c)
			plan, err := daemon.Compute(u.listed.ds, u.listed.nodes, u.listed.pods, u.listed.options())
			if err != nil {
				t.Fatal(err)
			}
			if got := len(plan.Deletes); got != tt.wantDeletes {
				t.Errorf("daemonplan plans %d deletes, want %d", got, tt.wantDeletes)
			}
			if len(plan.Creates) != 0 || !plan.History.IsZero() || plan.StatusChanged {
				t.Errorf("daemonplan plans %d creates, history %+v, status changed %v; want none", len(plan.Creates), plan.History, plan.StatusChanged)
			}
			ctx := context.Background()
			want := map[string]int{}
			if tt.wantDeletes > 0 {
				want["delete pods"] = tt.wantDeletes
			}
			for i := range 3 {
				cost, err := u.sync(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if cost.took <= 0 || cost.allocs == 0 {
					t.Errorf("sync %d measured as %+v, want a duration and allocations", i, cost)
				}
				got := u.calls.of(cost.seq)
				// A sync that began between the trigger's timestamp and its
				// call counts the call (see upstream.sync).
				delete(got, "update daemonsets")
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("API calls of sync %d (-want +got):\n%s", i, diff)
				}
			}
			stored, err := u.client.AppsV1().DaemonSets(c.ds.Namespace).Get(ctx, c.ds.Name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(plan.Status, stored.Status); diff != "" {
				t.Errorf("stored status against daemonplan's (-daemonplan +stored):\n%s", diff)
			}
		})
	}
}

// TestStatusShape checks that daemonplan reads upstream's status-loop
// clusters as that benchmark presets them: every node desired, none
// available.
func TestStatusShape(t *testing.T) {
	for _, exclusion := range []bool{false, true} {
		c := statusShape(50, exclusion)
		plan, err := daemon.Compute(c.ds, c.nodes, c.pods, c.options())
		if err != nil {
			t.Fatal(err)
		}
		if plan.Status.DesiredNumberScheduled != 50 || plan.Status.NumberUnavailable != 50 {
			t.Errorf("exclusion=%v: status %+v, want 50 desired and 50 unavailable", exclusion, plan.Status)
		}
	}
}

// TestUpstreamVersion checks that the release upstream's rows are named
// after is the one go.mod requires.
func TestUpstreamVersion(t *testing.T) {
	data, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "k8s.io/kubernetes" { // a line of a require block
			if got, want := f[1], "v"+upstreamVersion; got != want {
				t.Errorf("go.mod requires k8s.io/kubernetes %s; upstream's rows are named after %s", got, want)
			}
			return
		}
	}
	t.Error("go.mod does not require k8s.io/kubernetes")
}
