package affinity_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

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
			if got := affinity.MatchNode(tt.spec, tt.node); got != tt.want {
				t.Errorf("MatchNode() = %v, want %v", got, tt.want)
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
