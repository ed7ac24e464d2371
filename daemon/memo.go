package daemon

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonplan/daemonplan/affinity"
	"github.com/daemonplan/daemonplan/daemon/internal/readahead"
	"github.com/daemonplan/daemonplan/rollout"
	"github.com/daemonplan/daemonplan/selector"
)

// memo is what a Planner remembers of the objects of one DaemonSet's last
// plan, so that the next plan judges only what changed.
//
// The identity rule: a node or pod given again is the same as last time
// when it is the same object (the same pointer) with the same non-empty
// resourceVersion. What was read of it then is used again; anything else
// (a new object, a new resourceVersion, an empty one) is read anew. An
// informer's cache never edits an object in place (an update is a new
// object with a new resourceVersion), so a controller fed by one is
// never served a stale fact; a caller that edits objects in place must
// change their resourceVersion, or clear it.
//
// A memo has three layers, each recomputed only when what it depends on
// changed: the facts of each object (its name, target node, pod state
// facts: the object's identity), the judgements that depend on the
// DaemonSet as well (a node's eligibility: the placement fields; a pod's
// claim: the owner and selector, see keys.go), and the orders (nodes by
// name, claimed pods by name), kept sorted by inserting what is new.
// Whatever it cannot decide the way Compute does (a nil or nameless
// object, an object given twice, two nodes or claimed pods of one name),
// it leaves to the full build, which names the error; the memo is then
// dropped.
type memo struct {
	epoch  uint32 // this plan's number; entries seen in it carry it
	serial uint32 // the last node entry's serial
	built  bool   // the last resolve was followed by a build
	used   uint64 // the Planner's call that last used it
	// churn counts, in this resolve, the entries added and retired and the
	// objects found elsewhere than at last plan's index: with none, the
	// pods are grouped as last time.
	churn int

	nodes     []nodeEntry
	nodeFree  []int32
	liveNodes int                    // the live entries of nodes
	nodeAt    map[*corev1.Node]int32 // nil until a positional lookup misses
	nameAt    map[string]int32       // live node entries by name
	nodeSlot  []int32                // nodeSlot[i]: the entry of the caller's nodes[i] last plan
	order     []int32                // live node entries in name order

	pods     []podEntry
	podFree  []int32
	livePods int
	podAt    map[*corev1.Pod]int32 // nil until a positional lookup misses
	podSlot  []int32
	byName   []int32 // claimed pod entries in name order

	// refreshed lists, in this resolve, the node entries whose object was
	// replaced by another of the same name (an informer's update): their
	// verdict is judged again, nothing else moves.
	refreshed []int32
	last      *keptPlan // the last plan, when it may be reused (memo_reuse.go)
	// planned says a first plan was computed; given is what it was
	// computed from, while that plan is kept and no entries are read.
	planned bool
	given   *givenObjects

	placement placementKey
	claim     claimKey
	verdicts  uint32 // bumped when placement changes: verdicts older are stale
	claims    uint32 // bumped when claim changes

	touched int // the sum readahead returns, kept so that its reads stay

	// Per-plan scratch.
	addedNodes, addedPods []int32
	placedAt              []int32 // the entry of each of the view's placed pods
	pos                   []int32 // pos[entry]: the node's index in order
	counts, keys          []int32 // the grouping's counting sort
	slots, missing        []int32
}

// nodeEntry is what a memo read of one node object.
type nodeEntry struct {
	node        *corev1.Node
	rv, name    string
	seen, added uint32 // the plans that last gave it and that added it
	serial      uint32 // unique to this entry's life: a pod's link checks it
	verdictOf   uint32 // the memo.verdicts run and keep were judged at
	live        bool
	run, keep   bool
}

// podEntry is what a memo read of one pod object.
type podEntry struct {
	pod         *corev1.Pod
	rv, name    string
	uid         types.UID
	seen, added uint32
	live        bool
	// The facts of the pod alone.
	target         string // its target node, when placed
	placed         bool   // it has a target node
	terminal, gone bool   // failed or succeeded; and being deleted too
	facts          rollout.PodFacts
	decision       selector.Decision
	decisionOf     uint32 // the memo.claims decision was made at (0: never)
	nodeSerial     uint32
	node           int32 // the node entry it was last grouped under (-1: none)
}

func (e *podEntry) claimed() bool {
	return e.decision == selector.Own || e.decision == selector.Adopt
}

// resolve finds the entry of every node and pod given, reading anew the
// objects that are not the same as last time, retires the entries of
// objects no longer given, and keeps the node order. It returns false
// when the full build must decide (see memo); the memo is then unusable
// until reset.
func (m *memo) resolve(nodes []*corev1.Node, pods []*corev1.Pod) bool {
	m.epoch++
	m.built = false
	m.addedNodes = m.addedNodes[:0]
	m.refreshed = m.refreshed[:0]
	m.churn = 0
	// A first plan's entries are allocated once, not grown into.
	if len(m.nodes) == 0 {
		m.nodes = make([]nodeEntry, 0, len(nodes))
	}
	if len(m.pods) == 0 {
		m.pods = make([]podEntry, 0, len(pods))
	}
	if !m.resolveNodes(nodes) || !m.resolvePods(pods) {
		return false
	}
	// Every object given is now a live entry seen in this plan: entries
	// beyond that many are of objects no longer given.
	for i := 0; i < len(m.nodes) && m.liveNodes > len(nodes); i++ {
		if e := &m.nodes[i]; e.live && e.seen != m.epoch {
			m.retireNode(int32(i))
		}
	}
	for i := 0; i < len(m.pods) && m.livePods > len(pods); i++ {
		if e := &m.pods[i]; e.live && e.seen != m.epoch {
			m.retirePod(int32(i))
		}
	}
	return m.orderNodes()
}

func (m *memo) resolveNodes(nodes []*corev1.Node) bool {
	m.nodeSlot = resize(m.nodeSlot, len(nodes))
	for i, n := range nodes {
		if i%readahead.Batch == 0 {
			m.touched += readahead.NodeIdentities(nodes[i:min(i+readahead.Batch, len(nodes))])
		}
		if n == nil || n.Name == "" {
			return false
		}
		// The common cases, decided at the entry given at i last plan: the
		// same object again, or its update (a new object of its name).
		if s := m.nodeSlot[i]; s >= 0 && int(s) < len(m.nodes) {
			if e := &m.nodes[s]; e.live && e.seen != m.epoch {
				if e.node == n && e.rv != "" && e.rv == n.ResourceVersion {
					e.seen = m.epoch
					continue
				}
				if e.name == n.Name {
					m.refreshNode(i, s, n)
					continue
				}
			}
		}
		idx := m.findNode(i, n)
		if idx >= 0 {
			e := &m.nodes[idx]
			if e.seen == m.epoch {
				return false // given twice
			}
			if e.rv != "" && e.rv == n.ResourceVersion {
				e.seen = m.epoch
				m.nodeSlot[i] = idx
				continue
			}
			if e.name == n.Name {
				m.refreshNode(i, idx, n) // edited in place: judged anew
				continue
			}
			m.retireNode(idx)
		}
		idx = m.addNode(n)
		m.nodeSlot[i] = idx
	}
	return true
}

// refreshNode makes entry idx hold n, a new object (or the same one with a
// new resourceVersion) of the node it holds, given at index i: its name,
// order and pods stay; its verdict is judged again.
func (m *memo) refreshNode(i int, idx int32, n *corev1.Node) {
	e := &m.nodes[idx]
	if m.nodeAt != nil {
		if j, ok := m.nodeAt[e.node]; ok && j == idx {
			delete(m.nodeAt, e.node)
		}
		m.nodeAt[n] = idx
	}
	m.refreshed = append(m.refreshed, idx)
	e.node, e.rv, e.seen, e.verdictOf = n, n.ResourceVersion, m.epoch, 0
	m.nodeSlot[i] = idx
}

// findNode returns the entry of n, given at index i: the one given at i
// last plan when it is n, else the index's; -1 when there is none.
func (m *memo) findNode(i int, n *corev1.Node) int32 {
	if i < len(m.nodeSlot) {
		if s := m.nodeSlot[i]; s >= 0 && int(s) < len(m.nodes) && m.nodes[s].live && m.nodes[s].node == n {
			return s
		}
	}
	if m.nodeAt == nil {
		if len(m.nodes) == len(m.nodeFree) {
			return -1 // nothing to find: the index is built when there is
		}
		m.nodeAt = make(map[*corev1.Node]int32, len(m.nodes))
		for j := range m.nodes {
			if m.nodes[j].live {
				m.nodeAt[m.nodes[j].node] = int32(j)
			}
		}
	}
	if j, ok := m.nodeAt[n]; ok {
		m.churn++
		return j
	}
	return -1
}

func (m *memo) addNode(n *corev1.Node) int32 {
	m.churn++
	m.liveNodes++
	m.serial++
	e := nodeEntry{node: n, rv: n.ResourceVersion, name: n.Name, seen: m.epoch, added: m.epoch, serial: m.serial, live: true}
	var idx int32
	if k := len(m.nodeFree); k > 0 {
		idx, m.nodeFree = m.nodeFree[k-1], m.nodeFree[:k-1]
		m.nodes[idx] = e
	} else {
		idx = int32(len(m.nodes))
		m.nodes = append(m.nodes, e)
	}
	if m.nodeAt != nil {
		m.nodeAt[n] = idx
	}
	m.addedNodes = append(m.addedNodes, idx)
	return idx
}

func (m *memo) retireNode(idx int32) {
	m.churn++
	m.liveNodes--
	e := &m.nodes[idx]
	if j, ok := m.nodeAt[e.node]; ok && j == idx {
		delete(m.nodeAt, e.node)
	}
	if j, ok := m.nameAt[e.name]; ok && j == idx {
		delete(m.nameAt, e.name)
	}
	*e = nodeEntry{}
	m.nodeFree = append(m.nodeFree, idx)
}

func (m *memo) resolvePods(pods []*corev1.Pod) bool {
	m.podSlot = resize(m.podSlot, len(pods))
	for i, p := range pods {
		if i%readahead.Batch == 0 {
			m.touched += readahead.PodIdentities(pods[i:min(i+readahead.Batch, len(pods))])
		}
		if p == nil || p.Name == "" {
			return false
		}
		if s := m.podSlot[i]; s >= 0 && int(s) < len(m.pods) {
			if e := &m.pods[s]; e.pod == p && e.live && e.seen != m.epoch && e.rv != "" && e.rv == p.ResourceVersion {
				e.seen = m.epoch // the same object at the same index: the common case
				continue
			}
		}
		idx := m.findPod(i, p)
		if idx >= 0 {
			e := &m.pods[idx]
			if e.seen == m.epoch {
				return false
			}
			if e.rv != "" && e.rv == p.ResourceVersion {
				e.seen = m.epoch
				m.podSlot[i] = idx
				continue
			}
			m.retirePod(idx)
		}
		m.podSlot[i] = m.addPod(p)
	}
	return true
}

func (m *memo) findPod(i int, p *corev1.Pod) int32 {
	if i < len(m.podSlot) {
		if s := m.podSlot[i]; s >= 0 && int(s) < len(m.pods) && m.pods[s].live && m.pods[s].pod == p {
			return s
		}
	}
	if m.podAt == nil {
		if len(m.pods) == len(m.podFree) {
			return -1
		}
		m.podAt = make(map[*corev1.Pod]int32, len(m.pods))
		for j := range m.pods {
			if m.pods[j].live {
				m.podAt[m.pods[j].pod] = int32(j)
			}
		}
	}
	if j, ok := m.podAt[p]; ok {
		m.churn++
		return j
	}
	return -1
}

// addPod reads the facts of p that depend on p alone.
func (m *memo) addPod(p *corev1.Pod) int32 {
	m.churn++
	m.livePods++
	e := podEntry{pod: p, rv: p.ResourceVersion, name: p.Name, uid: p.UID, seen: m.epoch, added: m.epoch, live: true, node: -1}
	if target, err := affinity.GetTargetNodeName(p); err == nil {
		e.target, e.placed = target, true
	}
	e.terminal = isTerminal(p)
	e.gone = e.terminal && p.DeletionTimestamp != nil
	e.facts = rollout.FactsOf(p)
	var idx int32
	if k := len(m.podFree); k > 0 {
		idx, m.podFree = m.podFree[k-1], m.podFree[:k-1]
		m.pods[idx] = e
	} else {
		idx = int32(len(m.pods))
		m.pods = append(m.pods, e)
	}
	if m.podAt != nil {
		m.podAt[p] = idx
	}
	return idx
}

func (m *memo) retirePod(idx int32) {
	m.churn++
	m.livePods--
	e := &m.pods[idx]
	if j, ok := m.podAt[e.pod]; ok && j == idx {
		delete(m.podAt, e.pod)
	}
	*e = podEntry{}
	m.podFree = append(m.podFree, idx)
}

// orderNodes keeps m.order, the live node entries in name order: the
// entries kept stay where they were, the added ones are sorted and
// inserted. Two live nodes of one name leave it to the full build.
func (m *memo) orderNodes() bool {
	if m.nameAt == nil {
		m.nameAt = make(map[string]int32, len(m.nodes))
	}
	kept := m.order[:0]
	for _, idx := range m.order {
		if e := &m.nodes[idx]; e.live && e.added != m.epoch {
			kept = append(kept, idx)
		}
	}
	added := m.addedNodes
	m.packNames(added)
	for _, idx := range added {
		name := m.nodes[idx].name
		if _, dup := m.nameAt[name]; dup {
			return false
		}
		m.nameAt[name] = idx
	}
	nodeName := func(idx int32) string { return m.nodes[idx].name }
	m.order = insertSorted(kept, added, nodeName)
	return true
}

// packNames makes the names of the added node entries substrings of one
// new string. The names are read again in every plan (the rolling step
// checks their order, and the plan's decisions carry them); packed, they
// are a few cache lines apart instead of one allocation each, wherever
// the caller's objects lie.
func (m *memo) packNames(added []int32) {
	var b strings.Builder
	for _, idx := range added {
		b.WriteString(m.nodes[idx].name)
	}
	packed, at := b.String(), 0
	for _, idx := range added {
		e := &m.nodes[idx]
		e.name = packed[at : at+len(e.name)]
		at += len(e.name)
	}
}
