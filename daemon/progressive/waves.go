package progressive

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

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

// WavesOf groups nodes into the waves of p, in the order they are
// started, each wave's nodes in update order (CompareNodes, then name):
// the waves a rollout under p would go through, before it starts (once it
// runs, a plan's Standing says where each node stands). With p.Canary the
// first wave is daemon.CanaryWave, the nodes p.CanaryNodes picks before
// any node runs the new revision; the other nodes follow in the waves of
// the order label, or as one wave daemon.RestWave without one. Pass the
// nodes that should run the pod. nil entries are skipped. It returns nil
// when p has neither an Order.Label nor a Canary, and modifies nothing.
func WavesOf(p *daemon.RolloutPolicy, nodes []*corev1.Node) []Wave {
	if p.Order.Label == "" && p.Canary == nil {
		return nil
	}
	sorted := slices.DeleteFunc(slices.Clone(nodes), func(n *corev1.Node) bool { return n == nil })
	slices.SortStableFunc(sorted, func(a, b *corev1.Node) int { return cmp.Or(p.CompareNodes(a, b), cmp.Compare(a.Name, b.Name)) })
	var waves []Wave
	if p.Canary != nil {
		canary := p.CanaryNodes(sorted, nil)
		if len(canary) > 0 {
			in := make(map[string]bool, len(canary))
			for _, name := range canary {
				in[name] = true
			}
			waves = append(waves, Wave{Name: daemon.CanaryWave, Nodes: canary})
			sorted = slices.DeleteFunc(sorted, func(n *corev1.Node) bool { return in[n.Name] })
		}
	}
	first := len(waves)
	for _, n := range sorted {
		name := daemon.RestWave
		if p.Order.Label != "" {
			name = p.WaveOf(n)
		}
		if len(waves) == first || waves[len(waves)-1].Name != name {
			waves = append(waves, Wave{Name: name})
		}
		w := &waves[len(waves)-1]
		w.Nodes = append(w.Nodes, n.Name)
	}
	return waves
}

// maxListed is how many label values a warning lists.
const maxListed = 10

// OrderWarnings says which parts of p's order select no node of nodes:
// an order label (order-by) no node carries, or order values
// (order-values) no node has for it. Such a policy is valid, and plans
// as if the part were absent, which is seldom what was meant (a typo of
// a label or of a zone). Pass the nodes that should run the pod; nil
// entries are skipped. Each warning is one sentence; nil when there is
// nothing to say. It modifies nothing.
func OrderWarnings(p *daemon.RolloutPolicy, nodes []*corev1.Node) []string {
	label := p.Order.Label
	if label == "" {
		return nil
	}
	seen := map[string]bool{}
	for _, n := range nodes {
		if n == nil {
			continue
		}
		if v, ok := n.Labels[label]; ok {
			seen[v] = true
		}
	}
	if len(seen) == 0 {
		return []string{fmt.Sprintf("no node has the order label %q: it orders nothing", label)}
	}
	var missing []string
	for _, v := range p.Order.Values {
		if !seen[v] {
			missing = append(missing, strconv.Quote(v))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	have := slices.Sorted(maps.Keys(seen))
	if len(have) > maxListed {
		have = append(have[:maxListed], fmt.Sprintf("and %d more", len(have)-maxListed))
	}
	return []string{fmt.Sprintf("no node has the order values %s of %s (the nodes have %s)",
		strings.Join(missing, ", "), label, strings.Join(have, ", "))}
}
