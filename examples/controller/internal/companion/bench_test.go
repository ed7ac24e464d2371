package companion

import (
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// BenchmarkJudge is what one companion sync spends to know where a
// settled rollout stands on clusters of 1,000 and 5,000 nodes: one plan
// with its standing, judged by progressive.Judge. (Paired on 2026-11-27
// with what it did before, a second plan by daemon.RolloutComplete, since
// removed from the library: BENCHMARKS.md.)
func BenchmarkJudge(b *testing.B) {
	for _, n := range []int{1000, 5000} {
		ds := daemontest.DaemonSet("agent")
		ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
		ds.Annotations = map[string]string{progressive.AnnotationMaxUnavailable: "2"}
		cl := daemontest.SteadyCluster(ds, n)
		ro, err := progressive.ForDaemonSet(cl.DaemonSet)
		if err != nil {
			b.Fatal(err)
		}
		opts := ro.Options(daemon.Options{Now: cl.Now, Revisions: cl.Revisions})
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			planner := daemon.NewPlanner()
			b.ReportAllocs()
			for b.Loop() {
				plan, err := planner.Compute(ro.DaemonSet, cl.Nodes, cl.Pods, opts)
				if err != nil {
					b.Fatal(err)
				}
				if j, err := progressive.Judge(ro.DaemonSet, &plan); err != nil || !j.Complete {
					b.Fatalf("judge: %+v, %v", j.Reason, err)
				}
			}
		})
	}
}
