package whatif_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/affinity"
	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/eligibility"
	"github.com/daemonplan/daemonplan/daemon/whatif"
)

var (
	tplKeys   = []string{"zone", "type", "gpu", "cores", "karpenter.sh/registered"}
	tplValues = []string{"a", "b", "c", "2", "4", "8", ""}
	tplOps    = []corev1.NodeSelectorOperator{corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn, corev1.NodeSelectorOpExists,
		corev1.NodeSelectorOpDoesNotExist, corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt}
	tplTaints = []corev1.Taint{
		{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule},
		{Key: "spot", Effect: corev1.TaintEffectNoExecute},
		{Key: "soft", Effect: corev1.TaintEffectPreferNoSchedule},
	}
	tplTolerations = []corev1.Toleration{
		{Operator: corev1.TolerationOpExists},
		{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "gpu", Effect: corev1.TaintEffectNoSchedule},
		{Key: "spot", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
	}
)

func pickOf[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func randomRequirement(r *rand.Rand) corev1.NodeSelectorRequirement {
	req := corev1.NodeSelectorRequirement{Key: pickOf(r, tplKeys), Operator: pickOf(r, tplOps)}
	switch req.Operator {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		for range 1 + r.IntN(2) {
			req.Values = append(req.Values, pickOf(r, tplValues))
		}
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		req.Values = []string{strconv.Itoa(r.IntN(10))}
	}
	return req
}

func randomTemplate(r *rand.Rand) whatif.NodeTemplate {
	t := whatif.NodeTemplate{LabelsComplete: r.IntN(3) == 0}
	if r.IntN(4) == 0 {
		t.Name = pickOf(r, []string{"node-x", "node-y"})
	}
	for range r.IntN(3) {
		if t.Labels == nil {
			t.Labels = map[string]string{}
		}
		t.Labels[pickOf(r, tplKeys)] = pickOf(r, tplValues)
	}
	for range r.IntN(3) {
		t.Requirements = append(t.Requirements, randomRequirement(r))
	}
	if r.IntN(4) == 0 {
		if key := pickOf(r, tplKeys); !hasKey(t.Labels, key) {
			t.AbsentLabels = append(t.AbsentLabels, key)
		}
	}
	for _, taint := range tplTaints {
		if r.IntN(3) == 0 {
			t.Taints = append(t.Taints, taint)
		}
	}
	return t
}

func randomPlacementDaemonSet(r *rand.Rand) *appsv1.DaemonSet {
	return dt.DaemonSet("ds", func(ds *appsv1.DaemonSet) {
		spec := &ds.Spec.Template.Spec
		if r.IntN(3) == 0 {
			spec.NodeSelector = map[string]string{pickOf(r, tplKeys): pickOf(r, tplValues)}
		}
		if r.IntN(2) == 0 {
			var terms []corev1.NodeSelectorTerm
			for range r.IntN(3) {
				var term corev1.NodeSelectorTerm
				for range 1 + r.IntN(2) {
					term.MatchExpressions = append(term.MatchExpressions, randomRequirement(r))
				}
				if r.IntN(5) == 0 {
					term.MatchFields = []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: pickOf(r, []corev1.NodeSelectorOperator{"In", "NotIn"}), Values: []string{"node-x"}}}
				}
				terms = append(terms, term)
			}
			spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms}}}
		}
		for _, tol := range tplTolerations {
			if r.IntN(3) == 0 {
				spec.Tolerations = append(spec.Tolerations, tol)
			}
		}
		if r.IntN(8) == 0 {
			spec.NodeName = pickOf(r, []string{"node-x", "node-y"})
		}
	})
}

// randomNodeIn draws a node and reports whether the template allows it.
func randomNodeIn(r *rand.Rand, t whatif.NodeTemplate, ct *whatif.CompiledTemplate) (*corev1.Node, bool) {
	name := t.Name
	if name == "" {
		name = pickOf(r, []string{"node-x", "node-y", "node-z"})
	}
	n := dt.Node(name)
	n.Labels = map[string]string{}
	for k, v := range t.Labels {
		n.Labels[k] = v
	}
	for _, k := range tplKeys {
		if _, fixed := t.Labels[k]; !fixed && r.IntN(2) == 0 {
			n.Labels[k] = pickOf(r, tplValues)
		}
	}
	if r.IntN(4) == 0 {
		n.Labels["other"] = "x"
	}
	n.Spec.Taints = append([]corev1.Taint(nil), t.Taints...)
	return n, ct.Contains(n)
}

// TestPlacementForAgreesWithConcreteNodes is the property test: a Yes or
// No for a template equals NodeShouldRunDaemonPod's shouldRun on every
// concrete node the template allows.
func TestPlacementForAgreesWithConcreteNodes(t *testing.T) {
	r := rand.New(rand.NewPCG(2026, 11))
	counts := map[whatif.Placement]int{}
	checked := 0
	for i := range 3000 {
		tpl := randomTemplate(r)
		ct, err := whatif.CompileTemplate(tpl)
		if err != nil {
			continue
		}
		ds := randomPlacementDaemonSet(r)
		v := ct.PlacementFor(eligibility.New(ds, false))
		counts[v.Placement]++
		var seenTrue, seenFalse bool
		for range 60 {
			n, in := randomNodeIn(r, tpl, ct)
			if !in {
				continue
			}
			checked++
			run, _ := daemon.NodeShouldRunDaemonPod(n, ds)
			seenTrue, seenFalse = seenTrue || run, seenFalse || !run
			if (v.Placement == whatif.PlacementYes && !run) || (v.Placement == whatif.PlacementNo && run) {
				t.Fatalf("case %d: PlacementFor = %+v but NodeShouldRunDaemonPod(%s %v taints %v) = %v\ntemplate %+v\nds spec nodeSelector %v affinity %+v tolerations %v nodeName %q",
					i, v, n.Name, n.Labels, n.Spec.Taints, run, tpl, ds.Spec.Template.Spec.NodeSelector, ds.Spec.Template.Spec.Affinity, ds.Spec.Template.Spec.Tolerations, ds.Spec.Template.Spec.NodeName)
			}
		}
	}
	t.Logf("answers %v over %d concrete nodes", counts, checked)
	if counts[whatif.PlacementYes] < 100 || counts[whatif.PlacementNo] < 100 || counts[whatif.PlacementMaybe] < 100 {
		t.Errorf("answers %v: the generator should give each answer often", counts)
	}
}

// TestPlacementForAutoscalerReports pins the template answers autoscaler
// users reported wrong (see the field notes).
func TestPlacementForAutoscalerReports(t *testing.T) {
	gpuPool := whatif.NodeTemplate{
		Labels: map[string]string{"karpenter.sh/nodepool": "gpu", "kubernetes.io/os": "linux"},
		Requirements: []corev1.NodeSelectorRequirement{
			{Key: "node.kubernetes.io/instance-type", Operator: corev1.NodeSelectorOpIn, Values: []string{"p3.2xlarge", "p3.8xlarge"}},
		},
		Taints: []corev1.Taint{{Key: "nvidia.com/gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule}},
	}
	withAffinity := func(terms ...corev1.NodeSelectorTerm) dt.DaemonSetOption {
		return func(ds *appsv1.DaemonSet) {
			ds.Spec.Template.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms}}}
		}
	}
	in := func(key string, values ...string) corev1.NodeSelectorRequirement {
		return corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpIn, Values: values}
	}
	tolerateAll := func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
	}
	tests := []struct {
		name     string
		template whatif.NodeTemplate
		ds       *appsv1.DaemonSet
		want     whatif.PlacementVerdict
	}{
		{
			name:     "an Exists toleration with no key runs on a tainted pool (kubernetes-sigs/karpenter#1749)",
			template: gpuPool, ds: dt.DaemonSet("agent", tolerateAll),
			want: whatif.PlacementVerdict{Placement: whatif.PlacementYes},
		},
		{
			name:     "an untolerated taint of the pool is No, naming the taint",
			template: gpuPool, ds: dt.DaemonSet("agent"),
			want: whatif.PlacementVerdict{Placement: whatif.PlacementNo, Reason: eligibility.IneligibleTaint, Taint: gpuPool.Taints[0]},
		},
		{
			name:     "affinity on a label the node gets at registration is Maybe, not No (kubernetes-sigs/karpenter#919)",
			template: gpuPool, ds: dt.DaemonSet("agent", tolerateAll, withAffinity(corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{in("feature.node.kubernetes.io/cpu-model.vendor_id", "Intel")}})),
			want: whatif.PlacementVerdict{Placement: whatif.PlacementMaybe, Reason: eligibility.IneligibleNodeAffinity,
				Affinity: affinity.SetVerdict{Truth: affinity.Sometimes, Term: 0, Requirement: 0, Key: "feature.node.kubernetes.io/cpu-model.vendor_id"}},
		},
		{
			name:     "an instance type the pool may or may not launch is Maybe (kubernetes-sigs/karpenter#2838, #715)",
			template: gpuPool, ds: dt.DaemonSet("agent", tolerateAll, withAffinity(corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{in("node.kubernetes.io/instance-type", "p3.8xlarge")}})),
			want: whatif.PlacementVerdict{Placement: whatif.PlacementMaybe, Reason: eligibility.IneligibleNodeAffinity,
				Affinity: affinity.SetVerdict{Truth: affinity.Sometimes, Term: 0, Requirement: 0, Key: "node.kubernetes.io/instance-type"}},
		},
		{
			name:     "an instance type the pool never launches is No",
			template: gpuPool, ds: dt.DaemonSet("agent", tolerateAll, withAffinity(corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{in("node.kubernetes.io/instance-type", "m5.large")}})),
			want: whatif.PlacementVerdict{Placement: whatif.PlacementNo, Reason: eligibility.IneligibleNodeAffinity,
				Affinity: affinity.SetVerdict{Truth: affinity.Never, Term: 0, Requirement: 0, Key: "node.kubernetes.io/instance-type"}},
		},
		{
			name:     "every OR'd term counts, not only the first (kubernetes-sigs/karpenter#1337)",
			template: gpuPool,
			ds: dt.DaemonSet("agent", tolerateAll, withAffinity(
				corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{in("kubernetes.io/os", "windows")}},
				corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{in("karpenter.sh/nodepool", "gpu")}},
			)),
			want: whatif.PlacementVerdict{Placement: whatif.PlacementYes},
		},
		{
			name:     "the node-name rewrite of a live pod is not a constraint: a template with an unknown name is Maybe for a template nodeName (kubernetes-sigs/karpenter#532)",
			template: gpuPool, ds: dt.DaemonSet("agent", tolerateAll, func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.NodeName = "node-1" }),
			want: whatif.PlacementVerdict{Placement: whatif.PlacementMaybe, Reason: eligibility.IneligibleNodeName},
		},
		{
			name:     "a startup taint left out of the template does not keep the pod off",
			template: whatif.NodeTemplate{Labels: map[string]string{"kubernetes.io/os": "linux"}},
			ds:       dt.DaemonSet("cni", dt.WithNodeSelector("kubernetes.io/os", "linux")),
			want:     whatif.PlacementVerdict{Placement: whatif.PlacementYes},
		},
		{
			name:     "a nodeSelector on a fixed label with another value is No",
			template: gpuPool, ds: dt.DaemonSet("win", tolerateAll, dt.WithNodeSelector("kubernetes.io/os", "windows")),
			want: whatif.PlacementVerdict{Placement: whatif.PlacementNo, Reason: eligibility.IneligibleNodeAffinity,
				Affinity: affinity.SetVerdict{Truth: affinity.Never, NodeSelector: true, NodeSelectorKey: "kubernetes.io/os", Term: -1, Requirement: -1}},
		},
		{
			name:     "a label the complete template lacks is No",
			template: whatif.NodeTemplate{Labels: map[string]string{"kubernetes.io/os": "linux"}, LabelsComplete: true},
			ds:       dt.DaemonSet("agent", dt.WithNodeSelector("pool", "infra")),
			want: whatif.PlacementVerdict{Placement: whatif.PlacementNo, Reason: eligibility.IneligibleNodeAffinity,
				Affinity: affinity.SetVerdict{Truth: affinity.Never, NodeSelector: true, NodeSelectorKey: "pool", Term: -1, Requirement: -1}},
		},
		{name: "a nil DaemonSet", template: gpuPool, want: whatif.PlacementVerdict{Placement: whatif.PlacementNo, Reason: eligibility.IneligibleNilNode}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := whatif.PlacementFor(tt.template, tt.ds, false)
			if err != nil {
				t.Fatalf("PlacementFor() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("PlacementFor() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCompileTemplateErrors(t *testing.T) {
	tests := []struct {
		name string
		t    whatif.NodeTemplate
	}{
		{name: "an invalid label value", t: whatif.NodeTemplate{Labels: map[string]string{"zone": "has space"}}},
		{name: "an unknown operator", t: whatif.NodeTemplate{Requirements: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: "Near"}}}},
		{name: "requirements that allow no node", t: whatif.NodeTemplate{Requirements: []corev1.NodeSelectorRequirement{
			{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}},
			{Key: "zone", Operator: corev1.NodeSelectorOpNotIn, Values: []string{"a"}},
		}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := whatif.CompileTemplate(tt.t)
			if err == nil {
				t.Fatalf("CompileTemplate() error = nil, want an error")
			}
			if !errors.Is(err, daemon.ErrInvalidInput) {
				t.Errorf("CompileTemplate() error %v does not match daemon.ErrInvalidInput", err)
			}
		})
	}
}

// TestPlacementForDoesNotAllocate locks the steady path, one compiled
// template against one compiled DaemonSet, at zero allocations whatever the
// number of requirements.
func TestPlacementForDoesNotAllocate(t *testing.T) {
	ds := dt.DaemonSet("agent", dt.PlacementOptions()...)
	e := eligibility.New(ds, false)
	for _, tpl := range []whatif.NodeTemplate{
		{Labels: map[string]string{"kubernetes.io/os": "linux", "pool": "general"}},
		{Labels: map[string]string{"kubernetes.io/os": "linux"}, Requirements: []corev1.NodeSelectorRequirement{
			{Key: "node.kubernetes.io/instance-type", Operator: corev1.NodeSelectorOpIn, Values: []string{"m5.large", "c5.large"}},
			{Key: "topology.kubernetes.io/zone", Operator: corev1.NodeSelectorOpExists},
		}, Taints: []corev1.Taint{{Key: "dedicated", Value: "infra", Effect: corev1.TaintEffectNoSchedule}}},
	} {
		ct, err := whatif.CompileTemplate(tpl)
		if err != nil {
			t.Fatal(err)
		}
		if allocs := testing.AllocsPerRun(100, func() { ct.PlacementFor(e) }); allocs != 0 {
			t.Errorf("PlacementFor(%v) allocates %v times, want 0", ct.PlacementFor(e), allocs)
		}
	}
}

func BenchmarkPlacementFor(b *testing.B) {
	e := eligibility.New(dt.DaemonSet("agent", dt.PlacementOptions()...), false)
	ct, err := whatif.CompileTemplate(whatif.NodeTemplate{Labels: map[string]string{"kubernetes.io/os": "linux"}, Requirements: []corev1.NodeSelectorRequirement{
		{Key: "node.kubernetes.io/instance-type", Operator: corev1.NodeSelectorOpIn, Values: []string{"m5.large", "c5.large"}},
	}})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		ct.PlacementFor(e)
	}
}

func FuzzNodeTemplate(f *testing.F) {
	for _, seed := range []uint64{0, 1, 7, 42, 2026} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		r := rand.New(rand.NewPCG(seed, seed>>7))
		tpl := randomTemplate(r)
		ct, err := whatif.CompileTemplate(tpl)
		if err != nil {
			return
		}
		ds := randomPlacementDaemonSet(r)
		v := ct.PlacementFor(eligibility.New(ds, false))
		for range 40 {
			n, in := randomNodeIn(r, tpl, ct)
			if !in {
				continue
			}
			if run, _ := daemon.NodeShouldRunDaemonPod(n, ds); (v.Placement == whatif.PlacementYes && !run) || (v.Placement == whatif.PlacementNo && run) {
				t.Fatalf("PlacementFor = %+v, NodeShouldRunDaemonPod(%s %v) = %v", v, n.Name, n.Labels, run)
			}
		}
	})
}

func ExamplePlacementFor() {
	pool := whatif.NodeTemplate{
		Labels: map[string]string{"kubernetes.io/os": "linux"},
		Requirements: []corev1.NodeSelectorRequirement{
			{Key: "node.kubernetes.io/instance-type", Operator: corev1.NodeSelectorOpIn, Values: []string{"g5.xlarge", "m5.large"}},
		},
		Taints: []corev1.Taint{{Key: "team", Value: "ml", Effect: corev1.TaintEffectNoSchedule}},
	}
	gpuOnly := func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
				{Key: "node.kubernetes.io/instance-type", Operator: corev1.NodeSelectorOpIn, Values: []string{"g5.xlarge"}},
			}}},
		}}}
	}
	tolerateTeam := dt.WithToleration("team", corev1.TaintEffectNoSchedule)
	for _, ds := range []*appsv1.DaemonSet{
		dt.DaemonSet("node-exporter", tolerateTeam),
		dt.DaemonSet("dcgm-exporter", tolerateTeam, gpuOnly),
		dt.DaemonSet("fluentd"),
	} {
		v, err := whatif.PlacementFor(pool, ds, false)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%-14s %v\n", ds.Name, v)
	}
	// Output:
	// node-exporter  Yes
	// dcgm-exporter  Maybe: NodeAffinityMismatch (required term 0, matchExpressions[0] node.kubernetes.io/instance-type: Sometimes)
	// fluentd        No: UntoleratedTaint (team=ml:NoSchedule)
}

// TestPlacementForUnsatisfiable: a DaemonSet whose every term is
// unsatisfiable is No on every template.
func TestPlacementForUnsatisfiable(t *testing.T) {
	// No integer is above 5 and below 3.
	never := dt.DaemonSet("never", func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
				{Key: "cores", Operator: corev1.NodeSelectorOpGt, Values: []string{"5"}},
				{Key: "cores", Operator: corev1.NodeSelectorOpLt, Values: []string{"3"}},
			}}},
		}}}
	})
	if err := eligibility.New(never, false).Unsatisfiable(); err == nil {
		t.Fatalf("the fixture is satisfiable")
	}
	v, err := whatif.PlacementFor(whatif.NodeTemplate{}, never, false)
	if err != nil || v.Placement != whatif.PlacementNo {
		t.Errorf("PlacementFor() = %+v, %v; want No", v, err)
	}
}

func TestCompileTemplateKeepsNoReference(t *testing.T) {
	tpl := whatif.NodeTemplate{
		Labels:       map[string]string{"kubernetes.io/os": "linux"},
		Requirements: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a", "b"}}},
		Taints:       []corev1.Taint{{Key: "team", Value: "ml", Effect: corev1.TaintEffectNoSchedule}},
	}
	before := tpl
	before.Labels = map[string]string{"kubernetes.io/os": "linux"}
	before.Requirements = []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a", "b"}}}
	before.Taints = []corev1.Taint{{Key: "team", Value: "ml", Effect: corev1.TaintEffectNoSchedule}}
	ct, err := whatif.CompileTemplate(tpl)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, tpl); diff != "" {
		t.Errorf("CompileTemplate() modified the template (-before +after):\n%s", diff)
	}
	ds := dt.DaemonSet("agent", dt.WithNodeSelector("kubernetes.io/os", "linux"), dt.WithToleration("team", corev1.TaintEffectNoSchedule))
	dsBefore := ds.DeepCopy()
	e := eligibility.New(ds, false)
	want := ct.PlacementFor(e)
	tpl.Labels["kubernetes.io/os"] = "windows"
	tpl.Requirements[0].Values[0] = "c"
	tpl.Taints[0].Key = "other"
	if got := ct.PlacementFor(e); got != want || got.Placement != whatif.PlacementYes {
		t.Errorf("after changing the template: PlacementFor() = %+v, want %+v (Yes)", got, want)
	}
	if diff := cmp.Diff(dsBefore, ds); diff != "" {
		t.Errorf("PlacementFor() modified the DaemonSet (-before +after):\n%s", diff)
	}
}

// TestPlacementYesDoesNotPrintNever is the autoscaler report of a Yes
// verdict printing Affinity:{Truth:Never ...}: the affinity part of a Yes is
// empty, and empty reads Unknown.
func TestPlacementYesDoesNotPrintNever(t *testing.T) {
	v, err := whatif.PlacementFor(whatif.NodeTemplate{Labels: map[string]string{"kubernetes.io/os": "linux"}},
		dt.DaemonSet("agent", dt.WithNodeSelector("kubernetes.io/os", "linux")), false)
	if err != nil || v.Placement != whatif.PlacementYes {
		t.Fatalf("PlacementFor() = %+v, %v; want Yes", v, err)
	}
	if v.Affinity.Truth != affinity.Unknown {
		t.Errorf("a Yes verdict's Affinity.Truth = %v, want Unknown", v.Affinity.Truth)
	}
	if s := fmt.Sprintf("%+v", v.Affinity); strings.Contains(s, "Never") {
		t.Errorf("a Yes verdict's affinity prints %s", s)
	}
}

// TestNodeTemplateAbsentLabels is the autoscaler report of aws-node: its
// affinity asks for eks.amazonaws.com/compute-type NotIn [fargate], and
// since a node may get any label, every template was Maybe unless it
// claimed to know all of its labels (LabelsComplete). A template names the
// keys it knows are absent instead.
func TestNodeTemplateAbsentLabels(t *testing.T) {
	awsNode := dt.DaemonSet("aws-node", func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
		ds.Spec.Template.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
				{Key: "kubernetes.io/os", Operator: corev1.NodeSelectorOpIn, Values: []string{"linux"}},
				{Key: "kubernetes.io/arch", Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64", "arm64"}},
				{Key: "eks.amazonaws.com/compute-type", Operator: corev1.NodeSelectorOpNotIn, Values: []string{"fargate"}},
			}}},
		}}}
	})
	group := whatif.NodeTemplate{Labels: map[string]string{"kubernetes.io/os": "linux", "kubernetes.io/arch": "arm64"}}
	withAbsent := group
	withAbsent.AbsentLabels = []string{"eks.amazonaws.com/compute-type"}
	fargate := whatif.NodeTemplate{Labels: map[string]string{"kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64", "eks.amazonaws.com/compute-type": "fargate"}}
	tests := []struct {
		name     string
		template whatif.NodeTemplate
		want     whatif.Placement
	}{
		{name: "a label that may appear leaves it open", template: group, want: whatif.PlacementMaybe},
		{name: "a label known absent settles it", template: withAbsent, want: whatif.PlacementYes},
		{name: "a fargate template is No", template: fargate, want: whatif.PlacementNo},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := whatif.PlacementFor(tt.template, awsNode, false)
			if err != nil {
				t.Fatalf("PlacementFor() error = %v", err)
			}
			if v.Placement != tt.want {
				t.Errorf("PlacementFor() = %+v, want %s", v, tt.want)
			}
		})
	}

	// A node with the label is not in the template; one without is.
	ct, err := whatif.CompileTemplate(withAbsent)
	if err != nil {
		t.Fatal(err)
	}
	node := dt.Node("n", dt.WithLabel("kubernetes.io/os", "linux"), dt.WithLabel("kubernetes.io/arch", "arm64"))
	if !ct.Contains(node) {
		t.Errorf("Contains(a node without the absent label) = false")
	}
	node.Labels["eks.amazonaws.com/compute-type"] = "ec2"
	if ct.Contains(node) {
		t.Errorf("Contains(a node with the absent label) = true")
	}

	for _, bad := range []whatif.NodeTemplate{
		{Labels: map[string]string{"zone": "a"}, AbsentLabels: []string{"zone"}},
		{AbsentLabels: []string{"not a key"}},
		{Requirements: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpExists}}, AbsentLabels: []string{"zone"}},
	} {
		if _, err := whatif.CompileTemplate(bad); err == nil {
			t.Errorf("CompileTemplate(%+v) error = nil, want an error", bad)
		} else if !strings.Contains(err.Error(), "absentLabels") && bad.Requirements == nil {
			t.Errorf("CompileTemplate(%+v) error = %v, want it to name absentLabels", bad, err)
		}
	}
}

func hasKey(m map[string]string, key string) bool {
	_, ok := m[key]
	return ok
}

// TestPlacementVerdictString: a verdict prints as one line that says the
// answer and what decided it, and %v and %+v print the same (the autoscaler
// report of a struct dump that read Truth:Never for a Yes).
func TestPlacementVerdictString(t *testing.T) {
	tests := []struct {
		name string
		v    whatif.PlacementVerdict
		want string
	}{
		{name: "the zero verdict", want: "Unknown"},
		{name: "yes", v: whatif.PlacementVerdict{Placement: whatif.PlacementYes}, want: "Yes"},
		{
			name: "a nodeSelector key",
			v: whatif.PlacementVerdict{Placement: whatif.PlacementNo, Reason: eligibility.IneligibleNodeAffinity,
				Affinity: affinity.SetVerdict{Truth: affinity.Never, NodeSelector: true, NodeSelectorKey: "kubernetes.io/os", Term: -1, Requirement: -1}},
			want: "No: NodeAffinityMismatch (nodeSelector kubernetes.io/os: Never)",
		},
		{
			name: "a term's requirement",
			v: whatif.PlacementVerdict{Placement: whatif.PlacementMaybe, Reason: eligibility.IneligibleNodeAffinity,
				Affinity: affinity.SetVerdict{Truth: affinity.Sometimes, Term: 1, Requirement: 0, Key: "node.kubernetes.io/instance-type"}},
			want: "Maybe: NodeAffinityMismatch (required term 1, matchExpressions[0] node.kubernetes.io/instance-type: Sometimes)",
		},
		{
			name: "a field requirement",
			v: whatif.PlacementVerdict{Placement: whatif.PlacementMaybe, Reason: eligibility.IneligibleNodeAffinity,
				Affinity: affinity.SetVerdict{Truth: affinity.Sometimes, Term: 0, Requirement: 0, Field: true, Key: "metadata.name"}},
			want: "Maybe: NodeAffinityMismatch (required term 0, matchFields[0] metadata.name: Sometimes)",
		},
		{
			name: "no term that parses",
			v: whatif.PlacementVerdict{Placement: whatif.PlacementNo, Reason: eligibility.IneligibleNodeAffinity,
				Affinity: affinity.SetVerdict{Truth: affinity.Never, Term: -1, Requirement: -1}},
			want: "No: NodeAffinityMismatch (no required term can match: Never)",
		},
		{
			name: "a taint",
			v: whatif.PlacementVerdict{Placement: whatif.PlacementNo, Reason: eligibility.IneligibleTaint,
				Taint: corev1.Taint{Key: "nvidia.com/gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule}},
			want: "No: UntoleratedTaint (nvidia.com/gpu=true:NoSchedule)",
		},
		{name: "the template's name", v: whatif.PlacementVerdict{Placement: whatif.PlacementMaybe, Reason: eligibility.IneligibleNodeName}, want: "Maybe: NodeNameMismatch"},
		{
			name: "undeclared features",
			v: whatif.PlacementVerdict{Placement: whatif.PlacementPending, Reason: whatif.ReasonUndeclaredFeatures,
				Features: "RestartAllContainersOnContainerExits, VolumeBindMountOptions"},
			want: "Pending: UndeclaredFeatures (not declared: RestartAllContainersOnContainerExits, VolumeBindMountOptions)",
		},
		{name: "a nil DaemonSet", v: whatif.PlacementVerdict{Placement: whatif.PlacementNo, Reason: eligibility.IneligibleNilNode}, want: "No: NilNode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.v.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			if got := fmt.Sprintf("%+v", tt.v); got != tt.want {
				t.Errorf("%%+v prints %q, want %q", got, tt.want)
			}
		})
	}
}
