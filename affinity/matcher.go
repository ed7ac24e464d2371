package affinity

import (
	corev1 "k8s.io/api/core/v1"
)

// NodeMatcher decides whether a node satisfies a pod spec's nodeSelector and
// required node affinity (requiredDuringSchedulingIgnoredDuringExecution),
// with the semantics of component-helpers' nodeaffinity.GetRequiredNodeAffinity:
// the nodeSelector must match the node labels exactly, and at least one
// non-empty term must match (terms are ORed; within a term, matchExpressions
// and matchFields are ANDed; matchFields only see metadata.name).
//
// It is compiled once by NewNodeMatcher and then matched per node without
// parsing or allocating. A NodeMatcher is immutable and safe for concurrent
// use. Its zero value matches every node.
type NodeMatcher struct {
	// unexported compiled form
}

// NewNodeMatcher compiles spec.NodeSelector and the required node affinity
// of spec.Affinity. Like upstream's DaemonSet controller, it is lenient: a
// term that fails to parse (an unknown operator, a bad key or value, a Gt
// whose value is not an integer, a matchFields In without exactly one value,
// ...) never matches, and the other terms still count. Err reports such
// parse errors. It does not keep references into spec. A nil spec gives a
// matcher that matches every node.
func NewNodeMatcher(spec *corev1.PodSpec) *NodeMatcher {
	panic("unimplemented")
}

// Match reports whether node satisfies the compiled nodeSelector and
// required node affinity. A nil node never matches. It does not allocate.
func (m *NodeMatcher) Match(node *corev1.Node) bool {
	panic("unimplemented")
}

// Err returns the parse errors of the required node affinity, as
// field errors at paths such as
// spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[1].matchExpressions[0].operator,
// aggregated; nil when every term parsed. Matching ignores these errors
// (see NewNodeMatcher); callers that want to explain a verdict can show them.
func (m *NodeMatcher) Err() error {
	panic("unimplemented")
}
