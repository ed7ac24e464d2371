package daemon_test

import (
	"fmt"
	"runtime"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// poolNodes is how many nodes' worth of objects a cold benchmark plans
// from at every fleet size: far more than the CPU caches hold, so that no
// size finds its fleet in cache from the plan before, as a controller
// whose informer caches are not touched between syncs would not.
const poolNodes = 50_000

// coldPool builds distinct fleets of n nodes in state, poolNodes nodes in
// all (at least one fleet).
func coldPool(n int, state fleetState) []benchFleet {
	out := make([]benchFleet, max(1, poolNodes/n))
	for i := range out {
		out[i] = newBenchFleet(n, state)
	}
	return out
}

// lazyPool returns a function that builds coldPool(n, state) on its first
// call and returns the same pool after, so that sub-benchmarks sharing a
// pool build it only when -bench selects one of them.
func lazyPool(n int, state fleetState) func() []benchFleet {
	var pool []benchFleet
	return func() []benchFleet {
		if pool == nil {
			pool = coldPool(n, state)
		}
		return pool
	}
}

// BenchmarkComputeCold is BenchmarkCompute and BenchmarkPlanner with cold
// caches: each iteration plans the next fleet of a pool of poolNodes
// nodes, so that the 5k fleet is as far from the CPU as the 50k one. It is
// the measure of linearity BENCHMARKS.md reports next to the cache-hot one,
// where a 5k fleet stays in the last-level cache between iterations and a
// 50k fleet cannot.
func BenchmarkComputeCold(b *testing.B) {
	for _, state := range []fleetState{steady, rolloutStart} {
		for _, n := range []int{1_000, 5_000, 10_000, 50_000} {
			fleets := lazyPool(n, state)
			for _, call := range []struct {
				name string
				new  func() planFunc
			}{{"Compute", callCompute}, {"Planner", callPlanner}} {
				b.Run(fmt.Sprintf("call=%s/state=%s/nodes=%d", call.name, state, n), func(b *testing.B) {
					runPlans(b, fleets(), call.new())
				})
			}
		}
	}
}

// BenchmarkReadFloor reads, of every node and pod of a steady fleet, only
// fields any plan has to read (a node's name, three labels and its taints;
// a pod's name, two labels, its owner, node name, phase and conditions) and
// does nothing else, in one pass without reading ahead. It is a reference
// for BenchmarkCompute, not a strict lower bound: with hot caches its
// 50k/5k time ratio is the memory hierarchy's, not an algorithm's.
func BenchmarkReadFloor(b *testing.B) {
	for _, cache := range []string{"hot", "cold"} {
		for _, n := range []int{5_000, 50_000} {
			b.Run(fmt.Sprintf("cache=%s/nodes=%d", cache, n), func(b *testing.B) {
				fleets := []benchFleet{newBenchFleet(n, steady)}
				if cache == "cold" {
					fleets = coldPool(n, steady)
				}
				runtime.GC() // as runPlans does
				sum, i := 0, 0
				for b.Loop() {
					f := &fleets[i%len(fleets)]
					i++
					sum += readFloor(f.nodes, f.pods)
				}
				if sum == 0 {
					b.Fatal("read nothing")
				}
			})
		}
	}
}

func readFloor(nodes []*corev1.Node, pods []*corev1.Pod) int {
	sum := 0
	for _, n := range nodes {
		sum += len(n.Name) + len(n.Labels["kubernetes.io/os"]) + len(n.Labels["pool"]) +
			len(n.Labels["topology.kubernetes.io/zone"]) + len(n.Spec.Taints)
	}
	for _, p := range pods {
		sum += len(p.Name) + len(p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]) + len(p.Labels["app"]) +
			len(p.OwnerReferences) + len(p.Spec.NodeName) + len(p.Status.Phase) + len(p.Status.Conditions)
	}
	return sum
}

// readFloorBatched reads what readFloor reads, the way the plan's passes
// read (see package daemon/internal/readahead): eight objects at a time, one link of
// each object's chain of reads at a time, so that the reads of a link are
// served together. It is the floor for a plan that reads its inputs that
// way.
func readFloorBatched(nodes []*corev1.Node, pods []*corev1.Pod) int {
	const batch = 8
	sum := 0
	for start := 0; start < len(nodes); start += batch {
		b := nodes[start:min(start+batch, len(nodes))]
		for _, n := range b {
			sum += len(n.Name) + len(n.Spec.Taints)
		}
		for _, n := range b {
			sum += len(n.Labels) + int(n.Name[0])
			if len(n.Spec.Taints) > 0 {
				sum += len(n.Spec.Taints[0].Key)
			}
		}
		for _, n := range b {
			sum += len(n.Labels["kubernetes.io/os"]) + len(n.Labels["pool"]) + len(n.Labels["topology.kubernetes.io/zone"])
		}
	}
	for start := 0; start < len(pods); start += batch {
		b := pods[start:min(start+batch, len(pods))]
		for _, p := range b {
			sum += len(p.Name) + len(p.Spec.NodeName) + len(p.Status.Phase) + len(p.Status.Conditions) + len(p.OwnerReferences)
		}
		for _, p := range b {
			sum += len(p.Labels) + int(p.Name[0]) + int(p.Spec.NodeName[0])
			if len(p.Status.Conditions) > 0 {
				sum += len(p.Status.Conditions[0].Type)
			}
			if len(p.OwnerReferences) > 0 {
				sum += len(p.OwnerReferences[0].UID)
			}
		}
		for _, p := range b {
			sum += len(p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]) + len(p.Labels["app"])
		}
	}
	return sum
}
