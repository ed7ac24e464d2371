package daemon

import (
	"cmp"
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// CompareNodes orders two nodes as the policy's Order does (see
// UpdateOrder): negative when a is updated first. A nil node (a missing
// node) goes after every node; two nil nodes tie.
func (p *RolloutPolicy) CompareNodes(a, b *corev1.Node) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	if k := p.Order.Label; k != "" {
		if c := cmp.Compare(p.labelRank(a), p.labelRank(b)); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Labels[k], b.Labels[k]); c != 0 {
			return c
		}
	}
	if p.Order.Compare != nil {
		if c := p.Order.Compare(a, b); c != 0 {
			return c
		}
	}
	return cmp.Compare(a.Name, b.Name)
}

// labelRank is the rank of n's order-label value: its index in Values,
// len(Values) for another value, len(Values)+1 without the label.
func (p *RolloutPolicy) labelRank(n *corev1.Node) int {
	v, ok := n.Labels[p.Order.Label]
	if !ok {
		return len(p.Order.Values) + 1
	}
	if i := slices.Index(p.Order.Values, v); i >= 0 {
		return i
	}
	return len(p.Order.Values)
}

// compareWaves orders two nodes by their order-label rank and value only.
func (p *RolloutPolicy) compareWaves(a, b *corev1.Node) int {
	if a == nil || b == nil {
		return 0
	}
	k := p.Order.Label
	return cmp.Or(cmp.Compare(p.labelRank(a), p.labelRank(b)), cmp.Compare(a.Labels[k], b.Labels[k]))
}

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}
