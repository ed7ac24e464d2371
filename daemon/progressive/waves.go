package progressive

import (
	"cmp"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
)

// Wave is one wave of a rollout: the nodes of one value of the policy's
// order label (daemon.RolloutPolicy.Order.Label), which a wave barrier
// starts together.
type Wave struct {
	// Name is daemon.RolloutPolicy.WaveOf of its nodes.
	Name string
	// Nodes are the names of the wave's nodes, in update order.
	Nodes []string
}

// WavesOf groups nodes into the waves of p's order label, in the order
// they are started, each wave's nodes in update order (CompareNodes, then
// name): the waves a rollout under p would go through, before it starts
// (once it runs, a plan's ReadOut says where each node stands). Pass the
// nodes that should run the pod. nil entries are skipped. It returns nil
// when p has no Order.Label, and modifies nothing.
func WavesOf(p *daemon.RolloutPolicy, nodes []*corev1.Node) []Wave {
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
