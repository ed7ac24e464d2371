package daemon

import (
	"cmp"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/daemonplan/daemonplan/rollout"
)

// ReadOut is where each node stands in a plan: what the plan judged of
// every node and pod, said once so that no program has to walk the pods
// again. A plan carries one when Options.ReadOut asks for it (see
// Plan.ReadOut). It belongs to the plan: later plans, of a Planner too,
// do not change it. Its pods and nodes are the caller's.
type ReadOut struct {
	// Nodes are the existing nodes in name order, then the missing nodes
	// (node names pods target that are not in the node list) in name
	// order.
	Nodes []NodeReadOut
	// Waves are the names of the waves of the nodes that should run the
	// pod or have pods (NodeReadOut.Wave), in the order the rollout starts
	// them: CanaryWave first, then the order-label groups in
	// RolloutPolicy.CompareNodes order (or RestWave); nil without
	// Options.Rollout.Order.Label and Canary.
	Waves []string
	// Paused is the rolling-update step Options.Rollout.Paused held back:
	// the step the plan would have run, and what it would have asked for,
	// had the rollout not been paused (nil when the plan is not paused, or
	// the step would not have run: the create/delete pass acted, or the
	// strategy is not RollingUpdate). PausedErr is that step's error (an
	// *Error of StageRollingUpdate: an invalid budget, a surge step over a
	// pod on a missing node), which the plan does not return while it is
	// paused.
	Paused    *RollingStep
	PausedErr error
	// BurstReplicas is the cap on creates, and on deletes, the plan
	// applied (Options.BurstReplicas, or DefaultBurstReplicas).
	BurstReplicas int
}

// NodeReadOut is where one node stands in a plan.
type NodeReadOut struct {
	// Name is the node's name; Node the caller's node, nil when Missing.
	Name string
	Node *corev1.Node
	// Missing: pods target the node but it is not in the node list.
	Missing bool
	// ShouldRun: a daemon pod should run on the node (a desired node,
	// counted in desiredNumberScheduled); never for a missing node.
	ShouldRun bool
	// Held says whether, and why, the policy keeps the node's pods as they
	// are (HeldNone when it does not); see KeepReason.
	Held KeepReason
	// Wave is the node's wave: CanaryWave for a node in the canary (see
	// RolloutPolicy.CanaryNodes), RolloutPolicy.WaveOf otherwise (its
	// order-label group, or RestWave); "" without Options.Rollout's
	// Order.Label and Canary.
	Wave string
	// Pods are the DaemonSet's pods targeting the node, sorted by name
	// (terminal pods being deleted left out), and States their judgement
	// against the current revision at Options.Now, index for index:
	// Updated (the current revision; old otherwise), Ready, Available,
	// Deleting.
	Pods   []*corev1.Pod
	States []rollout.PodState
	// Oldest is the index in Pods of the pod the status counts on the node
	// (scheduled first, then by creation time, then name); -1 without
	// pods.
	Oldest int
}

// KeepReason is why a policy keeps a node's pods as they are: the
// reason a node is held.
type KeepReason string

// The holds, for desired nodes (Held is HeldScope for any node outside the
// scope, desired or not).
const (
	// HeldNone: the policy does not hold the node.
	HeldNone KeepReason = ""
	// HeldScope: the node is outside RolloutPolicy.Scope (missing nodes
	// are outside any scope).
	HeldScope KeepReason = "Scope"
	// HeldPartition: the node runs only old pods and is among the last
	// ones in update order (unavailable old pods go first, then available
	// ones, each in the policy's order) that RolloutPolicy.Partition
	// keeps.
	HeldPartition KeepReason = "Partition"
	// HeldWave: the node runs only old pods, in a wave after the one the
	// wave barrier (RolloutPolicy.Waves, or Canary) has open.
	HeldWave KeepReason = "Wave"
	// HeldPaused: the node runs only old pods and RolloutPolicy.Paused
	// holds the rollout.
	HeldPaused KeepReason = "Paused"
)

// HasUpdated reports whether a live (not deleting) pod of n runs the
// current revision.
func (n *NodeReadOut) HasUpdated() bool {
	return slices.ContainsFunc(n.States, func(s rollout.PodState) bool { return s.Updated && !s.Deleting })
}

// HasOld reports whether a live pod of n runs an old revision.
func (n *NodeReadOut) HasOld() bool {
	return slices.ContainsFunc(n.States, func(s rollout.PodState) bool { return !s.Updated && !s.Deleting })
}

// HasAvailable reports whether a live pod of n is available.
func (n *NodeReadOut) HasAvailable() bool {
	return slices.ContainsFunc(n.States, func(s rollout.PodState) bool { return s.Available && !s.Deleting })
}

// Live returns the number of n's pods that are not being deleted.
func (n *NodeReadOut) Live() int {
	live := 0
	for _, s := range n.States {
		if !s.Deleting {
			live++
		}
	}
	return live
}

// readOut builds the plan's read-out from c, after the plan's rolling
// step (step, nil when it did not run). It copies what it keeps out of
// c's memory, so that a Planner's next plan does not change it.
func (c *cluster) readOut(p *RolloutPolicy, step *RollingStep, burst int) *ReadOut {
	ro := &ReadOut{BurstReplicas: burst, Nodes: make([]NodeReadOut, 0, len(c.nodes)+len(c.missing))}
	npods := 0
	for _, group := range [2][]rollout.Node{c.nodes, c.missing} {
		for i := range group {
			npods += len(group[i].Pods)
		}
	}
	pods := make([]*corev1.Pod, 0, npods)
	states := make([]rollout.PodState, 0, npods)
	add := func(n *rollout.Node, node *corev1.Node) {
		r := NodeReadOut{Name: n.Name, Node: node, Missing: n.Missing, ShouldRun: n.ShouldRun && !n.Missing, Oldest: -1}
		if len(n.Pods) > 0 {
			at := len(pods)
			pods = append(pods, n.Pods...)
			states = append(states, n.States...)
			r.Pods, r.States = pods[at:len(pods):len(pods)], states[at:len(states):len(states)]
			r.Oldest = oldest(r.Pods)
		}
		ro.Nodes = append(ro.Nodes, r)
	}
	for i := range c.nodes {
		add(&c.nodes[i], c.info[i].node)
	}
	for i := range c.missing {
		add(&c.missing[i], nil)
	}
	if !p.IsZero() {
		p.holds(ro, step)
	}
	return ro
}

// holds writes the policy's facts on the read-out's nodes: their waves and
// holds. step is the rolling step the plan ran (or the paused one), nil
// when none ran. The canary is picked from the same facts compile picks
// it from (desired nodes in scope, and whether they run a live updated
// pod), so the two agree.
func (p *RolloutPolicy) holds(ro *ReadOut, step *RollingStep) {
	if p.Scope != nil {
		// A malformed scope fails the plan before any read-out.
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
	var old []*NodeReadOut
	desired := 0
	canary := p.canaryOfReadOut(ro)
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
	slices.SortStableFunc(old, func(a, b *NodeReadOut) int {
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
func (p *RolloutPolicy) waveNames(nodes []NodeReadOut) []string {
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

// compareWaves orders two nodes by their order-label rank and value only.
func (p *RolloutPolicy) compareWaves(a, b *corev1.Node) int {
	if a == nil || b == nil {
		return 0
	}
	k := p.Order.Label
	return cmp.Or(cmp.Compare(p.labelRank(a), p.labelRank(b)), cmp.Compare(a.Labels[k], b.Labels[k]))
}

// readOutOf is the read-out of a plan of ds whose create/delete pass asked
// for nothing (idle) or not, and whose rolling step is step: when the
// policy paused the step, it runs it here, for the read-out only.
func (c *cluster) readOutOf(ds *appsv1.DaemonSet, hash string, opts *Options, idle bool, step *RollingStep) *ReadOut {
	var paused *RollingStep
	var pausedErr error
	if opts.Rollout.Paused && idle && ds.Spec.UpdateStrategy.Type == appsv1.RollingUpdateDaemonSetStrategyType {
		s, err := c.rollingStep(ds, hash, opts)
		if err != nil {
			pausedErr = NewError(ds, StageRollingUpdate, err)
		} else {
			paused, step = &s, &s
		}
	}
	ro := c.readOut(&opts.Rollout, step, opts.burst())
	ro.Paused, ro.PausedErr = paused, pausedErr
	return ro
}

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}
