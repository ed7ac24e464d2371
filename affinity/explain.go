package affinity

import (
	corev1 "k8s.io/api/core/v1"
)

// Mismatch says why a node does not satisfy a NodeMatcher: the nodeSelector
// key that failed, or else why each required term failed. Its zero value
// means the node matches.
type Mismatch struct {
	// NodeSelector: the nodeSelector does not match; NodeSelectorKey
	// names the key.
	NodeSelector bool
	// NodeSelectorKey is the first nodeSelector key, in key order, that
	// the node lacks or holds with another value. The terms are not
	// evaluated when the nodeSelector fails.
	NodeSelectorKey string
	// Terms holds, for every required node-selector term, in spec order,
	// why it does not match the node. Empty when the nodeSelector failed,
	// when there is no required node affinity, or when a term matched.
	Terms []TermMismatch
	// NoTerms: the required node affinity has no term at all, so it
	// matches no node.
	NoTerms bool
}

// IsZero reports whether m records no mismatch.
func (m Mismatch) IsZero() bool { return !m.NodeSelector && len(m.Terms) == 0 && !m.NoTerms }

// TermMismatchReason says why one required term does not match a node.
type TermMismatchReason string

// The reasons a required term does not match a node.
const (
	// TermEmpty: the term has no requirement; an empty term matches
	// nothing.
	TermEmpty TermMismatchReason = "Empty"
	// TermInvalid: the term does not parse (see NodeMatcher.Err) and never
	// matches.
	TermInvalid TermMismatchReason = "Invalid"
	// TermUnmatched: the requirement named by the TermMismatch fails on the
	// node.
	TermUnmatched TermMismatchReason = "Unmatched"
)

// TermMismatch is why one required term does not match a node.
type TermMismatch struct {
	// Term is the term's index in nodeSelectorTerms.
	Term   int
	Reason TermMismatchReason
	// For TermUnmatched, the first failing requirement: its index in
	// matchFields when Field is true, else in matchExpressions, and its
	// key. -1 and "" for the other reasons.
	Requirement int
	Field       bool
	Key         string
}

// Explain returns why node does not satisfy the matcher, and whether it
// does: the zero Mismatch and true when Match(node) is true. It allocates
// only to list the failing terms. A nil node gives the zero Mismatch and
// false; a nil matcher matches every node.
func (m *NodeMatcher) Explain(node *corev1.Node) (Mismatch, bool) {
	if node == nil {
		return Mismatch{}, false
	}
	if m == nil {
		return Mismatch{}, true
	}
	for _, p := range m.selector {
		if v, ok := node.Labels[p.key]; !ok || v != p.value {
			return Mismatch{NodeSelector: true, NodeSelectorKey: p.key}, false
		}
	}
	if !m.hasAffinity {
		return Mismatch{}, true
	}
	for i := range m.terms {
		if m.terms[i].match(node) {
			return Mismatch{}, true
		}
	}
	if len(m.terms)+len(m.skipped) == 0 {
		return Mismatch{NoTerms: true}, false
	}
	out := make([]TermMismatch, 0, len(m.terms)+len(m.skipped))
	t, s := 0, 0
	for t < len(m.terms) || s < len(m.skipped) {
		if s < len(m.skipped) && (t == len(m.terms) || m.skipped[s].index < m.terms[t].index) {
			tm := TermMismatch{Term: m.skipped[s].index, Reason: TermEmpty, Requirement: -1}
			if m.skipped[s].invalid {
				tm.Reason = TermInvalid
			}
			out = append(out, tm)
			s++
			continue
		}
		out = append(out, m.terms[t].explain(node))
		t++
	}
	return Mismatch{Terms: out}, false
}

// explain names the first requirement of t that node fails; t must not
// match node.
func (t *term) explain(node *corev1.Node) TermMismatch {
	for i := range t.labels {
		if !t.labels[i].match(node.Labels) {
			return TermMismatch{Term: t.index, Reason: TermUnmatched, Requirement: t.labels[i].index, Key: t.labels[i].key}
		}
	}
	for _, f := range t.fields {
		if !f.holds(node.Name) {
			return TermMismatch{Term: t.index, Reason: TermUnmatched, Requirement: f.index, Field: true, Key: f.key}
		}
	}
	return TermMismatch{Term: t.index, Reason: TermUnmatched, Requirement: -1}
}
