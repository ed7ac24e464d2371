package simulate_test

import (
	"fmt"
	"testing"
	"time"

	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/daemon/progressive/window"
	"github.com/daemonplan/daemonplan/daemon/simulate"
)

// BenchmarkRunGates rolls a new image out over SteadyCluster fleets with
// maxUnavailable 10%, without gates and with health gates and a window
// open all week (they hold nothing, so both runs take the same steps):
// what asking the gates costs a step (a plan with its standing, the
// judgement, Hold).
//
//	go test -run '^$' -bench BenchmarkRunGates -benchmem ./daemon/simulate
func BenchmarkRunGates(b *testing.B) {
	always := window.Window{Days: days(time.Sunday, time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday, time.Saturday),
		End: 24 * time.Hour, Zone: "UTC"}
	for _, n := range []int{500, 5000} {
		for _, g := range []struct {
			name  string
			gates *progressive.Gates
		}{
			{"none", nil},
			{"health+window", &progressive.Gates{Health: progressive.HealthGates{On: true, MaxRestarts: 3, ReadyTimeout: 10 * time.Minute},
				Windows: window.Windows{always}}},
		} {
			c := dt.SteadyCluster(dt.DaemonSet("agent", dt.WithMaxUnavailable("10%"), dt.WithTemplateGeneration(1)), n)
			c.Gates = g.gates
			cfg := simulate.Config{BindDelay: 2 * time.Second, ReadyDelay: 15 * time.Second, GracePeriod: 5 * time.Second,
				Events: []simulate.Event{{Kind: simulate.TemplateChange, Image: "registry.example/agent:v2"}}}
			b.Run(fmt.Sprintf("nodes=%d/gates=%s", n, g.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if res := simulate.Run(c, cfg); res.Outcome != simulate.OutcomeConverged {
						b.Fatalf("%s: %s", res.Outcome, res.Reason)
					}
				}
			})
		}
	}
}
