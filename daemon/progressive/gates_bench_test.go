package progressive_test

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/rollout"
)

// BenchmarkGatesHold is what a companion sync adds to its plan and
// judgement to know whether the gates hold the rollout: 5,000 nodes in
// three zones, the first zone on the new revision, health gates on,
// pause-after every-wave. judge is Judge of the same plan, for scale.
func BenchmarkGatesHold(b *testing.B) {
	ds := dt.DaemonSet("agent", dt.WithMaxUnavailable("100%"))
	var nodes []*corev1.Node
	var pods []*corev1.Pod
	for i := range 5000 {
		name := fmt.Sprintf("n%04d", i)
		z := string(rune('a' + i%3))
		nodes = append(nodes, dt.Node(name, dt.WithLabel(zone, z)))
		var opts []dt.PodOption
		if z != "a" {
			opts = append(opts, dt.WithHash("v1"))
		}
		pods = append(pods, dt.Pod(ds, "agent-"+name, name, append(opts, withContainers(container("agent", 1)))...))
	}
	pol := daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: zone}, Waves: &rollout.WaveBarrier{}}
	plan, err := daemon.Compute(ds, nodes, pods, daemon.Options{Now: dt.Epoch, Rollout: pol, ReportStanding: true})
	if err != nil {
		b.Fatal(err)
	}
	j, err := progressive.Judge(ds, &plan)
	if err != nil {
		b.Fatal(err)
	}
	g := &progressive.Gates{Health: progressive.HealthGates{On: true, MaxRestarts: 3, ReadyTimeout: 10 * time.Minute}, PauseAfter: []string{"every-wave"}}
	h, err := g.Hold(ds, &plan, j, dt.Epoch, nil)
	if err != nil || h.Cause != progressive.HoldApproval {
		b.Fatalf("Hold() = %+v, %v; want an approval hold", h, err)
	}
	b.Run("op=hold", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := g.Hold(ds, &plan, j, dt.Epoch, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("op=judge", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := progressive.Judge(ds, &plan); err != nil {
				b.Fatal(err)
			}
		}
	})
}
