package daemon_test

import (
	"fmt"
	"math/rand/v2"
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
	opts := placementOptions()
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

	nodes := make([]*corev1.Node, n)
	var pods []*corev1.Pod
	proto := dt.Pod(oldDS, "proto", "proto") // hashing once, not per pod
	for i := range n {
		name := fmt.Sprintf("node-%05d", i)
		nodes[i] = placementNode(name, i)
		if state == fresh {
			continue
		}
		p := proto.DeepCopy()
		p.Name, p.UID, p.Spec.NodeName = fmt.Sprintf("agent-%05d", i), types.UID(fmt.Sprintf("pod-%05d", i)), name
		pods = append(pods, p)
	}
	// An informer's lister returns objects in no particular order; so does
	// the fixture, the same way every run.
	r := rand.New(rand.NewPCG(uint64(n), 1))
	r.Shuffle(len(nodes), func(i, j int) { nodes[i], nodes[j] = nodes[j], nodes[i] })
	r.Shuffle(len(pods), func(i, j int) { pods[i], pods[j] = pods[j], pods[i] })
	return ds, nodes, pods, revisions
}

// BenchmarkCompute plans one sync of fleets of 1k to 50k nodes in four
// states; 5k is there for the linearity ratio (50k/5k) BENCHMARKS.md reports.
// The fixtures are built before the timed loop.
func BenchmarkCompute(b *testing.B) {
	for _, state := range []fleetState{steady, fresh, rolloutStart, surgeRollout} {
		for _, n := range []int{1_000, 5_000, 10_000, 50_000} {
			ds, nodes, pods, revs := fleet(n, state)
			opts := daemon.Options{Now: dt.Epoch.Add(time.Minute), Revisions: revs}
			b.Run(fmt.Sprintf("state=%s/nodes=%d", state, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := daemon.Compute(ds, nodes, pods, opts); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkPlanner is BenchmarkCompute through a warm Planner: one Planner
// per fleet, which has planned it once before the timed loop, as a
// controller's worker would have.
func BenchmarkPlanner(b *testing.B) {
	for _, state := range []fleetState{steady, fresh, rolloutStart, surgeRollout} {
		for _, n := range []int{1_000, 5_000, 10_000, 50_000} {
			ds, nodes, pods, revs := fleet(n, state)
			opts := daemon.Options{Now: dt.Epoch.Add(time.Minute), Revisions: revs}
			b.Run(fmt.Sprintf("state=%s/nodes=%d", state, n), func(b *testing.B) {
				p := daemon.NewPlanner()
				if _, err := p.Compute(ds, nodes, pods, opts); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					if _, err := p.Compute(ds, nodes, pods, opts); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
