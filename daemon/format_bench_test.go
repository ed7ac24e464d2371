package daemon_test

import (
	"io"
	"testing"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
)

// BenchmarkFormat prints the plan of a 1,000-node rollout with its
// placement table.
func BenchmarkFormat(b *testing.B) {
	ds, nodes, pods, revs := fleet(1000, rolloutStart)
	plan, err := daemon.Compute(ds, nodes, pods, daemon.Options{Now: dt.Epoch, Revisions: revs})
	if err != nil {
		b.Fatal(err)
	}
	opts := daemon.FormatOptions{DaemonSet: ds, Nodes: nodes, Now: dt.Epoch}
	b.ReportAllocs()
	for b.Loop() {
		if err := plan.Format(io.Discard, opts); err != nil {
			b.Fatal(err)
		}
	}
}
