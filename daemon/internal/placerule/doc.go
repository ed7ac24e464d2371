// Package placerule is upstream's placement rule order, written once: the
// template's nodeName, then its nodeSelector and required node affinity,
// then the taints, the first check that fails deciding, and among the
// taints an untolerated NoExecute one before a NoSchedule one. Each check
// is three-valued (affinity.Truth): Always and Never for a node, and also
// Sometimes when the checks judge a set of nodes (a node template that
// leaves a label value or the name open). It decides nothing else: the
// daemon/eligibility package applies it to one node (eligibility.Check) and
// daemon/whatif to a node template (whatif.CompiledTemplate.PlacementFor),
// so that the two agree by construction. It performs no I/O and allocates
// nothing.
package placerule
