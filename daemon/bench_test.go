package daemon_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
)

// fleetState is the state of a benchmark fleet.
type fleetState string

const (
	steady       fleetState = "steady"  // one current, ready pod per node
	fresh        fleetState = "fresh"   // no pods yet
	rolloutStart fleetState = "rollout" // one old available pod per node, maxUnavailable 10%
	surgeRollout fleetState = "surge"   // one old available pod per node, maxSurge 10%
)

// fleet builds n nodes and the DaemonSet of placementFixture, with pods as
// state says and the ControllerRevisions the controller would have recorded,
// nodes and pods in a shuffled order.
func fleet(n int, state fleetState) (*appsv1.DaemonSet, []*corev1.Node, []*corev1.Pod, []*appsv1.ControllerRevision) {
	opts := dt.PlacementOptions()
	switch state {
	case rolloutStart:
		opts = append(opts, dt.WithMaxUnavailable("10%"))
	case surgeRollout:
		opts = append(opts, dt.WithMaxUnavailable("0"), dt.WithMaxSurge("10%"))
	}
	oldDS := dt.DaemonSet("agent", opts...)
	ds := oldDS
	if state == rolloutStart || state == surgeRollout {
		ds = dt.DaemonSet("agent", append(opts, dt.WithImage("registry.example/agent:v2"))...)
	}
	revisions := []*appsv1.ControllerRevision{dt.Revision(oldDS, 1)}
	if ds != oldDS {
		revisions = append(revisions, dt.Revision(ds, 2))
	}
	for i, r := range revisions {
		r.ResourceVersion = fmt.Sprint(10 + i)
	}

	nodes := make([]*corev1.Node, n)
	var pods []*corev1.Pod
	proto := dt.Pod(oldDS, "proto", "proto") // hashing once, not per pod
	for i := range n {
		name := fmt.Sprintf("node-%05d", i)
		nodes[i] = dt.PlacementNode(name, i)
		nodes[i].ResourceVersion = fmt.Sprint(1000 + i) // as an informer's objects have
		if state == fresh {
			continue
		}
		p := proto.DeepCopy()
		p.Name, p.UID, p.Spec.NodeName = fmt.Sprintf("agent-%05d", i), types.UID(fmt.Sprintf("pod-%05d", i)), name
		p.ResourceVersion = fmt.Sprint(100000 + i)
		pods = append(pods, p)
	}
	// An informer's lister returns objects in no particular order; so does
	// the fixture, the same way every run.
	r := rand.New(rand.NewPCG(uint64(n), 1))
	r.Shuffle(len(nodes), func(i, j int) { nodes[i], nodes[j] = nodes[j], nodes[i] })
	r.Shuffle(len(pods), func(i, j int) { pods[i], pods[j] = pods[j], pods[i] })
	return ds, nodes, pods, revisions
}

// benchFleet is one fleet, ready to plan.
type benchFleet struct {
	ds    *appsv1.DaemonSet
	nodes []*corev1.Node
	pods  []*corev1.Pod
	opts  daemon.Options
}

// newBenchFleet is fleet(n, state), ready to plan.
func newBenchFleet(n int, state fleetState) benchFleet {
	ds, nodes, pods, revs := fleet(n, state)
	return benchFleet{ds: ds, nodes: nodes, pods: pods, opts: daemon.Options{Now: dt.Epoch.Add(time.Minute), Revisions: revs}}
}

// planFunc plans one fleet the way a caller of the package would.
type planFunc func(f *benchFleet) error

// callCompute calls Compute for every plan.
func callCompute() planFunc {
	return func(f *benchFleet) error {
		_, err := daemon.Compute(f.ds, f.nodes, f.pods, f.opts)
		return err
	}
}

// callPlanner plans through one Planner kept between plans, as a
// controller's worker would.
func callPlanner() planFunc {
	p := daemon.NewPlanner()
	return func(f *benchFleet) error {
		_, err := p.Compute(f.ds, f.nodes, f.pods, f.opts)
		return err
	}
}

// runPlans times plan on fleets in turn, one per iteration. It plans the
// first fleet once before the timed loop, so that a Planner starts warm.
func runPlans(b *testing.B, fleets []benchFleet, plan planFunc) {
	if err := plan(&fleets[0]); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	// Collect what building fixtures (these and earlier sub-benchmarks')
	// left behind now, so that no collection of it falls in the timed loop.
	runtime.GC()
	i := 1
	for b.Loop() {
		if err := plan(&fleets[i%len(fleets)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// benchmarkFleets times call on fleets of 1k to 50k nodes in four states,
// each fleet planned again and again (its objects stay in cache as far as
// they fit); 5k is there for the linearity ratio (50k/5k) BENCHMARKS.md
// reports. Each fixture is built before the timed loop, and only for the
// sub-benchmarks -bench selects.
func benchmarkFleets(b *testing.B, call func() planFunc) {
	for _, state := range []fleetState{steady, fresh, rolloutStart, surgeRollout} {
		for _, n := range []int{1_000, 5_000, 10_000, 50_000} {
			b.Run(fmt.Sprintf("state=%s/nodes=%d", state, n), func(b *testing.B) {
				runPlans(b, []benchFleet{newBenchFleet(n, state)}, call())
			})
		}
	}
}

// BenchmarkCompute plans one sync of each fleet with Compute.
func BenchmarkCompute(b *testing.B) { benchmarkFleets(b, callCompute) }

// BenchmarkPlanner is BenchmarkCompute through a warm Planner: one Planner
// per fleet, which has planned it once before the timed loop.
func BenchmarkPlanner(b *testing.B) { benchmarkFleets(b, callPlanner) }

// BenchmarkPlannerStanding is BenchmarkPlanner with Options.ReportStanding:
// what the standing costs a caller that asks for it (one per-node slice and
// one per-pod slice pair, copied out of the Planner's memory).
func BenchmarkPlannerStanding(b *testing.B) {
	for _, state := range []fleetState{steady, rolloutStart} {
		b.Run(fmt.Sprintf("state=%s/nodes=10000", state), func(b *testing.B) {
			f := newBenchFleet(10_000, state)
			f.opts.ReportStanding = true
			runPlans(b, []benchFleet{f}, callPlanner())
		})
	}
}
