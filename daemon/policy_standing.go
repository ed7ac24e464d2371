package daemon

import (
	"cmp"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/daemonplan/daemonplan/rollout"
)

// holds writes the policy's facts on the standing's nodes: their waves and
// holds. step is the rolling step the plan ran (or the paused one), nil
// when none ran. The canary is picked from the same facts compile picks
// it from (desired nodes in scope, and whether they run a live updated
// pod), so the two agree.
func (p *RolloutPolicy) holds(ro *Standing, step *RollingStep) {
	if p.Scope != nil {
		// A malformed scope fails the plan before any standing.
		if sel, err := metav1.LabelSelectorAsSelector(p.Scope); err == nil {
			for i := range ro.Nodes {
				n := &ro.Nodes[i]
				if n.Missing || !sel.Matches(labels.Set(n.Node.Labels)) {
					n.Held = HeldScope
				}
			}
		}
	}
	// The desired nodes in scope that run only old pods, in update order:
	// the partition keeps the last ones, the barrier those of later waves.
	var old []*NodeStanding
	desired := 0
	canary := p.canaryOfStanding(ro)
	for i := range ro.Nodes {
		n := &ro.Nodes[i]
		if canary[n] {
			n.Wave = CanaryWave
		} else {
			n.Wave = p.WaveOf(n.Node)
		}
		if !n.ShouldRun || n.Held != HeldNone {
			continue
		}
		desired++
		if n.Live() > 0 && !n.HasUpdated() {
			old = append(old, n)
		}
	}
	if p.Order.Label != "" || p.Canary != nil {
		ro.Waves = p.waveNames(ro.Nodes)
	}
	// The step replaces unavailable old pods before available ones, each
	// kind in the policy's order (the canary first): the partition keeps
	// the last ones.
	slices.SortStableFunc(old, func(a, b *NodeStanding) int {
		return cmp.Or(cmpBool(a.HasAvailable(), b.HasAvailable()), cmpBool(!canary[a], !canary[b]),
			p.CompareNodes(a.Node, b.Node), cmp.Compare(a.Name, b.Name))
	})
	kept := 0
	if p.Partition != nil {
		if n, err := scalePartition(p.Partition, desired); err == nil {
			kept = min(n, desired)
		}
	}
	for i, n := range old {
		if i >= len(old)-kept {
			n.Held = HeldPartition
		}
	}
	var w *rollout.WaveProgress
	if step != nil && step.Policy != nil {
		w = step.Policy.Wave
	}
	open := len(ro.Waves)
	if w != nil {
		if i := slices.Index(ro.Waves, w.Name); i >= 0 {
			open = i + 1
		}
	}
	for _, n := range old {
		switch {
		case n.Held != HeldNone:
		case p.barrier() && slices.Index(ro.Waves, n.Wave) >= open:
			n.Held = HeldWave
		case p.Paused:
			n.Held = HeldPaused
		}
	}
}

// waveNames returns the distinct waves of the nodes that should run the
// pod or have pods, in update order: the canary first.
func (p *RolloutPolicy) waveNames(nodes []NodeStanding) []string {
	first := map[string]*corev1.Node{}
	var names []string
	for i := range nodes {
		n := &nodes[i]
		if n.Wave == "" || !n.ShouldRun && len(n.Pods) == 0 {
			continue
		}
		if _, ok := first[n.Wave]; !ok {
			first[n.Wave] = n.Node
			names = append(names, n.Wave)
		}
	}
	slices.SortFunc(names, func(a, b string) int {
		if c := cmpBool(a != CanaryWave, b != CanaryWave); c != 0 {
			return c
		}
		na, nb := first[a], first[b]
		if (na == nil) != (nb == nil) {
			// One of them is the unlabelled wave, named by a missing node.
			if na == nil {
				return 1
			}
			return -1
		}
		return cmp.Or(p.compareWaves(na, nb), cmp.Compare(a, b))
	})
	return names
}

// canaryOfStanding picks the canary among ro's desired nodes in scope
// (after holds has set HeldScope); nil without a canary.
func (p *RolloutPolicy) canaryOfStanding(ro *Standing) map[*NodeStanding]bool {
	if p.Canary == nil {
		return nil
	}
	var at []*NodeStanding
	var cands []canaryCandidate
	for i := range ro.Nodes {
		n := &ro.Nodes[i]
		if n.ShouldRun && n.Held != HeldScope {
			at = append(at, n)
			cands = append(cands, candidate(n.Node, n.Pods, n.States))
		}
	}
	in := make(map[*NodeStanding]bool)
	for k, ok := range p.canary(cands) {
		if ok {
			in[at[k]] = true
		}
	}
	return in
}
