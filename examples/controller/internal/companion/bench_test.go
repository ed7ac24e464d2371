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
// settled rollout stands on clusters of 1,000 and 5,000 nodes:
// judge=readout is what it does (one plan with its read-out, judged by
// progressive.Judge); judge=second-plan what it did before (one plan, then
// daemon.RolloutComplete, which computes a second; the progress count
// that walked the pods a third time is not included). Both in one run, so
// that the machine's noise hits both alike (BENCHMARKS.md).
func BenchmarkJudge(b *testing.B) {
	for _, n := range []int{1000, 5000} {
		ds := daemontest.DaemonSet("agent")
		ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
		ds.Annotations = map[string]string{daemon.AnnotationMaxUnavailable: "2"}
		cl := daemontest.SteadyCluster(ds, n)
		ro, err := progressive.ForDaemonSet(cl.DaemonSet)
		if err != nil {
			b.Fatal(err)
		}
		opts := daemon.Options{Now: cl.Now, Revisions: cl.Revisions}
		for _, variant := range []string{"readout", "second-plan"} {
			b.Run(fmt.Sprintf("nodes=%d/judge=%s", n, variant), func(b *testing.B) {
				planner := daemon.NewPlanner()
				b.ReportAllocs()
				for b.Loop() {
					switch variant {
					case "readout":
						plan, err := planner.Compute(ro.DaemonSet, cl.Nodes, cl.Pods, ro.Options(opts))
						if err != nil {
							b.Fatal(err)
						}
						if j, err := progressive.Judge(ro.DaemonSet, &plan); err != nil || !j.Complete {
							b.Fatalf("judge: %+v, %v", j.Reason, err)
						}
					default:
						o := opts
						o.Rollout = ro.Policy
						if _, err := planner.Compute(ro.DaemonSet, cl.Nodes, cl.Pods, o); err != nil {
							b.Fatal(err)
						}
						if complete, _, err := daemon.RolloutComplete(ro.DaemonSet, cl.Nodes, cl.Pods, o); err != nil || !complete {
							b.Fatalf("RolloutComplete: %v, %v", complete, err)
						}
					}
				}
			})
		}
	}
}
