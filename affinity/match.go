package affinity

import (
	corev1 "k8s.io/api/core/v1"
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

// rawTermMatches evaluates a term as written, without checking that its keys
// and values are valid; its answer only counts for a term that is (see
// MatchNode).
func rawTermMatches(t *corev1.NodeSelectorTerm, node *corev1.Node) bool {
	for _, e := range t.MatchExpressions {
		r, ok := parseLabelReq(e)
		if !ok || !r.match(node.Labels) {
			return false
		}
	}
	if node.Name == "" {
		return true // see term.match
	}
	for _, f := range t.MatchFields {
		r, ok := parseFieldReq(f)
		if !ok || !r.holds(node.Name) {
			return false
		}
	}
	return true
}

// rawTermValid reports whether a term parses, by the rules of compileTerm.
func rawTermValid(t *corev1.NodeSelectorTerm) bool {
	for _, e := range t.MatchExpressions {
		r, ok := parseLabelReq(e)
		if !ok || !validRequirement(e.Key, r.op, e.Values) {
			return false
		}
	}
	for _, f := range t.MatchFields {
		if _, ok := parseFieldReq(f); !ok {
			return false
		}
	}
	return true
}
