package whatif_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/internal/scenario"
	"github.com/daemonplan/daemonplan/daemon/whatif"
	"github.com/daemonplan/daemonplan/rollout"
)

// emptyNodeCreates returns the pods Compute creates for ds when node is
// the only node and has no pods, and Compute's error.
func emptyNodeCreates(ds *appsv1.DaemonSet, node *corev1.Node, revs []*appsv1.ControllerRevision, gate bool) ([]*corev1.Pod, error) {
	plan, err := daemon.Compute(ds, []*corev1.Node{node}, nil, daemon.Options{Revisions: revs, EnableTaintTolerationComparisonOperators: gate})
	var pods []*corev1.Pod
	for _, c := range plan.Creates {
		pods = append(pods, c.Pod)
	}
	return pods, err
}

// checkPodsForNodeAgrees holds PlacementsForNode for ds on node to
// Compute's creates on that node alone (the controller creates a pod the
// scheduler will leave Pending too): pod for pod when it succeeds, and an
// error only where Compute errs too. It reports whether a pod was compared.
func checkPodsForNodeAgrees(t *testing.T, name string, ds *appsv1.DaemonSet, node *corev1.Node, revs []*appsv1.ControllerRevision, gate bool) bool {
	t.Helper()
	if node == nil || node.Name == "" || ds == nil {
		return false
	}
	want, wantErr := emptyNodeCreates(ds, node, revs, gate)
	placed, err := whatif.PlacementsForNode(node, []*appsv1.DaemonSet{ds}, whatif.Options{Revisions: revs, EnableTaintTolerationComparisonOperators: gate})
	var got []*corev1.Pod
	for _, p := range placed {
		got = append(got, p.Pod)
	}
	if err != nil {
		if wantErr == nil {
			t.Errorf("%s: PodsForNode(%s) error = %v; Compute succeeded", name, node.Name, err)
		}
		return false
	}
	if wantErr != nil && !errors.Is(wantErr, daemon.ErrInvalidInput) && len(want) == 0 && len(got) > 0 {
		t.Errorf("%s: PodsForNode(%s) gave a pod; Compute failed with %v", name, node.Name, wantErr)
		return false
	}
	if wantErr != nil {
		return false
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: PodsForNode(%s) differs from Compute's creates (-Compute +PodsForNode):\n%s", name, node.Name, diff)
	}
	return len(want) > 0
}

// TestPodsForNodeEqualsComputeConformance is the differential test over the
// conformance corpus: for every scenario's DaemonSet and revisions and every
// one of its first nodes, stripped of pods.
func TestPodsForNodeEqualsComputeConformance(t *testing.T) {
	compared := 0
	for _, s := range whatIfScenarios(t) {
		for i, n := range s.Nodes {
			if i >= 8 {
				break // the first nodes cover the cases; all of them cost seconds
			}
			if checkPodsForNodeAgrees(t, s.Name, s.DaemonSet, n, s.Revisions, false) {
				compared++
			}
		}
	}
	if compared < 100 {
		t.Errorf("only %d pods compared; the corpus should give hundreds", compared)
	}
	t.Logf("PodsForNode == Compute on %d (scenario, node) pairs with a pod", compared)
}

// TestPodsForNodeEqualsComputeGenerated is the same over generated chaotic
// and healthy clusters.
func TestPodsForNodeEqualsComputeGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 13))
	compared := 0
	for i := range 150 {
		c := dt.GenerateCluster(r, dt.ClusterConfig{Healthy: i%3 == 0, Rollout: i%6 == 0})
		for _, n := range c.Nodes {
			if checkPodsForNodeAgrees(t, "generated", c.DaemonSet, n, c.Revisions, c.EnableTaintTolerationComparisonOperators) {
				compared++
			}
		}
	}
	if compared < 150 {
		t.Errorf("only %d pods compared", compared)
	}
	t.Logf("PodsForNode == Compute on %d generated (cluster, node) pairs with a pod", compared)
}

func TestPodsForNode(t *testing.T) {
	startup := dt.WithTaint("node.cilium.io/agent-not-ready", "true", corev1.TaintEffectNoSchedule)
	plain := dt.DaemonSet("plain")
	other := dt.DaemonSet("aaa", func(ds *appsv1.DaemonSet) { ds.Namespace = "monitoring" })
	gpuOnly := dt.DaemonSet("gpu", dt.WithNodeSelector("gpu", "true"))
	selectsAll := dt.DaemonSet("all", func(ds *appsv1.DaemonSet) { ds.Spec.Selector = &metav1.LabelSelector{} })
	deleting := dt.DaemonSet("gone", func(ds *appsv1.DaemonSet) { ds.DeletionTimestamp = &metav1.Time{Time: dt.Epoch} })
	noNamespace := dt.DaemonSet("nons", func(ds *appsv1.DaemonSet) { ds.Namespace = "" })

	tests := []struct {
		name     string
		node     *corev1.Node
		ds       []*appsv1.DaemonSet
		opts     whatif.Options
		wantPods []string // namespace/DaemonSet of each pod
		wantErr  bool
	}{
		{name: "no DaemonSets give no pods", node: dt.Node("n")},
		{name: "sorted by namespace then DaemonSet name", node: dt.Node("n"), ds: []*appsv1.DaemonSet{plain, other}, wantPods: []string{"default/plain", "monitoring/aaa"}},
		{name: "a nodeSelector that does not match gives no pod", node: dt.Node("n"), ds: []*appsv1.DaemonSet{gpuOnly, plain}, wantPods: []string{"default/plain"}},
		{name: "skipped DaemonSets give no pod", node: dt.Node("n"), ds: []*appsv1.DaemonSet{selectsAll, deleting}},
		{name: "a startup taint keeps every pod off", node: dt.Node("n", startup), ds: []*appsv1.DaemonSet{plain}},
		{
			name: "a startup taint ignored by key", node: dt.Node("n", startup), ds: []*appsv1.DaemonSet{plain},
			opts:     whatif.Options{IgnoreTaints: []corev1.Taint{{Key: "node.cilium.io/agent-not-ready"}}},
			wantPods: []string{"default/plain"},
		},
		{
			name: "an ignored taint with another effect still counts", node: dt.Node("n", startup), ds: []*appsv1.DaemonSet{plain},
			opts: whatif.Options{IgnoreTaints: []corev1.Taint{{Key: "node.cilium.io/agent-not-ready", Effect: corev1.TaintEffectNoExecute}}},
		},
		{
			name: "a startup taint ignored by predicate", node: dt.Node("n", startup), ds: []*appsv1.DaemonSet{plain},
			opts:     whatif.Options{IgnoreTaint: func(t corev1.Taint) bool { return t.Value == "true" }},
			wantPods: []string{"default/plain"},
		},
		{
			name: "Include leaves out what the caller's policy rejects", node: dt.Node("n"), ds: []*appsv1.DaemonSet{plain, other},
			opts:     whatif.Options{Include: func(ds *appsv1.DaemonSet) bool { return ds.Namespace == "monitoring" }},
			wantPods: []string{"monitoring/aaa"},
		},
		{
			name: "a toleration Exists with no key runs on a tainted node group (kubernetes-sigs/karpenter#1749)",
			node: dt.Node("n", dt.WithTaint("nvidia.com/gpu", "true", corev1.TaintEffectNoSchedule), dt.WithTaint("spot", "", corev1.TaintEffectNoExecute)),
			ds: []*appsv1.DaemonSet{dt.DaemonSet("everywhere", func(ds *appsv1.DaemonSet) {
				ds.Spec.Template.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
			}), plain},
			wantPods: []string{"default/everywhere"},
		},
		{name: "a nil node is an error", ds: []*appsv1.DaemonSet{plain}, wantErr: true},
		{name: "a node without a name is an error", node: &corev1.Node{}, ds: []*appsv1.DaemonSet{plain}, wantErr: true},
		{name: "a bad DaemonSet is an error, the others still give pods", node: dt.Node("n"), ds: []*appsv1.DaemonSet{nil, noNamespace, plain}, wantPods: []string{"default/plain"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var nodeBefore *corev1.Node
			if tt.node != nil {
				nodeBefore = tt.node.DeepCopy()
			}
			pods, err := whatif.PodsForNode(tt.node, tt.ds, tt.opts)
			if (err != nil) != tt.wantErr {
				t.Fatalf("PodsForNode() error = %v, want error %v", err, tt.wantErr)
			}
			var got []string
			for _, p := range pods {
				got = append(got, p.Namespace+"/"+p.OwnerReferences[0].Name)
			}
			if diff := cmp.Diff(tt.wantPods, got); diff != "" {
				t.Errorf("PodsForNode() pods (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(nodeBefore, tt.node); diff != "" {
				t.Errorf("PodsForNode() modified the node (-before +after):\n%s", diff)
			}
		})
	}
}

func TestPodsForNodeKeepTemplateAffinity(t *testing.T) {
	ds := dt.DaemonSet("agent", dt.PlacementOptions()...)
	node := dt.PlacementNode("node-1", 1)
	bound, err := whatif.PodsForNode(node, []*appsv1.DaemonSet{ds}, whatif.Options{})
	if err != nil || len(bound) != 1 {
		t.Fatalf("PodsForNode() = %d pods, %v; want 1 pod", len(bound), err)
	}
	kept, err := whatif.PodsForNode(node, []*appsv1.DaemonSet{ds}, whatif.Options{KeepTemplateAffinity: true})
	if err != nil || len(kept) != 1 {
		t.Fatalf("PodsForNode(KeepTemplateAffinity) = %d pods, %v; want 1 pod", len(kept), err)
	}
	if diff := cmp.Diff(ds.Spec.Template.Spec.Affinity, kept[0].Spec.Affinity); diff != "" {
		t.Errorf("KeepTemplateAffinity: affinity (-template +pod):\n%s", diff)
	}
	terms := bound[0].Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	want := []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"node-1"}}}}}
	if diff := cmp.Diff(want, terms); diff != "" {
		t.Errorf("default: the affinity is not the node-name rewrite (-want +got):\n%s", diff)
	}
	kept[0].Spec.Affinity.NodeAffinity = nil
	if ds.Spec.Template.Spec.Affinity.NodeAffinity == nil {
		t.Errorf("the kept affinity shares memory with the DaemonSet")
	}
}

func TestPodsForNodeDoesNotModifyInput(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	c := dt.GenerateCluster(r, dt.ClusterConfig{Healthy: true})
	before := c.DeepCopy()
	for _, n := range c.Nodes {
		_, _ = whatif.PodsForNode(n, []*appsv1.DaemonSet{c.DaemonSet}, whatif.Options{Revisions: c.Revisions, IgnoreTaints: []corev1.Taint{{Key: "node-role.kubernetes.io/control-plane"}}})
	}
	if diff := cmp.Diff(before.Input(), c.Input()); diff != "" {
		t.Errorf("PodsForNode() modified its input (-before +after):\n%s", diff)
	}
}

// cachedScenarios loads the conformance corpus once for the what-if tests,
// which only read it.
var cachedScenarios = sync.OnceValues(func() ([]*scenario.Scenario, error) { return scenario.LoadDir(conformanceDir) })

// conformanceDir is daemon's corpus of recorded scenarios.
const conformanceDir = "../testdata/conformance"

func whatIfScenarios(t *testing.T) []*scenario.Scenario {
	t.Helper()
	all, err := cachedScenarios()
	if err != nil {
		t.Fatalf("loading the conformance scenarios: %v", err)
	}
	return all
}

// emptySpecDiff is how a collision error names the first difference when
// the revision's data is {"spec":{}}: the template is missing from it.
const emptySpecDiff = `; first difference: spec.template: the revision has nothing, the DaemonSet's patch has {"$patch":"replace","metadata":{"labels":{"app":"x"}},"spec":{"c…`

// TestPodsForNodeErrorText pins PodsForNode's errors: each DaemonSet's
// names its index, then the DaemonSet once (a *daemon.Error), the stage and
// the cause; every one but a collision matches daemon.ErrInvalidInput.
func TestPodsForNodeErrorText(t *testing.T) {
	ds := dt.DaemonSet("x")
	rev := dt.Revision(ds, 1)
	rev.Data.Raw = []byte(`{"spec":{}}`)
	noNamespace := dt.DaemonSet("x", func(ds *appsv1.DaemonSet) { ds.Namespace = "" })
	badSelector := dt.DaemonSet("x", func(ds *appsv1.DaemonSet) {
		ds.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "k", Operator: "Near"}}
	})
	type shape struct {
		Text    string
		Invalid bool
	}
	tests := []struct {
		name string
		node *corev1.Node
		ds   []*appsv1.DaemonSet
		opts whatif.Options
		want shape
	}{
		{name: "a collision names the DaemonSet once", node: dt.Node("a"), ds: []*appsv1.DaemonSet{ds},
			opts: whatif.Options{Revisions: []*appsv1.ControllerRevision{rev}},
			want: shape{Text: `daemonSets[0]: daemonset "default/x": revision history: controllerrevision "x-` + dt.Hash(ds) + `" already exists with different data; status.collisionCount must become 1` + emptySpecDiff}},
		{name: "a nil DaemonSet", node: dt.Node("a"), ds: []*appsv1.DaemonSet{nil},
			want: shape{Text: `daemonSets[0]: invalid input: daemonSet: Required value: nil DaemonSet`, Invalid: true}},
		{name: "a DaemonSet without a namespace", node: dt.Node("a"), ds: []*appsv1.DaemonSet{ds, noNamespace},
			want: shape{Text: `daemonSets[1]: daemonset "/x": invalid input: metadata.namespace: Required value: pods are namespaced`, Invalid: true}},
		{name: "an invalid selector", node: dt.Node("a"), ds: []*appsv1.DaemonSet{badSelector},
			want: shape{Text: `daemonSets[0]: daemonset "default/x": invalid input: spec.selector.matchExpressions[0].operator: Unsupported value: "Near": supported values: "In", "NotIn", "Exists", "DoesNotExist"`, Invalid: true}},
		{name: "a nil node", ds: []*appsv1.DaemonSet{ds},
			want: shape{Text: `invalid input: node: Required value: a node is required`, Invalid: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := whatif.PodsForNode(tt.node, tt.ds, tt.opts)
			if err == nil {
				t.Fatal("PodsForNode: no error")
			}
			got := shape{Text: err.Error(), Invalid: errors.Is(err, daemon.ErrInvalidInput)}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("error (-want,+got):\n%s", diff)
			}
			var de *daemon.Error
			if !errors.As(err, &de) {
				t.Errorf("errors.As(*daemon.Error) failed on %v", err)
			}
		})
	}
	_, err := whatif.PodsForNode(dt.Node("a"), []*appsv1.DaemonSet{ds}, whatif.Options{Revisions: []*appsv1.ControllerRevision{rev}})
	var c *rollout.CollisionError
	if !errors.As(err, &c) {
		t.Errorf("errors.As(*rollout.CollisionError) failed on %v", err)
	}
}

func TestPodsForTemplate(t *testing.T) {
	gpuPool := whatif.NodeTemplate{
		Labels: map[string]string{"kubernetes.io/os": "linux"},
		Requirements: []corev1.NodeSelectorRequirement{
			{Key: "node.kubernetes.io/instance-type", Operator: corev1.NodeSelectorOpIn, Values: []string{"g5.xlarge", "p3.2xlarge"}},
		},
		Taints: []corev1.Taint{
			{Key: "nvidia.com/gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule},
			{Key: "node.cilium.io/agent-not-ready", Value: "true", Effect: corev1.TaintEffectNoExecute},
		},
	}
	named := gpuPool
	named.Name = "gpu-node-1"
	tolerateGPU := dt.WithToleration("nvidia.com/gpu", corev1.TaintEffectNoSchedule)
	tolerateAll := func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
	}
	g5Only := func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
				{Key: "node.kubernetes.io/instance-type", Operator: corev1.NodeSelectorOpIn, Values: []string{"g5.xlarge"}},
			}}},
		}}}
	}
	everywhere := dt.DaemonSet("cilium", tolerateAll)
	dcgm := dt.DaemonSet("dcgm-exporter", tolerateAll, g5Only)
	logs := dt.DaemonSet("fluent-bit", tolerateGPU)
	windows := dt.DaemonSet("windows-exporter", tolerateAll, dt.WithNodeSelector("kubernetes.io/os", "windows"))
	ignoreStartup := whatif.Options{IgnoreTaints: []corev1.Taint{{Key: "node.cilium.io/agent-not-ready"}}}

	tests := []struct {
		name     string
		template whatif.NodeTemplate
		ds       []*appsv1.DaemonSet
		opts     whatif.Options
		want     []string // DaemonSet and placement of each pod
	}{
		{name: "no DaemonSets give no pods", template: gpuPool},
		{
			name: "Yes and Maybe give pods, No none; sorted by DaemonSet", template: gpuPool,
			ds:   []*appsv1.DaemonSet{windows, logs, dcgm, everywhere},
			want: []string{"cilium Yes", "dcgm-exporter Maybe"},
		},
		{
			name: "an ignored startup taint lets a DaemonSet that does not tolerate it in", template: gpuPool, opts: ignoreStartup,
			ds:   []*appsv1.DaemonSet{logs, everywhere},
			want: []string{"cilium Yes", "fluent-bit Yes"},
		},
		{
			name: "Include leaves out what the caller's policy rejects", template: gpuPool,
			ds:   []*appsv1.DaemonSet{dcgm, everywhere},
			opts: whatif.Options{Include: func(ds *appsv1.DaemonSet) bool { return ds.Name != "cilium" }},
			want: []string{"dcgm-exporter Maybe"},
		},
		{
			name: "a named template binds the pods to its name", template: named,
			ds:   []*appsv1.DaemonSet{everywhere},
			want: []string{"cilium Yes"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ct, err := whatif.CompileTemplate(tt.template)
			if err != nil {
				t.Fatal(err)
			}
			var before []*appsv1.DaemonSet
			for _, ds := range tt.ds {
				before = append(before, ds.DeepCopy())
			}
			pods, err := whatif.PodsForTemplate(ct, tt.ds, tt.opts)
			if err != nil {
				t.Fatalf("PodsForTemplate() error = %v", err)
			}
			var got []string
			for _, p := range pods {
				got = append(got, p.Pod.OwnerReferences[0].Name+" "+string(p.Placement.Placement))
				wantAffinity := p.Pod.Spec.Affinity
				if tt.template.Name == "" {
					// No node name to bind to: the template's own affinity.
					var ds *appsv1.DaemonSet
					for _, d := range tt.ds {
						if d.Name == p.Pod.OwnerReferences[0].Name {
							ds = d
						}
					}
					wantAffinity = ds.Spec.Template.Spec.Affinity
				} else {
					terms := p.Pod.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
					if len(terms) != 1 || len(terms[0].MatchFields) != 1 || terms[0].MatchFields[0].Values[0] != tt.template.Name {
						t.Errorf("pod of %s: affinity %v is not bound to %s", p.Pod.OwnerReferences[0].Name, terms, tt.template.Name)
					}
				}
				if diff := cmp.Diff(wantAffinity, p.Pod.Spec.Affinity); diff != "" {
					t.Errorf("pod of %s: affinity (-want +got):\n%s", p.Pod.OwnerReferences[0].Name, diff)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("PodsForTemplate() (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tt.ds); len(tt.ds) > 0 && diff != "" {
				t.Errorf("PodsForTemplate() modified the DaemonSets (-before +after):\n%s", diff)
			}
		})
	}
	_, err := whatif.PodsForTemplate(nil, []*appsv1.DaemonSet{everywhere}, whatif.Options{})
	if diff := cmp.Diff(`invalid input: template: Required value: a compiled node template is required`, fmt.Sprint(err)); diff != "" || !errors.Is(err, daemon.ErrInvalidInput) {
		t.Errorf("PodsForTemplate(nil) error = %v (-want,+got:\n%s), want invalid input", err, diff)
	}
	ct, _ := whatif.CompileTemplate(gpuPool)
	pods, err := whatif.PodsForTemplate(ct, []*appsv1.DaemonSet{nil, everywhere}, whatif.Options{})
	if err == nil || len(pods) != 1 {
		t.Errorf("PodsForTemplate(nil DaemonSet, good one) = %d pods, %v; want the good one's pod and an error", len(pods), err)
	}
}

// TestPodsForTemplateAgreesWithPodsForNode is the property test: on every
// concrete node a template allows (declaring the template's features),
// PodsForNode gives a pod for each DaemonSet PodsForTemplate answers Yes
// for, the same pod (the template's affinity kept on both sides), and none
// for the DaemonSets it leaves out or answers Pending for; PlacementsForNode
// gives those the same Pending verdict.
func TestPodsForTemplateAgreesWithPodsForNode(t *testing.T) {
	r := rand.New(rand.NewPCG(2026, 12))
	counts := map[whatif.Placement]int{}
	for range 1500 {
		tpl := randomTemplate(r)
		if r.IntN(3) == 0 {
			tpl.DeclaredFeatures = []string{restartAll}
		}
		ct, err := whatif.CompileTemplate(tpl)
		if err != nil {
			continue
		}
		ds := randomPlacementDaemonSet(r)
		if r.IntN(3) == 0 {
			withRestartAllContainers(ds)
		}
		opts := whatif.Options{KeepTemplateAffinity: true}
		fromTemplate, err := whatif.PodsForTemplate(ct, []*appsv1.DaemonSet{ds}, opts)
		if err != nil {
			t.Fatalf("PodsForTemplate() error = %v", err)
		}
		placement := whatif.PlacementNo
		if len(fromTemplate) == 1 {
			placement = fromTemplate[0].Placement.Placement
		}
		counts[placement]++
		for range 20 {
			n, in := randomNodeIn(r, tpl, ct)
			if !in {
				continue
			}
			n.Status.DeclaredFeatures = tpl.DeclaredFeatures
			fromNode, err := whatif.PodsForNode(n, []*appsv1.DaemonSet{ds}, opts)
			if err != nil {
				t.Fatalf("PodsForNode() error = %v", err)
			}
			switch placement {
			case whatif.PlacementPending:
				placed, err := whatif.PlacementsForNode(n, []*appsv1.DaemonSet{ds}, opts)
				if err != nil {
					t.Fatalf("PlacementsForNode() error = %v", err)
				}
				if len(fromNode) != 0 {
					t.Fatalf("template %+v: Pending, but PodsForNode(%s %v) gives a pod", tpl, n.Name, n.Labels)
				}
				if len(placed) == 1 && placed[0].Placement != fromTemplate[0].Placement {
					t.Fatalf("template %+v: %v, but PlacementsForNode(%s %v) says %v", tpl, fromTemplate[0].Placement, n.Name, n.Labels, placed[0].Placement)
				}
			case whatif.PlacementYes:
				if len(fromNode) != 1 {
					t.Fatalf("template %+v: Yes, but PodsForNode(%s %v) gives %d pods", tpl, n.Name, n.Labels, len(fromNode))
				}
				if diff := cmp.Diff(fromNode[0], fromTemplate[0].Pod); diff != "" {
					t.Fatalf("template %+v: the pods differ (-node +template):\n%s", tpl, diff)
				}
			case whatif.PlacementNo:
				if len(fromNode) != 0 {
					t.Fatalf("template %+v: No, but PodsForNode(%s %v) gives a pod", tpl, n.Name, n.Labels)
				}
			}
		}
	}
	if counts[whatif.PlacementYes] < 50 || counts[whatif.PlacementNo] < 50 || counts[whatif.PlacementMaybe] < 50 || counts[whatif.PlacementPending] < 50 {
		t.Errorf("answers %v: the generator should give each answer often", counts)
	}
}
