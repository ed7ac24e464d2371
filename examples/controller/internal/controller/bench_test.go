package controller

import (
	"context"
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/daemonplan/daemonplan/daemon/daemontest"
)

// BenchmarkNodeHeartbeat is the cost of a node status update (a heartbeat)
// with 100 DaemonSets: one compiled placement check per DaemonSet and
// nothing enqueued.
func BenchmarkNodeHeartbeat(b *testing.B) {
	h := newHarness(b, Config{})
	for i := range 100 {
		h.cache(testDS("ns", fmt.Sprintf("ds-%03d", i), func(ds *appsv1.DaemonSet) {
			if i%2 == 0 {
				ds.Spec.Template.Spec.NodeSelector = map[string]string{"pool": "a"}
			}
		}))
	}
	old := testNode("n1", map[string]string{"pool": "a"})
	cur := old.DeepCopy()
	cur.ResourceVersion = "2"
	cur.Status.Conditions[0].LastHeartbeatTime = metav1.Now()
	h.c.updateNode(old, cur) // compile the placement checks
	b.ReportAllocs()
	for b.Loop() {
		h.c.updateNode(old, cur)
	}
	if h.c.queue.Len() != 0 {
		b.Fatalf("a heartbeat enqueued %d DaemonSets", h.c.queue.Len())
	}
}

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
				h := newHarness(b, Config{})
				h.c.logger = klog.Logger{} // discards: the log line costs more than a plan
				h.clock.SetTime(cl.Now)
				h.cache(cl.DaemonSet)
				for _, o := range cl.Nodes {
					h.cache(o)
				}
				for _, o := range cl.Pods {
					h.cache(o)
				}
				for _, o := range cl.Revisions {
					h.cache(o)
				}
				if pool == "none" {
					h.c.planners = nil
				}
				key := dsKey(cl.DaemonSet)
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					if err := h.c.sync(ctx, key); err != nil {
						b.Fatal(err)
					}
				}
				if w := h.writes(); len(w) > 0 {
					b.Fatalf("a settled sync wrote %v", w)
				}
			})
		}
	}
}
