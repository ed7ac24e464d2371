package affinity_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/affinity"
)

type matchCase struct {
	name string
	spec *corev1.PodSpec
	node *corev1.Node
	want bool
}

// matchCases seed FuzzNodeMatcher too, so they use pool values only.
var matchCases = []matchCase{
	{
		name: "a nil spec matches every node",
		node: node("node-a", "zone", "a"),
		want: true,
	},
	{
		name: "an empty spec matches every node",
		spec: &corev1.PodSpec{},
		node: node("node-a"),
		want: true,
	},
	{
		name: "a nil node never matches",
		spec: &corev1.PodSpec{},
	},
	{
		name: "the nodeSelector matches equal labels",
		spec: &corev1.PodSpec{NodeSelector: map[string]string{"zone": "a", "gpu": "1"}},
		node: node("node-a", "zone", "a", "gpu", "1", "example.com/role", "b"),
		want: true,
	},
	{
		name: "the nodeSelector needs every label",
		spec: &corev1.PodSpec{NodeSelector: map[string]string{"zone": "a", "gpu": "1"}},
		node: node("node-a", "zone", "a"),
	},
	{
		name: "the nodeSelector needs equal values",
		spec: &corev1.PodSpec{NodeSelector: map[string]string{"zone": "a"}},
		node: node("node-a", "zone", "b"),
	},
	{
		name: "an empty nodeSelector value needs the label present and empty",
		spec: &corev1.PodSpec{NodeSelector: map[string]string{"zone": ""}},
		node: node("node-a"),
	},
	{
		name: "an empty nodeSelector value matches an empty label",
		spec: &corev1.PodSpec{NodeSelector: map[string]string{"zone": ""}},
		node: node("node-a", "zone", ""),
		want: true,
	},
	{
		name: "an invalid nodeSelector key is not validated, only compared",
		spec: &corev1.PodSpec{NodeSelector: map[string]string{"bad key!": "a"}},
		node: node("node-a", "bad key!", "a"),
		want: true,
	},
	{
		name: "affinity without node affinity matches every node",
		spec: &corev1.PodSpec{Affinity: &corev1.Affinity{PodAffinity: podAffinity()}},
		node: node("node-a"),
		want: true,
	},
	{
		name: "node affinity without required terms matches every node",
		spec: &corev1.PodSpec{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{Weight: 10, Preference: exprTerm(expr("zone", corev1.NodeSelectorOpIn, "b"))}},
		}}},
		node: node("node-a", "zone", "a"),
		want: true,
	},
	{
		name: "required node affinity with no terms matches nothing",
		spec: &corev1.PodSpec{Affinity: terms()},
		node: node("node-a", "zone", "a"),
	},
	{
		name: "an empty term matches nothing",
		spec: &corev1.PodSpec{Affinity: terms(corev1.NodeSelectorTerm{})},
		node: node("node-a", "zone", "a"),
	},
	{
		name: "an empty term does not hide a matching one",
		spec: &corev1.PodSpec{Affinity: terms(corev1.NodeSelectorTerm{}, exprTerm(expr("zone", corev1.NodeSelectorOpExists)))},
		node: node("node-a", "zone", "a"),
		want: true,
	},
	{
		name: "In matches a listed value",
		spec: &corev1.PodSpec{Affinity: terms(exprTerm(expr("zone", corev1.NodeSelectorOpIn, "b", "a")))},
		node: node("node-a", "zone", "a"),
		want: true,
	},
	{
		name: "In needs the label",
		spec: &corev1.PodSpec{Affinity: terms(exprTerm(expr("zone", corev1.NodeSelectorOpIn, "a")))},
		node: node("node-a"),
	},
	{
		name: "NotIn matches a missing label",
		spec: &corev1.PodSpec{Affinity: terms(exprTerm(expr("zone", corev1.NodeSelectorOpNotIn, "a")))},
		node: node("node-a"),
		want: true,
	},
	{
		name: "NotIn rejects a listed value",
		spec: &corev1.PodSpec{Affinity: terms(exprTerm(expr("zone", corev1.NodeSelectorOpNotIn, "a", "b")))},
		node: node("node-a", "zone", "b"),
	},
	{
		name: "DoesNotExist rejects a present label, even an empty one",
		spec: &corev1.PodSpec{Affinity: terms(exprTerm(expr("zone", corev1.NodeSelectorOpDoesNotExist)))},
		node: node("node-a", "zone", ""),
	},
	{
		name: "Gt compares numbers",
		spec: &corev1.PodSpec{Affinity: terms(exprTerm(expr("node-count", corev1.NodeSelectorOpGt, "1")))},
		node: node("node-a", "node-count", "10"),
		want: true,
	},
	{
		name: "Gt is strict",
		spec: &corev1.PodSpec{Affinity: terms(exprTerm(expr("node-count", corev1.NodeSelectorOpGt, "10")))},
		node: node("node-a", "node-count", "10"),
	},
	{
		name: "Lt reads a leading zero and a plus sign as decimal",
		spec: &corev1.PodSpec{Affinity: terms(exprTerm(
			expr("node-count", corev1.NodeSelectorOpLt, "10"),
			expr("gpu", corev1.NodeSelectorOpGt, "1"),
		))},
		node: node("node-a", "node-count", "007", "gpu", "+5"),
		want: true,
	},
	{
		name: "Lt reaches the int64 boundaries",
		spec: &corev1.PodSpec{Affinity: terms(exprTerm(expr("node-count", corev1.NodeSelectorOpLt, "1")))},
		node: node("node-a", "node-count", "-9223372036854775808"), // math.MinInt64
		want: true,
	},
	{
		name: "a negative bound is not a valid label value, so the term is unusable",
		spec: &corev1.PodSpec{Affinity: terms(exprTerm(expr("node-count", corev1.NodeSelectorOpLt, "-3")))},
		node: node("node-a", "node-count", "-9223372036854775808"),
	},
	{
		name: "Gt rejects a label value past the int64 range",
		spec: &corev1.PodSpec{Affinity: terms(exprTerm(expr("node-count", corev1.NodeSelectorOpGt, "1")))},
		node: node("node-a", "node-count", "9223372036854775808"), // math.MaxInt64+1
	},
	{
		name: "Gt rejects a label value that is not a number",
		spec: &corev1.PodSpec{Affinity: terms(exprTerm(expr("node-count", corev1.NodeSelectorOpGt, "1")))},
		node: node("node-a", "node-count", "abc"),
	},
	{
		name: "Gt rejects a missing label",
		spec: &corev1.PodSpec{Affinity: terms(exprTerm(expr("node-count", corev1.NodeSelectorOpGt, "1")))},
		node: node("node-a"),
	},
	{
		name: "a Gt bound that is not a number makes the term unusable",
		spec: &corev1.PodSpec{Affinity: terms(exprTerm(expr("node-count", corev1.NodeSelectorOpGt, "abc")))},
		node: node("node-a", "node-count", "10"),
	},
	{
		name: "an unknown operator makes the term unusable, and the next term still counts",
		spec: &corev1.PodSpec{Affinity: terms(
			exprTerm(expr("zone", "Equals", "a")),
			exprTerm(expr("zone", corev1.NodeSelectorOpIn, "a")),
		)},
		node: node("node-a", "zone", "a"),
		want: true,
	},
	{
		name: "a bad key spoils the whole term, even its matching requirements",
		spec: &corev1.PodSpec{Affinity: terms(exprTerm(
			expr("zone", corev1.NodeSelectorOpIn, "a"),
			expr("bad key!", corev1.NodeSelectorOpDoesNotExist),
		))},
		node: node("node-a", "zone", "a"),
	},
	{
		name: "a bad value spoils the term",
		spec: &corev1.PodSpec{Affinity: terms(exprTerm(expr("zone", corev1.NodeSelectorOpNotIn, "bad value!")))},
		node: node("node-a", "zone", "a"),
	},
	{
		name: "In without values spoils the term",
		spec: &corev1.PodSpec{Affinity: terms(exprTerm(expr("zone", corev1.NodeSelectorOpIn)))},
		node: node("node-a", "zone", "a"),
	},
	{
		name: "Exists with values spoils the term",
		spec: &corev1.PodSpec{Affinity: terms(exprTerm(expr("zone", corev1.NodeSelectorOpExists, "a")))},
		node: node("node-a", "zone", "a"),
	},
	{
		name: "matchFields metadata.name In matches the named node",
		spec: &corev1.PodSpec{Affinity: terms(fieldTerm(expr("metadata.name", corev1.NodeSelectorOpIn, "node-a")))},
		node: node("node-a"),
		want: true,
	},
	{
		name: "matchFields metadata.name In rejects another node",
		spec: &corev1.PodSpec{Affinity: terms(fieldTerm(expr("metadata.name", corev1.NodeSelectorOpIn, "node-a")))},
		node: node("node-b"),
	},
	{
		name: "matchFields are skipped for a node without a name",
		spec: &corev1.PodSpec{Affinity: terms(fieldTerm(expr("metadata.name", corev1.NodeSelectorOpIn, "node-a")))},
		node: node(""),
		want: true,
	},
	{
		name: "matchFields metadata.name NotIn",
		spec: &corev1.PodSpec{Affinity: terms(fieldTerm(expr("metadata.name", corev1.NodeSelectorOpNotIn, "node-a")))},
		node: node("node-b"),
		want: true,
	},
	{
		name: "a field other than metadata.name reads as empty",
		spec: &corev1.PodSpec{Affinity: terms(fieldTerm(expr("spec.nodeName", corev1.NodeSelectorOpIn, "node-a")))},
		node: node("node-a"),
	},
	{
		name: "a field other than metadata.name equals the empty value",
		spec: &corev1.PodSpec{Affinity: terms(fieldTerm(expr("metadata.namespace", corev1.NodeSelectorOpIn, "")))},
		node: node("node-a"),
		want: true,
	},
	{
		name: "matchFields In with two values spoils the term",
		spec: &corev1.PodSpec{Affinity: terms(fieldTerm(expr("metadata.name", corev1.NodeSelectorOpIn, "node-a", "node-b")))},
		node: node("node-a"),
	},
	{
		name: "matchFields with Exists spoils the term, even for a node without a name",
		spec: &corev1.PodSpec{Affinity: terms(fieldTerm(expr("metadata.name", corev1.NodeSelectorOpExists)))},
		node: node(""),
	},
	{
		name: "expressions and fields of one term are ANDed",
		spec: &corev1.PodSpec{Affinity: terms(corev1.NodeSelectorTerm{
			MatchExpressions: []corev1.NodeSelectorRequirement{expr("zone", corev1.NodeSelectorOpIn, "a")},
			MatchFields:      []corev1.NodeSelectorRequirement{expr("metadata.name", corev1.NodeSelectorOpIn, "node-a")},
		})},
		node: node("node-b", "zone", "a"),
	},
	{
		name: "the nodeSelector must match even when the affinity does",
		spec: &corev1.PodSpec{
			NodeSelector: map[string]string{"zone": "b"},
			Affinity:     terms(fieldTerm(expr("metadata.name", corev1.NodeSelectorOpIn, "node-a"))),
		},
		node: node("node-a", "zone", "a"),
	},
	{
		name: "the nodeSelector and a matching term together match",
		spec: &corev1.PodSpec{
			NodeSelector: map[string]string{"zone": "a"},
			Affinity: terms(
				exprTerm(expr("gpu", corev1.NodeSelectorOpExists)),
				fieldTerm(expr("metadata.name", corev1.NodeSelectorOpIn, "node-a")),
			),
		},
		node: node("node-a", "zone", "a"),
		want: true,
	},
}

func TestNodeMatcherMatch(t *testing.T) {
	for _, tt := range matchCases {
		t.Run(tt.name, func(t *testing.T) {
			if got := affinity.NewNodeMatcher(tt.spec).Match(tt.node); got != tt.want {
				t.Errorf("Match() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNodeMatcherZeroValue(t *testing.T) {
	var zero affinity.NodeMatcher
	var nilMatcher *affinity.NodeMatcher
	for _, m := range []*affinity.NodeMatcher{&zero, nilMatcher} {
		if !m.Match(node("node-a", "zone", "a")) {
			t.Errorf("%#v.Match(named node) = false, want true", m)
		}
		if !m.Match(&corev1.Node{}) {
			t.Errorf("%#v.Match(empty node) = false, want true", m)
		}
		if m.Match(nil) {
			t.Errorf("%#v.Match(nil) = true, want false", m)
		}
		if err := m.Err(); err != nil {
			t.Errorf("%#v.Err() = %v, want nil", m, err)
		}
	}
}

// TestNewNodeMatcherDoesNotModifyOrRetainSpec checks both halves of the
// contract: compiling leaves the spec unchanged, and later edits to the
// spec do not reach the matcher.
func TestNewNodeMatcherDoesNotModifyOrRetainSpec(t *testing.T) {
	for _, tt := range matchCases {
		if tt.spec == nil || tt.node == nil {
			continue
		}
		t.Run(tt.name, func(t *testing.T) {
			spec := tt.spec.DeepCopy()
			m := affinity.NewNodeMatcher(spec)
			if diff := cmp.Diff(tt.spec, spec); diff != "" {
				t.Fatalf("NewNodeMatcher modified the spec (-want +got):\n%s", diff)
			}
			n := tt.node.DeepCopy()
			m.Match(n)
			if diff := cmp.Diff(tt.node, n); diff != "" {
				t.Fatalf("Match modified the node (-want +got):\n%s", diff)
			}
			scribble(spec)
			if got := m.Match(tt.node); got != tt.want {
				t.Errorf("after editing the spec, Match() = %v, want %v", got, tt.want)
			}
		})
	}
}

// scribble overwrites every string of spec's nodeSelector and required
// terms in place, through the maps and slices a matcher might retain.
func scribble(spec *corev1.PodSpec) {
	for k := range spec.NodeSelector {
		spec.NodeSelector[k] = "scribbled"
	}
	if spec.Affinity == nil || spec.Affinity.NodeAffinity == nil || spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return
	}
	ts := spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	for i := range ts {
		for _, reqs := range [][]corev1.NodeSelectorRequirement{ts[i].MatchExpressions, ts[i].MatchFields} {
			for j := range reqs {
				reqs[j].Key = "scribbled"
				for k := range reqs[j].Values {
					reqs[j].Values[k] = "scribbled"
				}
			}
		}
	}
}

// fieldErr is the part of a field.Error a test pins: the message wording
// belongs to component-helpers and apimachinery.
type fieldErr struct {
	Type  field.ErrorType
	Field string
}

func fieldErrs(t *testing.T, err error) []fieldErr {
	t.Helper()
	if err == nil {
		return nil
	}
	var agg utilerrors.Aggregate
	if !errors.As(err, &agg) {
		t.Fatalf("Err() = %T, want a utilerrors.Aggregate", err)
	}
	var out []fieldErr
	for _, e := range agg.Errors() {
		var fe *field.Error
		if !errors.As(e, &fe) {
			t.Fatalf("aggregated error %T (%v) is not a *field.Error", e, e)
		}
		out = append(out, fieldErr{Type: fe.Type, Field: fe.Field})
	}
	return out
}

const reqPath = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"

func TestNodeMatcherErr(t *testing.T) {
	tests := []struct {
		name string
		spec *corev1.PodSpec
		want []fieldErr
	}{
		{name: "a nil spec has no errors"},
		{
			name: "a bad nodeSelector is not an error: it is never parsed",
			spec: &corev1.PodSpec{NodeSelector: map[string]string{"bad key!": "bad value!"}},
		},
		{
			name: "valid terms have no errors",
			spec: &corev1.PodSpec{Affinity: terms(
				exprTerm(expr("zone", corev1.NodeSelectorOpIn, "a")),
				fieldTerm(expr("metadata.name", corev1.NodeSelectorOpNotIn, "node-a")),
			)},
		},
		{
			name: "empty terms are skipped, not errors",
			spec: &corev1.PodSpec{Affinity: terms(corev1.NodeSelectorTerm{}, corev1.NodeSelectorTerm{})},
		},
		{
			name: "an unknown operator names its term and requirement",
			spec: &corev1.PodSpec{Affinity: terms(
				exprTerm(expr("zone", corev1.NodeSelectorOpIn, "a")),
				exprTerm(expr("zone", corev1.NodeSelectorOpIn, "a"), expr("zone", "in", "a")),
			)},
			want: []fieldErr{{field.ErrorTypeNotSupported, reqPath + ".nodeSelectorTerms[1].matchExpressions[1].operator"}},
		},
		{
			name: "errors of several terms are flattened in order",
			spec: &corev1.PodSpec{Affinity: terms(
				exprTerm(expr("bad key!", corev1.NodeSelectorOpExists)),
				corev1.NodeSelectorTerm{},
				corev1.NodeSelectorTerm{
					MatchExpressions: []corev1.NodeSelectorRequirement{expr("node-count", corev1.NodeSelectorOpGt, "abc")},
					MatchFields:      []corev1.NodeSelectorRequirement{expr("metadata.name", corev1.NodeSelectorOpIn, "node-a", "node-b"), expr("metadata.name", corev1.NodeSelectorOpExists)},
				},
			)},
			want: []fieldErr{
				{field.ErrorTypeInvalid, reqPath + ".nodeSelectorTerms[0].matchExpressions[0].key"},
				{field.ErrorTypeInvalid, reqPath + ".nodeSelectorTerms[2].matchExpressions[0].values[0]"},
				{field.ErrorTypeInvalid, reqPath + ".nodeSelectorTerms[2].matchFields[0].values"},
				{field.ErrorTypeNotSupported, reqPath + ".nodeSelectorTerms[2].matchFields[1].operator"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fieldErrs(t, affinity.NewNodeMatcher(tt.spec).Err())
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Err() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// issueFixture is the allocation budget's fixture: a DaemonSet template
// with a nodeSelector and a two-term required affinity, and a node with ten
// labels and two taints.
func issueFixture() (*corev1.PodSpec, *corev1.Node) {
	spec := &corev1.PodSpec{
		NodeSelector: map[string]string{"kubernetes.io/os": "linux", "example.com/pool": "infra"},
		Affinity: terms(
			corev1.NodeSelectorTerm{
				MatchExpressions: []corev1.NodeSelectorRequirement{
					expr("topology.kubernetes.io/zone", corev1.NodeSelectorOpIn, "zone-a", "zone-b"),
					expr("example.com/cores", corev1.NodeSelectorOpGt, "4"),
				},
			},
			corev1.NodeSelectorTerm{
				MatchExpressions: []corev1.NodeSelectorRequirement{expr("example.com/legacy", corev1.NodeSelectorOpDoesNotExist)},
				MatchFields:      []corev1.NodeSelectorRequirement{expr("metadata.name", corev1.NodeSelectorOpNotIn, "node-7")},
			},
		),
	}
	n := node("node-42",
		"kubernetes.io/os", "linux",
		"kubernetes.io/arch", "amd64",
		"kubernetes.io/hostname", "node-42",
		"example.com/pool", "infra",
		"example.com/cores", "many", // not a number: the Gt requirement fails
		"example.com/rack", "r12",
		"topology.kubernetes.io/zone", "zone-c",
		"topology.kubernetes.io/region", "region-1",
		"node.kubernetes.io/instance-type", "m5.large",
		"example.com/team", "platform",
	)
	n.Spec.Taints = []corev1.Taint{
		{Key: "example.com/dedicated", Value: "infra", Effect: corev1.TaintEffectNoSchedule},
		{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule},
	}
	return spec, n
}

func TestNodeMatcherAllocs(t *testing.T) {
	spec, n := issueFixture()
	m := affinity.NewNodeMatcher(spec)
	if !m.Match(n) {
		t.Fatalf("fixture: Match() = false, want true (second term)")
	}
	other := n.DeepCopy()
	other.Labels["example.com/cores"] = "8"
	other.Labels["topology.kubernetes.io/zone"] = "zone-a"
	miss := n.DeepCopy()
	miss.Labels["example.com/legacy"] = "true"
	for _, fx := range []struct {
		name string
		node *corev1.Node
	}{
		{"second term matches, first fails on a non-numeric label", n},
		{"first term matches", other},
		{"no term matches", miss},
		{"nodeSelector fails", node("node-1")},
	} {
		allocs := testing.AllocsPerRun(100, func() { m.Match(fx.node) })
		// Budget: zero allocations per node.
		if allocs != 0 {
			t.Errorf("%s: Match allocates %v times per call, want 0", fx.name, allocs)
		}
	}
}
