package eligibility_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/affinity"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/eligibility"
	"github.com/daemonplan/daemonplan/tolerations"
)

// placementFixture is the performance issue's fixture: its DaemonSet and
// one node it may run on.
func placementFixture() (*appsv1.DaemonSet, *corev1.Node) {
	return dt.DaemonSet("agent", dt.PlacementOptions()...), dt.PlacementNode("node-00001", 1)
}

func TestEligibilityExplain(t *testing.T) {
	ds, fits := placementFixture()
	named := ds.DeepCopy()
	named.Spec.Template.Spec.NodeName = "elsewhere"
	gpu := dt.DaemonSet("agent", func(d *appsv1.DaemonSet) {
		d.Spec.Template.Spec.Tolerations = []corev1.Toleration{{Key: "gpu", Operator: corev1.TolerationOpEqual, Value: "5", Effect: corev1.TaintEffectNoSchedule}}
	})
	gt := dt.DaemonSet("agent", func(d *appsv1.DaemonSet) {
		d.Spec.Template.Spec.Tolerations = []corev1.Toleration{{Key: "gpu", Operator: corev1.TolerationOpGt, Value: "3", Effect: corev1.TaintEffectNoSchedule}}
	})
	gpuNode := dt.Node("g", dt.WithTaint("gpu", "5", corev1.TaintEffectNoSchedule))

	tests := []struct {
		name       string
		ds         *appsv1.DaemonSet
		node       *corev1.Node
		comparison bool
		want       eligibility.Verdict
	}{
		{name: "a node that fits", ds: ds, node: fits, want: eligibility.Verdict{ShouldRun: true, ShouldContinueRunning: true}},
		{name: "a nil node", ds: ds, node: nil, want: eligibility.Verdict{Reason: eligibility.IneligibleNilNode}},
		{name: "a nil DaemonSet admits no node", ds: nil, node: fits, want: eligibility.Verdict{Reason: eligibility.IneligibleNilNode}},
		{name: "the template names another node", ds: named, node: fits, want: eligibility.Verdict{Reason: eligibility.IneligibleNodeName, NodeName: "elsewhere"}},
		{
			name: "the nodeSelector does not match", ds: ds, node: dt.Node("plain"),
			want: eligibility.Verdict{Reason: eligibility.IneligibleNodeAffinity, Affinity: affinity.Mismatch{NodeSelector: true, NodeSelectorKey: "kubernetes.io/os"}},
		},
		{
			name: "no affinity term matches: each term's failing requirement is named",
			ds:   ds, node: dt.Node("linux", dt.WithLabel("kubernetes.io/os", "linux"), dt.WithLabel("node.kubernetes.io/instance-type", "c5.large")),
			want: eligibility.Verdict{Reason: eligibility.IneligibleNodeAffinity, Affinity: affinity.Mismatch{Terms: []affinity.TermMismatch{
				{Term: 0, Reason: affinity.TermUnmatched, Requirement: 0, Key: "node.kubernetes.io/instance-type"},
				{Term: 1, Reason: affinity.TermUnmatched, Requirement: 0, Key: "pool"},
			}}},
		},
		{
			name: "every untolerated taint is listed, with its value",
			ds:   ds, node: withTaint(withTaint(withValuedTaint(fits, "team", "ml", corev1.TaintEffectNoSchedule), "soft", corev1.TaintEffectPreferNoSchedule), "evict", corev1.TaintEffectNoExecute),
			want: eligibility.Verdict{Reason: eligibility.IneligibleNoExecuteTaint, Taint: corev1.Taint{Key: "evict", Effect: corev1.TaintEffectNoExecute}, UntoleratedTaints: []corev1.Taint{
				{Key: "team", Value: "ml", Effect: corev1.TaintEffectNoSchedule},
				{Key: "evict", Effect: corev1.TaintEffectNoExecute},
			}},
		},
		{
			name: "an untolerated NoSchedule taint keeps running pods",
			ds:   ds, node: withTaint(fits, "quarantine", corev1.TaintEffectNoSchedule),
			want: eligibility.Verdict{ShouldContinueRunning: true, Reason: eligibility.IneligibleTaint, Taint: corev1.Taint{Key: "quarantine", Effect: corev1.TaintEffectNoSchedule},
				UntoleratedTaints: []corev1.Taint{{Key: "quarantine", Effect: corev1.TaintEffectNoSchedule}}},
		},
		{
			name: "an untolerated NoExecute taint evicts",
			ds:   ds, node: withTaint(fits, "evict", corev1.TaintEffectNoExecute),
			want: eligibility.Verdict{Reason: eligibility.IneligibleNoExecuteTaint, Taint: corev1.Taint{Key: "evict", Effect: corev1.TaintEffectNoExecute},
				UntoleratedTaints: []corev1.Taint{{Key: "evict", Effect: corev1.TaintEffectNoExecute}}},
		},
		{
			name: "a NoExecute taint after an untolerated NoSchedule one still evicts",
			ds:   ds, node: withTaint(withTaint(fits, "quarantine", corev1.TaintEffectNoSchedule), "evict", corev1.TaintEffectNoExecute),
			want: eligibility.Verdict{Reason: eligibility.IneligibleNoExecuteTaint, Taint: corev1.Taint{Key: "evict", Effect: corev1.TaintEffectNoExecute},
				UntoleratedTaints: []corev1.Taint{{Key: "quarantine", Effect: corev1.TaintEffectNoSchedule}, {Key: "evict", Effect: corev1.TaintEffectNoExecute}}},
		},
		{name: "a tolerated NoExecute taint", ds: ds, node: withTaint(fits, "spot", corev1.TaintEffectNoExecute), want: eligibility.Verdict{ShouldRun: true, ShouldContinueRunning: true}},
		{name: "PreferNoSchedule taints do not count", ds: ds, node: withTaint(fits, "soft", corev1.TaintEffectPreferNoSchedule), want: eligibility.Verdict{ShouldRun: true, ShouldContinueRunning: true}},
		{name: "the daemon tolerations are added", ds: ds, node: dt.Node("n", dt.WithLabel("kubernetes.io/os", "linux"), dt.WithLabel("pool", "general"), dt.Unschedulable()), want: eligibility.Verdict{ShouldRun: true, ShouldContinueRunning: true}},
		{name: "an Equal toleration", ds: gpu, node: gpuNode, want: eligibility.Verdict{ShouldRun: true, ShouldContinueRunning: true}},
		{
			name: "a Gt toleration does not match with the gate off",
			ds:   gt, node: gpuNode,
			want: eligibility.Verdict{ShouldContinueRunning: true, Reason: eligibility.IneligibleTaint, Taint: corev1.Taint{Key: "gpu", Value: "5", Effect: corev1.TaintEffectNoSchedule},
				UntoleratedTaints: []corev1.Taint{{Key: "gpu", Value: "5", Effect: corev1.TaintEffectNoSchedule}}},
		},
		{name: "a Gt toleration matches with the gate on", ds: gt, node: gpuNode, comparison: true, want: eligibility.Verdict{ShouldRun: true, ShouldContinueRunning: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := eligibility.New(tt.ds, tt.comparison).Explain(tt.node)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Explain() mismatch (-want +got):\n%s", diff)
			}
			run, keep := eligibility.New(tt.ds, tt.comparison).ShouldRun(tt.node)
			if run != got.ShouldRun || keep != got.ShouldContinueRunning {
				t.Errorf("ShouldRun() = %v, %v; Explain says %v, %v", run, keep, got.ShouldRun, got.ShouldContinueRunning)
			}
			if tt.node != nil && tt.ds != nil && !tt.comparison {
				run, keep := eligibility.ShouldRun(tt.node, tt.ds)
				if run != got.ShouldRun || keep != got.ShouldContinueRunning {
					t.Errorf("NodeShouldRunDaemonPod() = %v, %v; want %v, %v", run, keep, got.ShouldRun, got.ShouldContinueRunning)
				}
			}
		})
	}
}

func withValuedTaint(n *corev1.Node, key, value string, effect corev1.TaintEffect) *corev1.Node {
	c := n.DeepCopy()
	c.Spec.Taints = append(c.Spec.Taints, corev1.Taint{Key: key, Value: value, Effect: effect})
	return c
}

func withTaint(n *corev1.Node, key string, effect corev1.TaintEffect) *corev1.Node {
	c := n.DeepCopy()
	c.Spec.Taints = append(c.Spec.Taints, corev1.Taint{Key: key, Effect: effect})
	return c
}

// TestEligibilityDoesNotAllocate locks the per-node check at zero
// allocations on the performance fixture.
func TestEligibilityDoesNotAllocate(t *testing.T) {
	ds, node := placementFixture()
	e := eligibility.New(ds, false)
	if run, _ := e.ShouldRun(node); !run {
		t.Fatalf("the fixture node must fit")
	}
	tainted := withTaint(node, "quarantine", corev1.TaintEffectNoSchedule)
	for _, n := range []*corev1.Node{node, tainted, dt.Node("plain")} {
		if allocs := testing.AllocsPerRun(100, func() { e.ShouldRun(n) }); allocs != 0 {
			t.Errorf("ShouldRun(%s) allocates %v times, want 0", n.Name, allocs)
		}
		// Explain allocates only the list of untolerated taints.
		budget := 0.0
		if n == tainted {
			budget = 1
		}
		if allocs := testing.AllocsPerRun(100, func() { e.Explain(n) }); allocs > budget {
			t.Errorf("Explain(%s) allocates %v times, want at most %v", n.Name, allocs, budget)
		}
		if allocs := testing.AllocsPerRun(100, func() { eligibility.ShouldRun(n, ds) }); allocs != 0 {
			t.Errorf("NodeShouldRunDaemonPod(%s) allocates %v times, want 0", n.Name, allocs)
		}
	}
}

func TestEligibilityDoesNotModifyInput(t *testing.T) {
	ds, node := placementFixture()
	dsBefore, nodeBefore := ds.DeepCopy(), node.DeepCopy()
	e := eligibility.New(ds, false)
	e.Explain(node)
	eligibility.ShouldRun(node, ds)
	if diff := cmp.Diff(dsBefore, ds); diff != "" {
		t.Errorf("DaemonSet modified (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(nodeBefore, node); diff != "" {
		t.Errorf("node modified (-before +after):\n%s", diff)
	}
	// The compiled check keeps no reference to the DaemonSet.
	ds.Spec.Template.Spec.NodeSelector["kubernetes.io/os"] = "windows"
	ds.Spec.Template.Spec.Tolerations = nil
	if run, _ := e.ShouldRun(node); !run {
		t.Errorf("changing the DaemonSet after compiling changed the verdict")
	}
}

// ExampleCheck_Explain_allTaints prints every taint that keeps a DaemonSet off
// a node, and whether a pod already there may stay.
func ExampleCheck_Explain_allTaints() {
	ds := dt.DaemonSet("log-agent", dt.WithToleration("dedicated", corev1.TaintEffectNoSchedule))
	node := dt.Node("gpu-1",
		dt.WithTaint("nvidia.com/gpu", "true", corev1.TaintEffectNoSchedule),
		dt.WithTaint("dedicated", "ml", corev1.TaintEffectNoSchedule),
		dt.WithTaint("team", "ml", corev1.TaintEffectNoSchedule))
	v := eligibility.New(ds, false).Explain(node)
	fmt.Println(v.Reason, "existing pod may stay:", v.ShouldContinueRunning)
	for _, t := range v.UntoleratedTaints {
		fmt.Printf("  %s=%s:%s\n", t.Key, t.Value, t.Effect)
	}
	// Output:
	// UntoleratedTaint existing pod may stay: true
	//   nvidia.com/gpu=true:NoSchedule
	//   team=ml:NoSchedule
}

func ExampleCheck_ShouldRun() {
	ds := dt.DaemonSet("fluentd", dt.WithNodeSelector("pool", "general"))
	e := eligibility.New(ds, false) // compile once
	for i := range 3 {
		n := dt.Node(fmt.Sprintf("n%d", i), dt.WithLabel("pool", []string{"general", "gpu", "general"}[i]))
		run, _ := e.ShouldRun(n) // then check each node without allocating
		fmt.Println(n.Name, run)
	}
	// Output:
	// n0 true
	// n1 false
	// n2 true
}

func TestEligibilityUnsatisfiable(t *testing.T) {
	never := dt.DaemonSet("never", func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
				{Key: "gpu", Operator: corev1.NodeSelectorOpExists},
				{Key: "gpu", Operator: corev1.NodeSelectorOpDoesNotExist},
			}}},
		}}}
	})
	if err := eligibility.New(never, false).Unsatisfiable(); err == nil {
		t.Errorf("Unsatisfiable() = nil for Exists and DoesNotExist on one key")
	}
	if err := eligibility.New(dt.DaemonSet("fine", dt.PlacementOptions()...), false).Unsatisfiable(); err != nil {
		t.Errorf("Unsatisfiable() = %v for a satisfiable DaemonSet", err)
	}
	if err := eligibility.New(nil, false).Unsatisfiable(); err != nil {
		t.Errorf("Unsatisfiable() = %v for a nil DaemonSet", err)
	}
}

// TestEligibilityForNodesNotYetCreated covers the parts of the check that
// judge what is not a node: the template's nodeName, the affinity on a set
// of nodes and a list of taints; a nil Check (from a nil DaemonSet)
// admits nothing.
func TestEligibilityForNodesNotYetCreated(t *testing.T) {
	ds := dt.DaemonSet("agent", dt.PlacementOptions()...)
	ds.Spec.Template.Spec.NodeName = "node-1"
	e := eligibility.New(ds, false)
	linux, err := affinity.NewNodeSet("", map[string]string{"kubernetes.io/os": "linux", "pool": "general"}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	windows, err := affinity.NewNodeSet("", map[string]string{"kubernetes.io/os": "windows"}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	gpu := corev1.Taint{Key: "nvidia.com/gpu", Effect: corev1.TaintEffectNoSchedule}
	tolerated := corev1.Taint{Key: "spot", Effect: corev1.TaintEffectNoExecute}
	tests := []struct {
		name       string
		e          *eligibility.Check
		nodeName   string
		linux      affinity.Truth
		windows    affinity.Truth
		untolTaint corev1.Taint
		untol      bool
	}{
		{name: "a compiled DaemonSet", e: e, nodeName: "node-1", linux: affinity.Always, windows: affinity.Never, untolTaint: gpu, untol: true},
		{name: "nil admits nothing", e: eligibility.New(nil, false), linux: affinity.Never, windows: affinity.Never, untolTaint: tolerated, untol: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.e.NodeName(); got != tt.nodeName {
				t.Errorf("NodeName() = %q, want %q", got, tt.nodeName)
			}
			if got := tt.e.MatchSet(linux).Truth; got != tt.linux {
				t.Errorf("MatchSet(linux) = %v, want %v", got, tt.linux)
			}
			if got := tt.e.MatchSet(windows).Truth; got != tt.windows {
				t.Errorf("MatchSet(windows) = %v, want %v", got, tt.windows)
			}
			taint, found := tt.e.UntoleratedTaint([]corev1.Taint{tolerated, gpu}, tolerations.NoSchedule|tolerations.NoExecute)
			if found != tt.untol || (found && taint.Key != tt.untolTaint.Key) {
				t.Errorf("UntoleratedTaint() = %v, %v; want %v, %v", taint, found, tt.untolTaint, tt.untol)
			}
		})
	}
}

func ExampleCheck_Explain() {
	ds := dt.DaemonSet("fluentd")
	e := eligibility.New(ds, false)
	v := e.Explain(dt.Node("db-1", dt.WithTaint("dedicated", "db", corev1.TaintEffectNoExecute)))
	fmt.Println(v.ShouldRun, v.ShouldContinueRunning, v.Reason, v.Taint.ToString())
	// Output:
	// false false UntoleratedNoExecuteTaint dedicated=db:NoExecute
}
