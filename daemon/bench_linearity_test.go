package daemon_test

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// BenchmarkLinearity measures the 50k/5k time ratio BENCHMARKS.md reports,
// with both sizes planned in turn in one run: each iteration plans each of
// ten distinct 5,000-node fleets once, then one 50,000-node fleet once, and
// the benchmark reports the mean time of a plan of each size and their
// ratio. Both sizes then see the same machine from moment to moment (a
// slower minute slows both), and both start cold: the fleets planned in
// between hold more memory than the CPU caches, as a controller's informer
// cache does between two syncs of one DaemonSet. Each size is planned
// through its own Planner, as two controllers, one per cluster, would.
// Its ns/op is the time of a whole iteration and means little.
func BenchmarkLinearity(b *testing.B) {
	calls := []struct {
		name string
		new  func() planFunc
	}{
		{"Compute", callCompute}, {"Planner", callPlanner},
		{"ReadFloor", callReadFloor(readFloor)}, {"ReadFloorBatched", callReadFloor(readFloorBatched)},
	}
	for _, state := range []fleetState{steady, rolloutStart} {
		smallPool, largePool := lazyPool(5_000, state), lazyPool(50_000, state)
		for _, call := range calls {
			if state != steady && strings.HasPrefix(call.name, "ReadFloor") {
				continue // the floor reads the same fields in every state
			}
			b.Run(fmt.Sprintf("call=%s/state=%s", call.name, state), func(b *testing.B) {
				small, large := smallPool(), &largePool()[0]
				// Each size has its own planFunc (for the Planner, its own
				// Planner, warmed on a fleet of its size), so that a 5k plan
				// does not work in memory sized for 50k.
				planSmall, planLarge := call.new(), call.new()
				for _, warm := range []struct {
					plan planFunc
					f    *benchFleet
				}{{planLarge, large}, {planSmall, &small[0]}} {
					if err := warm.plan(warm.f); err != nil {
						b.Fatal(err)
					}
				}
				timed := func(plan planFunc, f *benchFleet) time.Duration {
					start := time.Now()
					if err := plan(f); err != nil {
						b.Fatal(err)
					}
					return time.Since(start)
				}
				runtime.GC() // as runPlans does
				var smallTime, largeTime time.Duration
				var smallPlans, largePlans int
				for b.Loop() {
					for i := range small {
						smallTime += timed(planSmall, &small[i])
						smallPlans++
					}
					largeTime += timed(planLarge, large)
					largePlans++
				}
				perSmall := float64(smallTime.Nanoseconds()) / float64(smallPlans)
				perLarge := float64(largeTime.Nanoseconds()) / float64(largePlans)
				b.ReportMetric(perSmall/1e6, "ms/plan-5k")
				b.ReportMetric(perLarge/1e6, "ms/plan-50k")
				b.ReportMetric(perLarge/perSmall, "ratio-50k/5k")
			})
		}
	}
}

// callReadFloor returns a planFunc that only reads, with read (readFloor or
// readFloorBatched): the reference for the plans' ratio.
func callReadFloor(read func([]*corev1.Node, []*corev1.Pod) int) func() planFunc {
	return func() planFunc {
		return func(f *benchFleet) error {
			if read(f.nodes, f.pods) == 0 {
				return errors.New("read nothing")
			}
			return nil
		}
	}
}
