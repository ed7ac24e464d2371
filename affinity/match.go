package affinity

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/selection"
)

// MatchNode reports whether node satisfies spec's nodeSelector and required
// node affinity, with the verdict of NewNodeMatcher(spec).Match(node), for
// a single node: it compiles nothing and does not allocate. It evaluates
// each term against the node first and checks that the term parses only
// when it matches, since a term that does not parse never matches. To judge
// many nodes against one spec, compile a NodeMatcher once instead. A nil
// node never matches; a nil spec matches every node. It modifies nothing.
func MatchNode(spec *corev1.PodSpec, node *corev1.Node) bool {
	if node == nil {
		return false
	}
	if spec == nil {
		return true
	}
	for k, v := range spec.NodeSelector {
		if got, ok := node.Labels[k]; !ok || got != v {
			return false
		}
	}
	a := spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return true
	}
	terms := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	for i := range terms {
		t := &terms[i]
		if len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0 {
			continue // an empty term matches nothing
		}
		if rawTermMatches(t, node) && rawTermValid(t) {
			return true
		}
	}
	return false
}

// rawTermMatches evaluates a term as written, without checking that it
// parses; its answer only counts for a term that does (see MatchNode).
func rawTermMatches(t *corev1.NodeSelectorTerm, node *corev1.Node) bool {
	for _, e := range t.MatchExpressions {
		op, ok := labelOperator(e.Operator)
		if !ok {
			return false
		}
		r := labelReq{key: e.Key, op: op, values: e.Values} // read only
		if op == selection.GreaterThan || op == selection.LessThan {
			if len(e.Values) != 1 {
				return false
			}
			if r.bound, ok = parseInt64(e.Values[0]); !ok {
				return false
			}
		}
		if !r.match(node.Labels) {
			return false
		}
	}
	if node.Name == "" {
		return true // see term.match
	}
	for _, f := range t.MatchFields {
		if len(f.Values) != 1 || (f.Operator != corev1.NodeSelectorOpIn && f.Operator != corev1.NodeSelectorOpNotIn) {
			return false
		}
		r := fieldReq{key: f.Key, value: f.Values[0], notIn: f.Operator == corev1.NodeSelectorOpNotIn}
		if !r.holds(node.Name) {
			return false
		}
	}
	return true
}

// rawTermValid reports whether a term parses, by the rules of compileTerm.
func rawTermValid(t *corev1.NodeSelectorTerm) bool {
	for _, e := range t.MatchExpressions {
		op, ok := labelOperator(e.Operator)
		if !ok || !validRequirement(e.Key, op, e.Values) {
			return false
		}
	}
	for _, f := range t.MatchFields {
		if len(f.Values) != 1 || (f.Operator != corev1.NodeSelectorOpIn && f.Operator != corev1.NodeSelectorOpNotIn) {
			return false
		}
	}
	return true
}
