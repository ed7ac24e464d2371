// Package affinity binds DaemonSet pods to nodes and decides whether a node
// satisfies a pod template's nodeSelector and required node affinity. It
// performs no I/O.
//
// # Binding
//
// A daemon pod is bound to its node through its required node affinity:
// ReplaceDaemonSetPodNodeNameNodeAffinity writes the single term
// "metadata.name In [node]" (into a copy; the argument is never modified),
// and GetTargetNodeName reads the node back from spec.nodeName or from that
// term. Their results are those of the kube-controller-manager helpers of
// the same names.
//
// # Matching
//
// A DaemonSet controller asks "does this template fit this node?" once per
// node of the cluster, for every DaemonSet, on every sync. component-helpers'
// nodeaffinity.GetRequiredNodeAffinity answers it, but its Match builds a
// field set (a map) for every node, and upstream's controller even re-parses
// the affinity per node. NodeMatcher splits the work instead: NewNodeMatcher
// parses and validates the nodeSelector and the required terms once, and
// Match then decides per node with map lookups and string comparisons only,
// allocating nothing. For a single node, MatchNode gives the same verdict
// without compiling: it validates only a term that matches. Both hold to a
// budget of zero allocations per call (TestNodeMatcherAllocs).
//
// Validation accepts exactly what apimachinery's labels.NewRequirement
// accepts, the validator component-helpers uses. apimachinery checks label
// syntax with regular expressions, which cost microseconds per requirement;
// here a scanner gives the same answer without allocating, and
// TestValidatorAgreesWithLabels and FuzzValidRequirement hold it to
// apimachinery's answers.
//
// The semantics are component-helpers', quirks included: a term that fails
// to parse never matches (the controller ignores the parse errors, which Err
// reports), an empty term matches nothing, and a node without a name skips
// the matchFields requirements. A differential fuzz test (FuzzNodeMatcher,
// also run on pseudo-random inputs by every go test) checks that Match and
// component-helpers agree on every generated spec and node.
//
// # Explaining, and sets of nodes
//
// NodeMatcher.Explain says why a node does not match: the nodeSelector key,
// or each required term's first failing requirement (or that the term is
// empty or did not parse). NodeMatcher.Unsatisfiable reports requirements
// that parse but can never match any node (a DoesNotExist next to an Exists
// on one key, Gt and Lt with no integer between, a matchFields key a node
// does not have, ...), where Err stays nil.
//
// A NodeSet (NewNodeSet) describes nodes that do not exist yet, as an
// autoscaler's node group does: fixed labels, requirements on others, and
// whether other labels may appear. NodeMatcher.MatchSet answers Always,
// Never or Sometimes for the whole set without allocating (the zero Truth
// is Unknown, no answer); Always and Never are exact (the same answer as
// Match on every node of the set), which a property test in package
// daemon/whatif checks on generated nodes.
package affinity
