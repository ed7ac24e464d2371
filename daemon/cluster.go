package daemon

import (
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/affinity"
	"github.com/daemonplan/daemonplan/daemon/eligibility"
	"github.com/daemonplan/daemonplan/daemon/internal/namesort"
	"github.com/daemonplan/daemonplan/daemon/internal/readahead"
	"github.com/daemonplan/daemonplan/rollout"
	"github.com/daemonplan/daemonplan/selector"
)

// cluster is the DaemonSet's view of the cluster, built in one pass over
// the pods and one over the nodes: the pods claimed, adopted and released,
// nodes sorted by name with their pods, pods grouped by target node in one
// sorted slice (no per-node allocation), each pod judged once, and the pods
// that need special handling. It owns the memory it is built in.
type cluster struct {
	view
	// mem is the working memory the view is built in. kept says that it
	// outlives the plan: a Planner keeps its cluster for the next plan, so
	// what a plan returns is copied out of mem (see detach). A cluster of
	// Compute's is dropped with its plan, which may share its memory.
	mem  scratch
	kept bool
	// memo, set by a Planner for one plan, has resolved the plan's nodes
	// and pods (see memo): the view is built from what it remembers.
	memo *memo
}

// podJudge judges pods against the current revision at the plan's clock.
type podJudge struct {
	hash       string
	generation *int64
	minReady   int32
	now        time.Time
}

func (j podJudge) state(pod *corev1.Pod) rollout.PodState {
	return rollout.StateOf(pod, j.hash, j.generation, j.minReady, j.now)
}

// claimer decides the claim of each pod.
type claimer struct {
	owner selector.Owner
	sel   labels.Selector
}

// build claims pods, groups the claimed ones by target node and joins the
// groups with nodes sorted by name, evaluating each node's eligibility and
// judging each pod once, while its labels are at hand. labelKey is a hint,
// the first node label the eligibility reads (readahead.LabelKey). It
// fails on duplicate node names and duplicate claimed pod names. The view
// lives in c's memory until c is built again.
func (c *cluster) build(nodes []*corev1.Node, pods []*corev1.Pod, cl claimer, elig *eligibility.Check, judge podJudge, labelKey string) error {
	s := &c.mem
	c.view = view{
		claimed: s.claimed.take(len(pods)), adopt: reuse(&s.adopt, 0),
		release: reuse(&s.release, 0), unplaced: reuse(&s.unplaced, 0),
		missing: reuse(&s.missing, 0),
	}
	s.touched = 0
	nodeKeys := c.sortNodes(nodes)
	claimedKeys, placedKeys := c.claim(pods, cl, judge)
	if err := c.sortClaimed(claimedKeys); err != nil {
		return err
	}
	byNode, kinds := c.group(placedKeys)
	if err := c.join(nodes, nodeKeys, elig, byNode, kinds, labelKey); err != nil {
		return err
	}
	c.keep()
	return nil
}

// claim is the one pass over the pods: it decides each pod's claim and
// target node and judges it, and makes the sort keys of the claimed pods
// (by pod name) and of the placed ones (by target node) while the pod is at
// hand. c.placed is in the order of pods.
func (c *cluster) claim(pods []*corev1.Pod, cl claimer, judge podJudge) (claimedKeys, placedKeys []namesort.Key) {
	s := &c.mem
	placed := s.placed.take(len(pods))
	claimedKeys = s.claimedKeys.take(len(pods))
	placedKeys = s.placedKeys.take(len(pods))
	for i, pod := range pods {
		if i%readahead.Batch == 0 {
			s.touched += readahead.Pods(pods[i:min(i+readahead.Batch, len(pods))])
		}
		switch selector.DecidePod(cl.owner, cl.sel, pod) {
		case selector.Ignore:
			continue
		case selector.Release:
			c.release = append(c.release, pod)
			continue
		case selector.Adopt:
			c.adopt = append(c.adopt, pod)
		}
		claimedKeys = append(claimedKeys, namesort.KeyOf(pod.Name, len(c.claimed)))
		c.claimed = append(c.claimed, pod)
		target, err := affinity.GetTargetNodeName(pod)
		if err != nil {
			c.unplaced = append(c.unplaced, pod)
			continue
		}
		terminal := isTerminal(pod)
		p := placedPod{node: target, pod: pod, terminal: terminal, gone: terminal && pod.DeletionTimestamp != nil}
		if !p.gone {
			// Pods that are terminal and being deleted are on their way
			// out: nothing is left to decide about them, so they are left
			// out of the groups by node.
			p.state = judge.state(pod)
			placedKeys = append(placedKeys, namesort.KeyOf(target, len(placed)))
		}
		placed = append(placed, p)
	}
	for _, list := range [][]*corev1.Pod{c.adopt, c.release, c.unplaced} {
		slices.SortFunc(list, comparePodNames)
	}
	c.placed = placed
	s.placed.put(placed)
	s.claimed.put(c.claimed)
	s.claimedKeys.put(claimedKeys)
	s.placedKeys.put(placedKeys)
	return claimedKeys, placedKeys
}

// sortClaimed puts c.claimed in name order, the order the history's
// relabelling wants, and fails on a name claimed twice.
func (c *cluster) sortClaimed(keys []namesort.Key) error {
	s := &c.mem
	name := func(i int32) string { return c.claimed[i].Name }
	s.sortBuf = namesort.Sort(keys, s.sortBuf, name)
	for k := 1; k < len(keys); k++ {
		if namesort.Same(keys[k], name, keys[k-1], name) {
			p := c.claimed[keys[k].Index()]
			return field.Duplicate(field.NewPath("pods").Key(p.Namespace+"/"+p.Name), p.Name)
		}
	}
	byName := s.byName.take(len(c.claimed))
	for _, key := range keys {
		byName = append(byName, c.claimed[key.Index()])
	}
	s.byName.put(byName)
	s.byName, s.claimed = s.claimed, s.byName // the two buffers swap roles
	c.claimed = byName
	return nil
}

// group orders the placed pods that are not gone by target node name, then
// pod name, into c.grouped and c.states, and returns their keys (by target
// node name) and kinds in that order, index for index.
func (c *cluster) group(keys []namesort.Key) (byNode []namesort.Key, kinds []podKind) {
	s := &c.mem
	placed := c.placed
	name := namesort.NameOf(c.placedName)
	s.sortBuf = namesort.Sort(keys, s.sortBuf, name)
	for start := 0; start < len(keys); {
		end := start + 1
		for end < len(keys) && namesort.Same(keys[end], name, keys[start], name) {
			end++
		}
		if end-start > 1 {
			slices.SortFunc(keys[start:end], func(a, b namesort.Key) int {
				return comparePodNames(placed[a.Index()].pod, placed[b.Index()].pod)
			})
		}
		start = end
	}
	c.grouped = s.grouped.take(len(keys))
	c.states = s.states.take(len(keys))
	kinds = s.kinds.take(len(keys))
	for _, key := range keys {
		p := &placed[key.Index()]
		c.grouped = append(c.grouped, p.pod)
		c.states = append(c.states, p.state)
		kinds = append(kinds, kindOf(p))
	}
	s.grouped.put(c.grouped)
	s.states.put(c.states)
	s.kinds.put(kinds)
	return keys, kinds
}

// join walks the nodes in name order (keys, from sortNodes) beside the
// grouped pods and fails on a name given twice: each node gets its pods,
// its eligibility and its pod counts; pods whose node is not in the list
// become c.missing. labelKey is the read-ahead hint (see build).
func (c *cluster) join(nodes []*corev1.Node, keys []namesort.Key, elig *eligibility.Check, byNode []namesort.Key, kinds []podKind, labelKey string) error {
	s := &c.mem
	nodeName := func(i int32) string { return nodes[i].Name }
	placedName := namesort.NameOf(c.placedName)
	// The walk below sets every element by index, so the buffers are put
	// back at their full length now.
	c.nodes = s.nodes.take(len(nodes))[:len(nodes)]
	c.info = s.info.take(len(nodes))[:len(nodes)]
	s.nodes.put(c.nodes)
	s.info.put(c.info)
	g := 0 // cursor into grouped
	for k, key := range keys {
		if k%readahead.Batch == 0 {
			s.touched += readahead.Nodes(nodes, keys[k:min(k+readahead.Batch, len(keys))], labelKey)
		}
		node := nodes[key.Index()]
		if k > 0 && namesort.Same(keys[k-1], nodeName, key, nodeName) {
			return &DuplicateNodeError{Name: node.Name, First: int(keys[k-1].Index()), Second: int(key.Index())}
		}
		for g < len(byNode) && namesort.Compare(byNode[g], placedName, key, nodeName) < 0 {
			g = c.addMissing(byNode, g, placedName)
		}
		start := g
		for g < len(byNode) && namesort.Same(byNode[g], placedName, key, nodeName) {
			g++
		}
		run, keep := elig.ShouldRun(node)
		c.nodes[k] = rollout.Node{Name: node.Name, ShouldRun: run, Pods: c.grouped[start:g:g], States: c.states[start:g:g]}
		info := &c.info[k]
		*info = nodeInfo{node: node, shouldContinue: keep}
		for _, kind := range kinds[start:g] {
			switch kind {
			case podRunning:
				info.running++
			case podTerminal:
				info.terminal = true
			}
		}
	}
	for g < len(byNode) {
		g = c.addMissing(byNode, g, placedName)
	}
	return nil
}

// sortNodes returns the keys of nodes, sorted by name. build calls it
// first, right after validateInput has read every node's name: the names
// are then still in cache, which in a large cluster they are not once the
// pods have been read.
func (c *cluster) sortNodes(nodes []*corev1.Node) []namesort.Key {
	s := &c.mem
	keys := s.nodeKeys.take(len(nodes))
	for start := 0; start < len(nodes); start += readahead.Batch {
		batch := nodes[start:min(start+readahead.Batch, len(nodes))]
		s.touched += readahead.Names(batch)
		for i, n := range batch {
			keys = append(keys, namesort.KeyOf(n.Name, start+i))
		}
	}
	s.sortBuf = namesort.Sort(keys, s.sortBuf, func(i int32) string { return nodes[i].Name })
	s.nodeKeys.put(keys)
	return keys
}

// livePods returns the claimed pods with a target node, terminal pods being
// deleted included: their hashes keep revisions alive (see
// rollout.CleanupHistory).
func (c *cluster) livePods() []*corev1.Pod {
	out := make([]*corev1.Pod, len(c.placed))
	for i := range c.placed {
		out[i] = c.placed[i].pod
	}
	return out
}

// placedName is the namesort.NameOf of the keys of c.placed: a pod's
// target node.
func (c *cluster) placedName(i int32) string {
	return c.placed[i].node
}

// addMissing records the group of pods starting at byNode[g], whose node
// is not in the node list, and returns the index after it. name is
// c.placedName.
func (c *cluster) addMissing(byNode []namesort.Key, g int, name namesort.NameOf) int {
	start := g
	for g < len(byNode) && namesort.Same(byNode[g], name, byNode[start], name) {
		g++
	}
	c.missing = append(c.missing, rollout.Node{Name: c.placed[byNode[start].Index()].node, Missing: true, Pods: c.grouped[start:g:g], States: c.states[start:g:g]})
	return g
}

// rolloutNodes describes the cluster to the rolling-update step: every
// existing node, then every missing node with pods. Nodes that may not run
// the pod and have none are passed too: the step ignores them (see
// rollout.RollingUpdate), and passing c.nodes as it is spares a copy of
// the fleet. Under a policy, compile has written each node's facts (Frozen,
// Rank, Domain) first. The nodes and missing groups are joined, in c's
// memory, only when there are missing nodes.
func (c *cluster) rolloutNodes() []rollout.Node {
	if len(c.missing) == 0 {
		return c.nodes
	}
	out := append(append(c.mem.rollout.take(len(c.nodes)+len(c.missing)), c.nodes...), c.missing...)
	c.mem.rollout.put(out)
	return out
}

// keep records the slices the view grew by appending, so that the next
// plan starts with their capacity.
func (c *cluster) keep() {
	c.mem.adopt, c.mem.release, c.mem.unplaced = c.adopt, c.release, c.unplaced
	c.mem.missing = c.missing
}

// detach returns pods as a plan may hold them: as is when the view's
// memory is not kept (Compute), else a copy, nil when empty, that no later
// plan overwrites.
func (c *cluster) detach(pods []*corev1.Pod) []*corev1.Pod {
	if !c.kept {
		return pods
	}
	if len(pods) == 0 {
		return nil
	}
	return append([]*corev1.Pod(nil), pods...)
}
