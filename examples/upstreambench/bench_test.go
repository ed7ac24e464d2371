package upstreambench

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	upstreamdaemon "k8s.io/kubernetes/pkg/controller/daemon"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/eligibility"
)

// Implementations, the last element of every benchmark name (benchstat
// -col /impl puts them side by side). bench.sh renames the lines of
// upstream's own BenchmarkUpdateDaemonSetStatus to BenchmarkStatusShape
// with impl=upstream-1.37.2.
const (
	implCompute = "compute"
	implPlanner = "planner"
	// implNodeChanged is a warm Planner where one node changed (a new
	// object, a new resourceVersion) since its last plan, a different node
	// each time.
	implNodeChanged = "planner-node-changed"
	// implNodeTainted is implNodeChanged where the change is a taint the
	// DaemonSet does not tolerate: the node's verdict changes, and so does
	// the plan.
	implNodeTainted = "planner-node-tainted"
	implEligibility = "eligibility"
)

// upstreamVersion is the k8s.io/kubernetes release this module builds
// against (go.mod; TestUpstreamVersion keeps the two equal). bench.sh sets
// it with -ldflags -X when it builds the harness against another release.
var upstreamVersion = "1.37.2"

// implUpstream names upstream's rows by that release: "upstream-1.37.2".
func implUpstream() string { return "upstream-" + upstreamVersion }

// planFunc plans one cluster the way a caller of daemonplan would.
type planFunc func(c *cluster) error

// callCompute calls daemon.Compute for every plan.
func callCompute() planFunc {
	return func(c *cluster) error {
		_, err := daemon.Compute(c.ds, c.nodes, c.pods, c.options())
		return err
	}
}

// callPlanner plans through one daemon.Planner kept between plans, as a
// controller's worker would.
func callPlanner() planFunc {
	p := daemon.NewPlanner()
	return func(c *cluster) error {
		_, err := p.Compute(c.ds, c.nodes, c.pods, c.options())
		return err
	}
}

// callEligibility is the per-node placement check alone, the part of a
// plan that upstream's status loop is: the DaemonSet's check compiled once,
// then every node judged, the nodes that should run a pod counted (so that
// the loop's result is used).
func callEligibility() planFunc {
	return func(c *cluster) error {
		e := eligibility.New(c.ds, false)
		desired := 0
		for _, n := range c.nodes {
			if shouldRun, _ := e.ShouldRun(n); shouldRun {
				desired++
			}
		}
		if desired > len(c.nodes) {
			return fmt.Errorf("%d desired of %d nodes", desired, len(c.nodes))
		}
		return nil
	}
}

// runPlans times plan on c. It plans c once before the timed loop, so that
// a Planner starts warm, and collects what building fixtures left behind.
func runPlans(b *testing.B, c *cluster, plan planFunc) {
	if err := plan(c); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	runtime.GC()
	for b.Loop() {
		if err := plan(c); err != nil {
			b.Fatal(err)
		}
	}
}

// runNodeChanges times a warm Planner over c where, at every plan, one
// node differs from the last plan's: 16 variants of c, each with one node
// changed by change (a new object, a new resourceVersion), planned in turn.
func runNodeChanges(b *testing.B, c *cluster, change func(*corev1.Node)) {
	variants := make([]cluster, 16)
	for i := range variants {
		v := *c
		v.nodes = slices.Clone(c.nodes)
		k := i * 613 % len(v.nodes)
		n := v.nodes[k].DeepCopy()
		change(n)
		n.ResourceVersion += "-1"
		v.nodes[k] = n
		variants[i] = v
	}
	plan := callPlanner()
	if err := plan(&variants[0]); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	runtime.GC()
	i := 1
	for b.Loop() {
		if err := plan(&variants[i%len(variants)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// relabel gives n a label no DaemonSet reads.
func relabel(n *corev1.Node) {
	if n.Labels == nil {
		n.Labels = map[string]string{}
	}
	n.Labels["example.com/relabelled"] = "true"
}

// taint gives n a NoSchedule taint the DaemonSet does not tolerate: it
// should no longer run a pod there, and may keep the one it has.
func taint(n *corev1.Node) {
	n.Spec.Taints = append(slices.Clone(n.Spec.Taints), corev1.Taint{Key: "example.com/drain", Effect: corev1.TaintEffectNoSchedule})
}

// BenchmarkStatusShape plans the clusters of upstream's
// BenchmarkUpdateDaemonSetStatus (see statusShape) with daemonplan: a whole
// plan (Compute, and a warm Planner: both also plan the 250 creates and
// the revision these pod-less clusters call for, which upstream's status
// loop does not) and the placement check alone (eligibility.Check), the
// like-for-like of upstream's loop.
func BenchmarkStatusShape(b *testing.B) {
	for _, affinity := range []string{"no-affinity", "exclusion-affinity"} {
		for _, n := range []int{1_000, 10_000} {
			var c *cluster
			get := func() *cluster {
				if c == nil {
					s := statusShape(n, affinity == "exclusion-affinity")
					c = &s
				}
				return c
			}
			for _, impl := range []struct {
				name string
				call func() planFunc
			}{{implCompute, callCompute}, {implPlanner, callPlanner}, {implEligibility, callEligibility}} {
				b.Run(fmt.Sprintf("affinity=%s/nodes=%d/impl=%s", affinity, n, impl.name), func(b *testing.B) {
					runPlans(b, get(), impl.call())
				})
			}
		}
	}
}

// BenchmarkSync times one whole sync of a 10,000-node fleet (see
// syncFleet) by upstream's controller and by daemonplan, on the same
// objects: those upstream's informers hold. Each state's controller runs
// (idle between its syncs) while daemonplan's sub-benchmarks of that state
// run, so both are timed beside the same live heap.
func BenchmarkSync(b *testing.B) {
	const n = 10_000
	for _, state := range []syncState{steady, rollout, exclusion, plain} {
		var u *upstream
		get := func(b *testing.B) *upstream {
			if u == nil {
				c, err := syncFleet(n, state)
				if err != nil {
					b.Fatal(err)
				}
				if u, err = startUpstream(c); err != nil {
					b.Fatal(err)
				}
			}
			return u
		}
		name := func(impl string) string { return fmt.Sprintf("state=%s/nodes=%d/impl=%s", state, n, impl) }
		b.Run(name(implUpstream()), func(b *testing.B) { benchUpstream(b, get(b)) })
		b.Run(name(implCompute), func(b *testing.B) { runPlans(b, &get(b).listed, callCompute()) })
		b.Run(name(implPlanner), func(b *testing.B) { runPlans(b, &get(b).listed, callPlanner()) })
		b.Run(name(implNodeChanged), func(b *testing.B) { runNodeChanges(b, &get(b).listed, relabel) })
		b.Run(name(implNodeTainted), func(b *testing.B) { runNodeChanges(b, &get(b).listed, taint) })
		if u != nil {
			u.stop()
			u = nil
		}
		runtime.GC()
	}
}

// benchUpstream times syncs of upstream's controller. ns/op, B/op and
// allocs/op are the syncs' own (see syncProbe); iter-ns/op, iter-B/op and
// iter-allocs/op are whole iterations, the trigger and its way through the
// informer to the work queue included.
func benchUpstream(b *testing.B, u *upstream) {
	ctx := context.Background()
	if _, err := u.sync(ctx); err != nil { // a first sync outside the timed loop
		b.Fatal(err)
	}
	runtime.GC()
	var total syncCost
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	start, syncs := time.Now(), 0
	for b.Loop() {
		c, err := u.sync(ctx)
		if err != nil {
			b.Fatal(err)
		}
		total.add(c)
		syncs++
	}
	wall := time.Since(start)
	runtime.ReadMemStats(&m1)
	if d := u.probe.dropped.Load(); d > 0 {
		b.Fatalf("%d syncs not measured", d)
	}
	per := func(v float64) float64 { return v / float64(syncs) }
	b.ReportMetric(per(float64(total.took.Nanoseconds())), "ns/op")
	b.ReportMetric(per(float64(total.bytes)), "B/op")
	b.ReportMetric(per(float64(total.allocs)), "allocs/op")
	b.ReportMetric(per(float64(wall.Nanoseconds())), "iter-ns/op")
	b.ReportMetric(per(float64(m1.TotalAlloc-m0.TotalAlloc)), "iter-B/op")
	b.ReportMetric(per(float64(m1.Mallocs-m0.Mallocs)), "iter-allocs/op")
}

// BenchmarkPlacementCheck asks whether one node should run the DaemonSet
// (daemontest's placement fixture: a nodeSelector, a two-term required
// affinity, three tolerations; a node with ten labels and two taints):
// upstream's exported NodeShouldRunDaemonPod, which builds the daemon
// tolerations and parses the affinity at every call; daemonplan's one-shot
// daemon.NodeShouldRunDaemonPod; and its compiled eligibility.Check.ShouldRun.
func BenchmarkPlacementCheck(b *testing.B) {
	ds, node := dt.DaemonSet("agent", dt.PlacementOptions()...), dt.PlacementNode("node-00001", 1)
	logger := klog.NewKlogr().V(0)
	b.Run("impl="+implUpstream(), func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			upstreamdaemon.NodeShouldRunDaemonPod(logger, node, ds)
		}
	})
	b.Run("impl=oneshot", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			daemon.NodeShouldRunDaemonPod(node, ds)
		}
	})
	b.Run("impl="+implEligibility, func(b *testing.B) {
		e := eligibility.New(ds, false)
		b.ReportAllocs()
		for b.Loop() {
			e.ShouldRun(node)
		}
	})
}
