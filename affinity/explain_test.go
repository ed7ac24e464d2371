package affinity_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/affinity"
)

func TestNodeMatcherExplain(t *testing.T) {
	spec := &corev1.PodSpec{
		NodeSelector: map[string]string{"kubernetes.io/os": "linux", "b-pool": "infra"},
		Affinity: terms(
			exprTerm(expr("zone", corev1.NodeSelectorOpIn, "a"), expr("cores", corev1.NodeSelectorOpGt, "4")),
			corev1.NodeSelectorTerm{},
			exprTerm(expr("x", "Bogus", "y")),
			corev1.NodeSelectorTerm{
				MatchExpressions: []corev1.NodeSelectorRequirement{expr("legacy", corev1.NodeSelectorOpDoesNotExist)},
				MatchFields:      []corev1.NodeSelectorRequirement{expr("metadata.name", corev1.NodeSelectorOpIn, "node-7")},
			},
		),
	}
	m := affinity.NewNodeMatcher(spec)
	tests := []struct {
		name      string
		node      *corev1.Node
		want      affinity.Mismatch
		wantMatch bool
	}{
		{name: "a nil node matches nothing", node: nil},
		{name: "the first failing nodeSelector key in key order", node: node("n", "kubernetes.io/os", "windows"), want: affinity.Mismatch{NodeSelector: true, NodeSelectorKey: "b-pool"}},
		{name: "a wrong nodeSelector value", node: node("n", "b-pool", "infra", "kubernetes.io/os", "windows"), want: affinity.Mismatch{NodeSelector: true, NodeSelectorKey: "kubernetes.io/os"}},
		{
			name: "every term with its first failing requirement",
			node: node("n", "b-pool", "infra", "kubernetes.io/os", "linux", "zone", "a", "cores", "2"),
			want: affinity.Mismatch{Terms: []affinity.TermMismatch{
				{Term: 0, Reason: affinity.TermUnmatched, Requirement: 1, Key: "cores"},
				{Term: 1, Reason: affinity.TermEmpty, Requirement: -1},
				{Term: 2, Reason: affinity.TermInvalid, Requirement: -1},
				{Term: 3, Reason: affinity.TermUnmatched, Requirement: 0, Field: true, Key: "metadata.name"},
			}},
		},
		{name: "a matching term", node: node("node-7", "b-pool", "infra", "kubernetes.io/os", "linux"), wantMatch: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := m.Explain(tt.node)
			if ok != tt.wantMatch || ok != m.Match(tt.node) {
				t.Errorf("Explain() match = %v, want %v (Match says %v)", ok, tt.wantMatch, m.Match(tt.node))
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Explain() (-want +got):\n%s", diff)
			}
			if ok != got.IsZero() && tt.node != nil {
				t.Errorf("IsZero() = %v, match %v", got.IsZero(), ok)
			}
		})
	}
}

func TestNodeMatcherExplainDoesNotAllocateOnMatch(t *testing.T) {
	spec, n := issueFixture()
	m := affinity.NewNodeMatcher(spec)
	if allocs := testing.AllocsPerRun(100, func() { m.Explain(n) }); allocs > 1 {
		t.Errorf("Explain() allocates %v times, want at most 1 (the term list)", allocs)
	}
	fits := node("node-1", "kubernetes.io/os", "linux", "example.com/pool", "infra", "topology.kubernetes.io/zone", "zone-a", "example.com/cores", "8")
	if allocs := testing.AllocsPerRun(100, func() { m.Explain(fits) }); allocs != 0 {
		t.Errorf("Explain() on a matching node allocates %v times, want 0", allocs)
	}
}

func TestNodeMatcherUnsatisfiable(t *testing.T) {
	tests := []struct {
		name string
		spec *corev1.PodSpec
		want []fieldErr
	}{
		{name: "a nil spec"},
		{name: "satisfiable terms", spec: &corev1.PodSpec{Affinity: terms(
			exprTerm(expr("zone", corev1.NodeSelectorOpIn, "a", "b"), expr("zone", corev1.NodeSelectorOpNotIn, "a")),
			exprTerm(expr("cores", corev1.NodeSelectorOpGt, "4"), expr("cores", corev1.NodeSelectorOpLt, "6")),
		)}},
		{
			name: "a nodeSelector value no label can hold",
			spec: &corev1.PodSpec{NodeSelector: map[string]string{"pool": "has space"}},
			want: []fieldErr{{Type: "FieldValueInvalid", Field: "spec.nodeSelector[pool]"}},
		},
		{
			name: "DoesNotExist with Exists on one key, and then no term left",
			spec: &corev1.PodSpec{Affinity: terms(exprTerm(expr("gpu", corev1.NodeSelectorOpExists), expr("gpu", corev1.NodeSelectorOpDoesNotExist)))},
			want: []fieldErr{
				{Type: "FieldValueInvalid", Field: reqPath + ".nodeSelectorTerms[0].matchExpressions[0].key"},
				{Type: "FieldValueInvalid", Field: reqPath + ".nodeSelectorTerms"},
			},
		},
		{
			name: "disjoint In values; another term still possible",
			spec: &corev1.PodSpec{Affinity: terms(
				exprTerm(expr("zone", corev1.NodeSelectorOpIn, "a"), expr("zone", corev1.NodeSelectorOpIn, "b")),
				exprTerm(expr("zone", corev1.NodeSelectorOpIn, "a")),
			)},
			want: []fieldErr{{Type: "FieldValueInvalid", Field: reqPath + ".nodeSelectorTerms[0].matchExpressions[0].key"}},
		},
		{
			name: "NotIn rejecting every In value",
			spec: &corev1.PodSpec{Affinity: terms(
				exprTerm(expr("zone", corev1.NodeSelectorOpIn, "a"), expr("zone", corev1.NodeSelectorOpNotIn, "a")),
				exprTerm(expr("x", corev1.NodeSelectorOpExists)),
			)},
			want: []fieldErr{{Type: "FieldValueInvalid", Field: reqPath + ".nodeSelectorTerms[0].matchExpressions[0].key"}},
		},
		{
			name: "Gt 4 and Lt 5 leave no integer", // 4 < n < 5
			spec: &corev1.PodSpec{Affinity: terms(
				exprTerm(expr("cores", corev1.NodeSelectorOpGt, "4"), expr("cores", corev1.NodeSelectorOpLt, "5")),
				exprTerm(expr("x", corev1.NodeSelectorOpExists)),
			)},
			want: []fieldErr{{Type: "FieldValueInvalid", Field: reqPath + ".nodeSelectorTerms[0].matchExpressions[0].key"}},
		},
		{
			name: "matchFields on a field a node does not have, and two node names",
			spec: &corev1.PodSpec{Affinity: terms(
				fieldTerm(expr("spec.unschedulable", corev1.NodeSelectorOpIn, "false")),
				fieldTerm(expr("metadata.name", corev1.NodeSelectorOpIn, "a"), expr("metadata.name", corev1.NodeSelectorOpIn, "b")),
			)},
			want: []fieldErr{
				{Type: "FieldValueInvalid", Field: reqPath + ".nodeSelectorTerms[0].matchFields[0].key"},
				{Type: "FieldValueInvalid", Field: reqPath + ".nodeSelectorTerms[1].matchFields[1].values"},
				{Type: "FieldValueInvalid", Field: reqPath + ".nodeSelectorTerms"},
			},
		},
		{
			name: "only empty terms",
			spec: &corev1.PodSpec{Affinity: terms(corev1.NodeSelectorTerm{})},
			want: []fieldErr{{Type: "FieldValueInvalid", Field: reqPath + ".nodeSelectorTerms"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fieldErrs(t, affinity.NewNodeMatcher(tt.spec).Unsatisfiable())
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Unsatisfiable() (-want +got):\n%s", diff)
			}
		})
	}
	var nilMatcher *affinity.NodeMatcher
	if err := nilMatcher.Unsatisfiable(); err != nil {
		t.Errorf("nil matcher: Unsatisfiable() = %v", err)
	}
}
