package daemon

import (
	"cmp"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/rollout"
)

// WaveBarrier is rollout.WaveBarrier, the one wave barrier (see
// RolloutPolicy.Waves).
//
// Deprecated: use rollout.WaveBarrier; this alias goes.
type WaveBarrier = rollout.WaveBarrier

// Wave is one wave of nodes under RolloutPolicy.Waves.
type Wave struct {
	// Name is WaveOf of its nodes.
	Name string
	// Nodes are the names of the wave's nodes, in update order.
	Nodes []string
}

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

// WavesOf groups nodes into the waves of p's order label, in the order
// they are started, each wave's nodes in update order (CompareNodes, then
// name): the waves a rollout under p would go through, before it starts.
// Pass the nodes that should run the pod. nil entries are skipped. It
// returns nil when p has no Order.Label, and modifies nothing.
func (p *RolloutPolicy) WavesOf(nodes []*corev1.Node) []Wave {
	if p.Order.Label == "" {
		return nil
	}
	sorted := slices.DeleteFunc(slices.Clone(nodes), func(n *corev1.Node) bool { return n == nil })
	slices.SortStableFunc(sorted, func(a, b *corev1.Node) int { return cmp.Or(p.CompareNodes(a, b), cmp.Compare(a.Name, b.Name)) })
	var waves []Wave
	for _, n := range sorted {
		name := p.WaveOf(n)
		if len(waves) == 0 || waves[len(waves)-1].Name != name {
			waves = append(waves, Wave{Name: name})
		}
		w := &waves[len(waves)-1]
		w.Nodes = append(w.Nodes, n.Name)
	}
	return waves
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
