package daemon

import (
	"cmp"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon/eligibility"
	"github.com/daemonplan/daemonplan/rollout"
	"github.com/daemonplan/daemonplan/selector"
)

// build sets c's view from the entries resolve found, as cluster.build
// would from the objects: it judges again only what the entries do not
// hold for this DaemonSet (verdicts after a placement change, claims
// after a selector or owner change) and the pods' states, which depend on
// the revision and the clock, from their facts. pods are the caller's, in
// the order resolve saw them. It returns false, with c's view unusable,
// when the full build must decide: two claimed pods of one name.
func (m *memo) build(c *cluster, ds *appsv1.DaemonSet, pods []*corev1.Pod, cl claimer, elig *eligibility.Check, judge podJudge, comparison bool) bool {
	pk := placementKeyOf(ds, comparison)
	if m.verdicts == 0 || !m.placement.same(&pk) {
		m.placement, m.verdicts = pk.copied(), m.verdicts+1
	}
	ck := claimKey{owner: cl.owner, selector: ds.Spec.Selector}
	reclaim := m.claims == 0 || !m.claim.same(&ck)
	if reclaim {
		m.claim = claimKey{owner: ck.owner, selector: ck.selector.DeepCopy()}
		m.claims++
	}
	for _, idx := range m.order {
		if e := &m.nodes[idx]; e.verdictOf != m.verdicts {
			e.run, e.keep = elig.ShouldRun(e.node)
			e.verdictOf = m.verdicts
		}
	}
	s := &c.mem
	c.view = view{adopt: reuse(&s.adopt, 0), release: reuse(&s.release, 0), unplaced: reuse(&s.unplaced, 0), missing: reuse(&s.missing, 0)}
	placed := s.placed.take(len(pods))
	m.placedAt, m.addedPods = m.placedAt[:0], m.addedPods[:0]
	for i, pod := range pods {
		idx := m.podSlot[i]
		e := &m.pods[idx]
		if e.decisionOf != m.claims {
			e.decision, e.decisionOf = selector.DecidePod(cl.owner, cl.sel, pod), m.claims
		}
		switch e.decision {
		case selector.Ignore:
			continue
		case selector.Release:
			c.release = append(c.release, pod)
			continue
		case selector.Adopt:
			c.adopt = append(c.adopt, pod)
		}
		if reclaim || e.added == m.epoch {
			m.addedPods = append(m.addedPods, idx) // to be put in name order
		}
		if !e.placed {
			c.unplaced = append(c.unplaced, pod)
			continue
		}
		p := placedPod{node: e.target, pod: pod, terminal: e.terminal, gone: e.gone}
		if !p.gone {
			p.state = e.facts.State(judge.hash, judge.generation, judge.minReady, judge.now)
		}
		placed = append(placed, p)
		m.placedAt = append(m.placedAt, idx)
	}
	for _, list := range [][]*corev1.Pod{c.adopt, c.release, c.unplaced} {
		slices.SortFunc(list, comparePodNames)
	}
	c.placed = placed
	s.placed.put(placed)
	if !m.orderClaimed(c, reclaim) {
		return false
	}
	m.group(c, reclaim || m.churn > 0)
	c.keep()
	m.built = true
	return true
}

// orderClaimed keeps m.byName, the claimed pod entries in name order, and
// sets c.claimed from it. reclaim says every claim was decided anew.
func (m *memo) orderClaimed(c *cluster, reclaim bool) bool {
	kept := m.byName[:0]
	if !reclaim {
		for _, idx := range m.byName {
			if e := &m.pods[idx]; e.live && e.seen == m.epoch && e.added != m.epoch {
				kept = append(kept, idx)
			}
		}
	}
	name := func(idx int32) string { return m.pods[idx].name }
	added := m.addedPods
	sortByName(added, name)
	for k, idx := range added {
		if k > 0 && name(added[k-1]) == name(idx) {
			return false
		}
		if _, found := slices.BinarySearchFunc(kept, name(idx), func(j int32, n string) int { return cmp.Compare(name(j), n) }); found {
			return false
		}
	}
	m.byName = insertSorted(kept, added, name)
	s := &c.mem
	c.claimed = s.claimed.take(len(m.byName))
	for _, idx := range m.byName {
		c.claimed = append(c.claimed, m.pods[idx].pod)
	}
	s.claimed.put(c.claimed)
	return true
}

// sortPlaced orders the placed pods (indices of c.placed) by node, then
// pod name, followed by the pods of missing nodes. It returns that order
// (slots), each node's end in it (next[k], for m.order[k]; next[len]
// is total) and total, where the missing nodes' pods start. A plan
// whose pods, nodes and claims are those of the last (build) reuses them.
func (m *memo) sortPlaced(c *cluster) (slots, next []int32, total int) {
	m.pos = resize(m.pos, len(m.nodes))
	for k, idx := range m.order {
		m.pos[idx] = int32(k)
	}
	m.counts = resize(m.counts, len(m.order)+1)
	clear(m.counts)
	m.keys = resize(m.keys, len(c.placed))
	keys := m.keys
	missing := m.missing[:0]
	for pi, idx := range m.placedAt {
		if c.placed[pi].gone {
			keys[pi] = -2
			continue
		}
		k := m.link(&m.pods[idx])
		keys[pi] = k
		if k < 0 {
			missing = append(missing, int32(pi))
			continue
		}
		m.counts[k+1]++
	}
	for k := 1; k < len(m.counts); k++ {
		m.counts[k] += m.counts[k-1]
	}
	total = int(m.counts[len(m.counts)-1])
	slots = resize(m.slots, total+len(missing))
	next = m.counts // next[k] is where node k's next pod goes
	for pi, k := range keys {
		if k >= 0 {
			slots[next[k]] = int32(pi)
			next[k]++
		}
	}
	// next[k] is now node k's end, the start of node k+1.
	placed := c.placed
	byPod := func(a, b int32) int { return comparePodNames(placed[a].pod, placed[b].pod) }
	start := int32(0)
	for k := range m.order {
		if end := next[k]; end-start > 1 {
			slices.SortFunc(slots[start:end], byPod)
		}
		start = next[k]
	}
	slices.SortFunc(missing, func(a, b int32) int {
		return cmp.Or(cmp.Compare(placed[a].node, placed[b].node), byPod(a, b))
	})
	copy(slots[total:], missing)
	m.slots, m.missing = slots, missing
	return slots, next, total
}

// group orders the placed pods that are not gone by node (m.order), then
// pod name, followed by the pods of missing nodes by node name, then pod
// name, and joins them with the nodes, as cluster.group and cluster.join
// do. Pods keep the node entry they were grouped under; only a pod whose
// node entry changed looks its node up by name again.
func (m *memo) group(c *cluster, regroup bool) {
	s := &c.mem
	slots, next, total := m.slots, m.counts, 0
	if regroup || len(next) != len(m.order)+1 {
		slots, next, total = m.sortPlaced(c)
	} else {
		total = int(next[len(m.order)])
	}
	placed := c.placed
	start := int32(0)

	c.grouped = s.grouped.take(len(slots))
	c.states = s.states.take(len(slots))
	for _, pi := range slots {
		c.grouped = append(c.grouped, placed[pi].pod)
		c.states = append(c.states, placed[pi].state)
	}
	s.grouped.put(c.grouped)
	s.states.put(c.states)

	c.nodes = s.nodes.take(len(m.order))[:len(m.order)]
	c.info = s.info.take(len(m.order))[:len(m.order)]
	s.nodes.put(c.nodes)
	s.info.put(c.info)
	start = 0
	for k, idx := range m.order {
		e := &m.nodes[idx]
		end := next[k]
		c.nodes[k] = rollout.Node{Name: e.name, ShouldRun: e.run, Pods: c.grouped[start:end:end], States: c.states[start:end:end]}
		info := &c.info[k]
		*info = nodeInfo{node: e.node, shouldContinue: e.keep}
		for _, pi := range slots[start:end] {
			switch kindOf(&placed[pi]) {
			case podRunning:
				info.running++
			case podTerminal:
				info.terminal = true
			}
		}
		start = end
	}
	for g := total; g < len(slots); {
		end := g + 1
		for end < len(slots) && placed[slots[end]].node == placed[slots[g]].node {
			end++
		}
		c.missing = append(c.missing, rollout.Node{Name: placed[slots[g]].node, Missing: true, Pods: c.grouped[g:end:end], States: c.states[g:end:end]})
		g = end
	}
}

// link returns the index in m.order of the node e targets, -1 when no
// node of that name is given; it keeps the node entry in e.
func (m *memo) link(e *podEntry) int32 {
	if e.node >= 0 && int(e.node) < len(m.nodes) {
		if n := &m.nodes[e.node]; n.live && n.serial == e.nodeSerial {
			return m.pos[e.node]
		}
	}
	j, ok := m.nameAt[e.target]
	if !ok {
		e.node = -1
		return -1
	}
	e.node, e.nodeSerial = j, m.nodes[j].serial
	return m.pos[j]
}
