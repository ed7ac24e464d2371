package daemon_test

import (
	"errors"
	"fmt"
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
// cache does between two syncs of one DaemonSet. Its ns/op is the time of
// a whole iteration and means little.
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
				plan := call.new()
				for _, f := range []*benchFleet{large, &small[0]} {
					if err := plan(f); err != nil { // a Planner starts warm
						b.Fatal(err)
					}
				}
				timed := func(f *benchFleet) time.Duration {
					start := time.Now()
					if err := plan(f); err != nil {
						b.Fatal(err)
					}
					return time.Since(start)
				}
				var smallTime, largeTime time.Duration
				var smallPlans, largePlans int
				for b.Loop() {
					for i := range small {
						smallTime += timed(&small[i])
						smallPlans++
					}
					largeTime += timed(large)
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
