package controller

import (
	"context"
	"fmt"
	"testing"

	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// BenchmarkSync is one sync of a settled DaemonSet (nothing to do, no
// write) on clusters of 1,000 and 5,000 nodes, planned through the
// workers' Planners (planner=pool, what the controller does) or through
// daemon.Compute (planner=none, a nil pool): the figures behind giving
// each worker a Planner (BENCHMARKS.md).
func BenchmarkSync(b *testing.B) {
	for _, n := range []int{1000, 5000} {
		for _, pool := range []string{"pool", "none"} {
			b.Run(fmt.Sprintf("nodes=%d/planner=%s", n, pool), func(b *testing.B) {
				ds := daemontest.DaemonSet("agent")
				cl := daemontest.SteadyCluster(ds, n)
				h := newHarness(b, syncer.Config{})
				h.c.Logger = klog.Logger{} // discards: the log line costs more than a plan
				h.Clock.SetTime(cl.Now)
				h.Cache(cl.DaemonSet)
				for _, o := range cl.Nodes {
					h.Cache(o)
				}
				for _, o := range cl.Pods {
					h.Cache(o)
				}
				for _, o := range cl.Revisions {
					h.Cache(o)
				}
				if pool == "none" {
					h.c.Planners = nil
				}
				key := cache.MetaObjectToName(cl.DaemonSet).String()
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					if err := h.c.sync(ctx, key); err != nil {
						b.Fatal(err)
					}
				}
				if w := h.Writes(); len(w) > 0 {
					b.Fatalf("a settled sync wrote %v", w)
				}
			})
		}
	}
}
