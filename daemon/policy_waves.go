package daemon

import (
	"cmp"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/rollout"
)

// WaveBarrier is the barrier between waves (see RolloutPolicy.Waves): the
// nodes of each value of Order.Label form a wave, waves going in Order's
// order (Values first, in that order; then the other values in string
// order; then nodes without the label, and missing nodes, as one last
// wave). No node of a later wave is started until every desired node of
// the earlier waves runs one updated, available pod and Bake has passed
// since the last of them became available. Inside the open waves the step
// is what it is without the barrier. WaveOf names a node's wave, WavesOf
// groups nodes into waves before a rollout starts, and a plan's
// Rolling.Policy.Wave (rollout.WaveProgress) says where the waves stand:
// the current wave, its counts, the nodes it waits for and when its bake
// ends (Plan.RequeueAfter includes that moment).
//
// How it meets the rest of the policy, and the cluster:
//   - The barrier is a function of the state, like the rest of the plan:
//     should a node of an earlier wave lose its available pod, later waves
//     start nothing more until it is back, and its new availability
//     restarts the bake. The time comes from the pods' Ready condition
//     (lastTransitionTime plus minReadySeconds; unset counts as long ago).
//   - A desired node whose pod never becomes available (a NotReady node, a
//     revision that crashes there) holds every later wave. That is
//     intended: the rollout stops where it broke. To go on without such a
//     node, take it out of the Scope.
//   - Scope: nodes outside it neither wait for nor hold a wave (they are
//     never updated); a wave with no node in scope is done at once.
//   - Unavailable old pods of later waves are held too, also without
//     Strict, where upstream (and the step without a barrier) replaces
//     them at once outside the budget: a revision that breaks pods must
//     not reach a later wave that way. They still count against the
//     budget as unavailable nodes.
//   - Partition keeps the last nodes of the order, that is of the last
//     waves; a wave with kept nodes is never done, so later waves stay as
//     they are, which the partition keeps anyway (but for nodes already
//     updated).
//   - Strict, DomainBudget, maxUnavailable and maxSurge apply inside the
//     open waves as without the barrier.
//   - Surge: a node is done once its old pod is gone, so a wave opens the
//     next one a sync after its last old pod is removed.
//   - Missing nodes and nodes that should not run the pod hold no wave
//     (they are not desired); the step's replacements on them wait for
//     their wave (missing nodes: the last). Removals (an old pod beside an
//     available new one, a pod on a node that may no longer run one) are
//     never held.
//   - Paused stops the step, and so the waves, altogether; the last
//     wave's bake holds nothing back, and RolloutComplete does not wait
//     for it.
type WaveBarrier struct {
	// Bake is how long the last node of a wave must have been available
	// (Ready for minReadySeconds, judged from its pod's Ready condition)
	// before the next wave starts; 0 starts it as soon as the wave is
	// updated and available. Negative is an error at rollout.waves.bake.
	Bake time.Duration
}

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
