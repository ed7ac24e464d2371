package simulate_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/daemon/simulate"
	"github.com/daemonplan/daemonplan/rollout"
)

// TestRunHorizon: a duration past Horizon is refused before the run
// (before, a bake of 2562047h saturated the run's time and dsplan printed
// an ETA of 2562047h47m16.854775807s), and a run never reports a time
// past it.
func TestRunHorizon(t *testing.T) {
	const saturating = 2562047 * time.Hour
	tests := []struct {
		name string
		edit func(*simulate.Cluster, *simulate.Config)
		// want is a part of Reason, "" for a run that converges.
		want string
	}{
		{name: "a bake at the horizon runs", edit: func(c *simulate.Cluster, _ *simulate.Config) {
			c.Rollout.Order.Label, c.Rollout.Waves = "zone", &rollout.WaveBarrier{Bake: simulate.Horizon}
		}},
		{name: "a wave bake past it", edit: func(c *simulate.Cluster, _ *simulate.Config) {
			c.Rollout.Order.Label, c.Rollout.Waves = "zone", &rollout.WaveBarrier{Bake: saturating}
		}, want: "cannot simulate: the wave bake 2562047h0m0s is beyond the simulated time limit"},
		{name: "the gates' ready timeout past it", edit: func(c *simulate.Cluster, _ *simulate.Config) {
			c.Gates = &progressive.Gates{Health: progressive.HealthGates{On: true, ReadyTimeout: saturating}}
		}, want: "cannot simulate: the ready timeout"},
		{name: "a ready delay past it", edit: func(_ *simulate.Cluster, cfg *simulate.Config) { cfg.ReadyDelay = saturating },
			want: "cannot simulate: ReadyDelay"},
		{name: "an event past it", edit: func(_ *simulate.Cluster, cfg *simulate.Config) {
			cfg.Events = []simulate.Event{{At: simulate.Horizon + time.Hour, Kind: simulate.NodeJoin, Node: dt.Node("late")}}
		}, want: "cannot simulate: Events[0].At"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := dt.DaemonSet("agent", dt.WithImage("v2"))
			c := dt.SteadyCluster(ds, 3, dt.WithLabel("zone", "a"))
			cfg := simulate.Config{ReadyDelay: time.Second}
			tt.edit(c, &cfg)
			res := simulate.Run(c, cfg)
			if tt.want == "" {
				if res.Outcome != simulate.OutcomeConverged || res.Duration() > simulate.Horizon {
					t.Fatalf("outcome %s after %s: %s", res.Outcome, res.Duration(), res.Reason)
				}
				return
			}
			if diff := cmp.Diff(simulate.OutcomeStalled, res.Outcome); diff != "" || !strings.Contains(res.Reason, tt.want) {
				t.Errorf("outcome %s, reason %q; want Stalled naming %q", res.Outcome, res.Reason, tt.want)
			}
		})
	}
}
