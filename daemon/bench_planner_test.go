package daemon_test

import (
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
)

// BenchmarkPlannerChanges times a warm Planner at 10,000 nodes where the
// objects change between calls, as they do between two syncs:
//   - node: one node relabelled (a new object, a new resourceVersion)
//     since the last call, a different one each time, with a label no
//     selector reads: the plan is the last one;
//   - taint: the same with a taint the DaemonSet does not tolerate: the
//     node's verdict, and so the plan, changes;
//   - template: the template changed since the last call (every
//     iteration flips between the steady template and the next one, so
//     every pod's state is judged again from its facts);
//   - reorder: the same objects in another order (a lister's map order),
//     so every lookup goes through the index.
func BenchmarkPlannerChanges(b *testing.B) {
	b.Run("change=node/nodes=10000", func(b *testing.B) {
		runPlans(b, oneNodeChanged(newBenchFleet(10_000, steady), func(n *corev1.Node) {
			n.Labels["example.com/relabelled"] = "true"
		}), callPlanner())
	})
	b.Run("change=taint/nodes=10000", func(b *testing.B) {
		runPlans(b, oneNodeChanged(newBenchFleet(10_000, steady), func(n *corev1.Node) {
			n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: "example.com/drain", Effect: corev1.TaintEffectNoSchedule})
		}), callPlanner())
	})
	b.Run("change=template/nodes=10000", func(b *testing.B) {
		s, r := newBenchFleet(10_000, steady), newBenchFleet(10_000, rolloutStart)
		r.nodes, r.pods = s.nodes, s.pods // the same objects, the next template
		r.opts.Revisions = append(slices.Clone(s.opts.Revisions), r.opts.Revisions[len(r.opts.Revisions)-1])
		s.opts.Revisions = r.opts.Revisions
		runPlans(b, []benchFleet{s, r}, callPlanner())
	})
	b.Run("change=reorder/nodes=10000", func(b *testing.B) {
		f := newBenchFleet(10_000, steady)
		g := f
		g.nodes, g.pods = slices.Clone(f.nodes), slices.Clone(f.pods)
		slices.Reverse(g.nodes)
		slices.Reverse(g.pods)
		runPlans(b, []benchFleet{f, g}, callPlanner())
	})
}

// BenchmarkPlannerCold times the first call of a new Planner, beside
// BenchmarkCompute's figure for the same fleet.
func BenchmarkPlannerCold(b *testing.B) {
	for _, state := range []fleetState{steady, rolloutStart} {
		b.Run("state="+string(state)+"/nodes=10000", func(b *testing.B) {
			f := newBenchFleet(10_000, state)
			runPlans(b, []benchFleet{f}, func(f *benchFleet) error {
				_, err := daemon.NewPlanner().Compute(f.ds, f.nodes, f.pods, f.opts)
				return err
			})
		})
	}
}

// floorSink keeps the floor's reads from being optimised away.
var floorSink int

// BenchmarkIdentityFloor is the least any plan must read, at 10,000 nodes: one
// pass over the inputs reading each node's and pod's identity (pointer,
// name, resourceVersion) and each pod's node and revision hash. A plan's
// cost is reported as a multiple of it (BENCHMARKS.md).
func BenchmarkIdentityFloor(b *testing.B) {
	for _, state := range []fleetState{steady, rolloutStart} {
		b.Run("state="+string(state)+"/nodes=10000", func(b *testing.B) {
			f := newBenchFleet(10_000, state)
			b.ReportAllocs()
			for b.Loop() {
				floorSink += readIdentities(f.nodes, f.pods)
			}
		})
	}
}

func readIdentities(nodes []*corev1.Node, pods []*corev1.Pod) int {
	n := 0
	for _, node := range nodes {
		n += len(node.Name) + len(node.ResourceVersion)
	}
	for _, pod := range pods {
		n += len(pod.Name) + len(pod.ResourceVersion) + len(pod.Spec.NodeName) + len(pod.Labels[appsv1.ControllerRevisionHashLabelKey])
	}
	return n
}

// BenchmarkRecognitionFloor is the least recognising unchanged objects
// takes, at 10,000 nodes: one pass reading each node's and pod's
// resourceVersion (a Planner that reuses its last plan reads no more).
// BenchmarkIdentityFloor, the floor, reads each pod's node and
// revision hash too, which a plan of unchanged objects already knows.
func BenchmarkRecognitionFloor(b *testing.B) {
	f := newBenchFleet(10_000, steady)
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for _, node := range f.nodes {
			n += len(node.ResourceVersion)
		}
		for _, pod := range f.pods {
			n += len(pod.ResourceVersion)
		}
		floorSink += n
	}
}

// oneNodeChanged returns 16 variants of f, each with one node (a different
// one each) replaced by a changed copy with a new resourceVersion, as an
// informer hands an update.
func oneNodeChanged(f benchFleet, change func(*corev1.Node)) []benchFleet {
	fleets := make([]benchFleet, 16)
	for i := range fleets {
		g := f
		g.nodes = slices.Clone(f.nodes)
		k := i * 613 % len(g.nodes)
		n := g.nodes[k].DeepCopy()
		change(n)
		n.ResourceVersion += "-1"
		g.nodes[k] = n
		fleets[i] = g
	}
	return fleets
}
