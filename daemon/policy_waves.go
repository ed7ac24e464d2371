package daemon

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/rollout"
)

// WaveOf returns the name of the wave node n belongs to under p's order
// label, "" when p has no Order.Label: "<label>=<value>" for a node with
// the label, "!<label>" for a node without it and for nil (a missing
// node): the label selector that picks the wave's nodes. It does not need
// Waves set, so that a rollout's waves can be shown before it starts. The
// names of a plan's waves (rollout.WaveProgress.Name) are these.
func (p *RolloutPolicy) WaveOf(n *corev1.Node) string {
	k := p.Order.Label
	if k == "" {
		return ""
	}
	if n != nil {
		if v, ok := n.Labels[k]; ok {
			return k + "=" + v
		}
	}
	return "!" + k
}

// waves numbers the waves of the nodes idx lists, in update order (node
// gives a node's rollout.Node and object, nil for a missing node), on each
// node's Wave, and returns the step's barrier with the waves' names.
func (p *RolloutPolicy) waves(idx []int, node func(int) (*rollout.Node, *corev1.Node)) *rollout.WaveBarrier {
	b := &rollout.WaveBarrier{Bake: p.Waves.Bake}
	k := p.Order.Label
	var lastValue string
	lastLabelled := false
	for j, i := range idx {
		n, obj := node(i)
		var v string
		labelled := false
		if obj != nil {
			v, labelled = obj.Labels[k]
		}
		if j == 0 || labelled != lastLabelled || v != lastValue {
			b.Names = append(b.Names, p.WaveOf(obj))
			lastValue, lastLabelled = v, labelled
		}
		n.Wave = int32(len(b.Names) - 1)
	}
	return b
}
