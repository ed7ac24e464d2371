package daemon

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/rollout"
)

// WaveOf returns the name of the wave node n belongs to under p's order
// label, unless it is in the canary (whose nodes form the wave
// CanaryWave; see CanaryNodes, and NodeStanding.Wave, which is either):
// "<label>=<value>" for a node with the label, "!<label>" for a node
// without it and for nil (a missing node): the label selector that picks
// the wave's nodes. Without Order.Label it is RestWave when p has a
// Canary, "" otherwise. It does not need Waves set, so that a rollout's
// waves can be shown before it starts. The names of a plan's waves
// (rollout.WaveProgress.Name, Standing.Waves) are these and CanaryWave.
func (p *RolloutPolicy) WaveOf(n *corev1.Node) string {
	k := p.Order.Label
	if k == "" {
		if p.Canary != nil {
			return RestWave
		}
		return ""
	}
	if n != nil {
		if v, ok := n.Labels[k]; ok {
			return k + "=" + v
		}
	}
	return "!" + k
}

// barrier reports whether p puts a wave barrier on the step: Waves or a
// Canary.
func (p *RolloutPolicy) barrier() bool { return p.Waves != nil || p.Canary != nil }

// waves numbers the waves of the nodes idx lists, in update order (node
// gives a node's rollout.Node and object, nil for a missing node; canary
// whether it is in the canary, which goes first), on each node's Wave,
// and returns the step's barrier with the waves' names.
func (p *RolloutPolicy) waves(idx []int, node func(int) (*rollout.Node, *corev1.Node), canary func(int) bool) *rollout.WaveBarrier {
	b := &rollout.WaveBarrier{}
	if p.Waves != nil {
		b.Bake = p.Waves.Bake
	}
	k := p.Order.Label
	var lastValue string
	lastLabelled, lastCanary := false, false
	for j, i := range idx {
		n, obj := node(i)
		var v string
		labelled, inCanary := false, canary(i)
		if obj != nil && k != "" {
			v, labelled = obj.Labels[k]
		}
		if j == 0 || inCanary != lastCanary || !inCanary && (labelled != lastLabelled || v != lastValue) {
			name := CanaryWave
			if !inCanary {
				name = p.WaveOf(obj)
			}
			b.Names = append(b.Names, name)
			lastValue, lastLabelled, lastCanary = v, labelled, inCanary
		}
		n.Wave = int32(len(b.Names) - 1)
	}
	return b
}
