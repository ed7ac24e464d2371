package rollout

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Node is what the rolling-update step knows of one node.
type Node struct {
	Name string
	// Missing is true for a node name that pods target but that is not in
	// the node list. A missing node never counts as desired.
	Missing bool
	// ShouldRun is the placement verdict for a new daemon pod on the node
	// (ignored when Missing).
	ShouldRun bool
	// Pods are the DaemonSet's pods targeting the node, terminal pods that
	// are being deleted excluded. Pods that are being deleted (but are not
	// terminal) may be present; the step ignores them, and nil entries.
	Pods []*corev1.Pod
	// States, when non-nil, holds StateOf for each of Pods (the same
	// length, index for index), judged with the hash, template generation,
	// minReadySeconds and now the step is given: a caller that judged the
	// pods already saves the step from judging them again, and from reading
	// them at all (the step then knows a pod is being deleted from its
	// state's Deleting). When nil, the step judges them itself.
	States []PodState
}

// PodState is what one sync needs to know of a pod's progress, judged once.
type PodState struct {
	// Updated: the pod runs the current template (IsPodUpdated).
	Updated bool
	// Ready: the pod's Ready condition is true (IsPodReady).
	Ready bool
	// Available: the pod is ready for at least minReadySeconds
	// (IsPodAvailable).
	Available bool
	// Deleting: the pod has a deletion timestamp. The step passes over such
	// pods; keeping the fact here spares it reading every pod again.
	Deleting bool
}

// StateOf judges pod against the current revision hash and template
// generation, and its availability at now with minReadySeconds. A nil pod
// has the zero state.
func StateOf(pod *corev1.Pod, hash string, generation *int64, minReadySeconds int32, now time.Time) PodState {
	if pod == nil {
		return PodState{}
	}
	st := PodState{Updated: IsPodUpdated(pod, hash, generation), Ready: IsPodReady(pod), Deleting: pod.DeletionTimestamp != nil}
	st.Available = st.Ready && IsPodAvailable(pod, minReadySeconds, now)
	return st
}

// Action says what a rolling-update step does with one pod or node.
type Action string

// The actions of a rolling-update step.
const (
	// ActionReplaceUnavailable: an old pod that is not available is replaced
	// at once: deleted when maxSurge is 0, or given its new pod beside it
	// when surging. It does not wait for the budget, but it counts against
	// it.
	ActionReplaceUnavailable Action = "ReplaceUnavailable"
	// ActionReplace: an old available pod is replaced within the budget:
	// deleted within maxUnavailable (maxSurge 0), or given a new pod beside
	// it within maxSurge.
	ActionReplace Action = "Replace"
	// ActionRemoveReplaced: with surge, an old pod whose new pod on the same
	// node is available is deleted.
	ActionRemoveReplaced Action = "RemoveReplaced"
	// ActionRemoveIneligible: with surge, an old pod on a node that may no
	// longer run a new pod is deleted: at once when it is not available,
	// otherwise only as far as the available pods exceed the desired count.
	ActionRemoveIneligible Action = "RemoveIneligible"
)

// StepCreate asks for a new pod on a node.
type StepCreate struct {
	NodeName string
	Action   Action
}

// StepDelete asks for an old pod to be deleted.
type StepDelete struct {
	// Pod is the caller's pod, unmodified.
	Pod      *corev1.Pod
	NodeName string
	Action   Action
}

// Step is one rolling-update step: the budgets it worked with, what it
// counted, and what it chose. Creates are sorted by node name, Deletes by
// node name then pod name.
type Step struct {
	// MaxSurge and MaxUnavailable are the budgets scaled against Desired,
	// after upstream's default: when both are 0 and Desired is positive,
	// MaxUnavailable is 1.
	MaxSurge, MaxUnavailable int
	// Desired is the number of existing nodes that should run the pod.
	Desired int
	// NumUnavailable (maxSurge 0) is the number of nodes counted as
	// unavailable: no pod, an old and a new pod, an unavailable new pod,
	// several old or new pods, or an old unavailable pod being replaced.
	NumUnavailable int
	// NumSurge (surge) is the number of nodes counted as surging: a new pod
	// beside an old one that is not yet available, or several pods.
	NumSurge int
	// NumAvailable (surge) is the number of nodes whose pod (the old one
	// when both exist) is available.
	NumAvailable int
	// Candidates is the number of old available pods (maxSurge 0), or of
	// eligible nodes with an old available pod and no new one (surge), that
	// wait for the budget; the step replaced the first ones by node name,
	// as many as the budget allows.
	Candidates int
	Creates    []StepCreate
	Deletes    []StepDelete
	// Policy is what the step counted for a non-zero Policy (see
	// RollingUpdatePolicy); nil under the zero policy.
	Policy *StepPolicy
}

// RollingUpdate computes one rolling-update step of ds, as upstream's
// rollingUpdate, from one Node per node that has pods or should run one
// (missing nodes included). Passing every node of the cluster is fine too: a
// node that should not run the pod (or is Missing) and has no pods, nil
// entries aside, has nothing to roll and is ignored, as upstream never sees
// it. hash is the current revision hash; a pod is new
// when IsPodUpdated(pod, hash, template generation) holds (an unparsable
// template generation counts as none). Availability is judged at now with
// ds.Spec.MinReadySeconds.
//
// When maxSurge is 0, old pods are deleted so that at most maxUnavailable
// nodes are unavailable (old unavailable pods always); the create pass of
// the next sync creates their successors. When maxSurge is positive, new
// pods are created beside old ones (beside unavailable old pods always,
// beside available ones within maxSurge) and old pods are deleted once their
// new pod is available. Where upstream picks candidates in Go map order, the
// step picks them by node name. The step returns nothing to do for a
// DaemonSet whose strategy is not RollingUpdate.
//
// It fails, naming the DaemonSet, when maxSurge or maxUnavailable is invalid
// and, when surging, when an old pod without a new pod sits on a Missing
// node (upstream cannot look the node up and gives up the step). It also
// fails when ds is nil (wrapping ErrNilDaemonSet), when a node's name is
// empty or repeats an earlier node's (a *field.Error at nodes[i].name, i the
// later index), or when a node's States and Pods differ in length. Errors
// read "daemonset "ns/name": rolling update: <cause>", except the budget
// errors of UnavailableCount and SurgeCount, which are returned as they are.
// It modifies nothing; nodes need not be sorted.
func RollingUpdate(ds *appsv1.DaemonSet, nodes []Node, hash string, now time.Time) (Step, error) {
	return RollingUpdatePolicy(ds, nodes, hash, now, Policy{})
}

// RollingUpdatePolicy is RollingUpdate under p (see Policy); the zero
// Policy gives exactly RollingUpdate's step. Under a non-zero p, Step.Policy
// holds the partition and the counts the policy needs. It also fails, with
// a *field.Error under "policy", when a slice of p has the wrong length,
// p.Partition is negative or a per-domain budget does not scale. p is not
// modified.
func RollingUpdatePolicy(ds *appsv1.DaemonSet, nodes []Node, hash string, now time.Time, p Policy) (Step, error) {
	if ds == nil {
		return Step{}, fmt.Errorf("rolling update: %w", ErrNilDaemonSet)
	}
	for i := range nodes {
		if n := &nodes[i]; n.States != nil && len(n.States) != len(n.Pods) {
			return Step{}, stepError(ds, fmt.Errorf("nodes[%d] (%q): %d states for %d pods", i, n.Name, len(n.States), len(n.Pods)))
		}
	}
	order := sortedNodeOrder(nodes)
	if err := checkNodeNames(nodes, order); err != nil {
		return Step{}, stepError(ds, err)
	}
	if err := checkPolicy(&p, len(nodes)); err != nil {
		return Step{}, stepError(ds, err)
	}
	if ds.Spec.UpdateStrategy.Type != appsv1.RollingUpdateDaemonSetStrategyType {
		return Step{}, nil
	}
	var step Step
	for i := range nodes {
		if !nodes[i].Missing && nodes[i].ShouldRun {
			step.Desired++
		}
	}
	maxUnavailable, err := UnavailableCount(ds, step.Desired)
	if err != nil {
		return Step{}, err
	}
	maxSurge, err := SurgeCount(ds, step.Desired)
	if err != nil {
		return Step{}, err
	}
	if step.Desired > 0 && maxUnavailable == 0 && maxSurge == 0 {
		maxUnavailable = 1
	}
	step.MaxSurge, step.MaxUnavailable = maxSurge, maxUnavailable

	order = slices.DeleteFunc(order, func(i int) bool { return idle(&nodes[i]) })
	gen, genErr := GetTemplateGeneration(ds)
	if genErr != nil {
		gen = nil
	}
	s := stepper{ds: ds, hash: hash, gen: gen, now: now, p: &p}
	if !p.IsZero() {
		orderByRank(order, &p)
		step.Policy = &StepPolicy{Partition: p.Partition}
	}
	if maxSurge == 0 {
		if err := s.withoutSurge(&step, nodes, order); err != nil {
			return Step{}, stepError(ds, err)
		}
	} else if err := s.withSurge(&step, nodes, order); err != nil {
		return Step{}, err
	}
	slices.SortFunc(step.Deletes, func(a, b StepDelete) int {
		return cmp.Or(cmp.Compare(a.NodeName, b.NodeName), cmp.Compare(a.Pod.Name, b.Pod.Name))
	})
	slices.SortFunc(step.Creates, func(a, b StepCreate) int { return cmp.Compare(a.NodeName, b.NodeName) })
	return step, nil
}

// sortedNodeOrder returns the indices of nodes in name order, without
// touching nodes.
func sortedNodeOrder(nodes []Node) []int {
	order := make([]int, len(nodes))
	for i := range order {
		order[i] = i
	}
	if !slices.IsSortedFunc(nodes, func(a, b Node) int { return cmp.Compare(a.Name, b.Name) }) {
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(nodes[a].Name, nodes[b].Name) })
	}
	return order
}

type stepper struct {
	ds   *appsv1.DaemonSet
	hash string
	gen  *int64
	now  time.Time
	p    *Policy
}

// judged is a pod with its state.
type judged struct {
	pod *corev1.Pod
	PodState
}

// split returns the one new and the one old pod of a node, ignoring nil
// pods and pods being deleted; ok is false when there are several of either. A missing
// pod has a nil pod field.
func (s stepper) split(n *Node) (newPod, oldPod judged, ok bool) {
	for i, pod := range n.Pods {
		if pod == nil {
			continue
		}
		var st PodState
		if n.States != nil {
			st = n.States[i]
		} else {
			st = StateOf(pod, s.hash, s.gen, s.ds.Spec.MinReadySeconds, s.now)
		}
		if st.Deleting {
			continue
		}
		if st.Updated {
			if newPod.pod != nil {
				return judged{}, judged{}, false
			}
			newPod = judged{pod, st}
		} else {
			if oldPod.pod != nil {
				return judged{}, judged{}, false
			}
			oldPod = judged{pod, st}
		}
	}
	return newPod, oldPod, true
}

// candidate is a replacement waiting for the budget: a delete (maxSurge 0)
// or a create (surge), with its node's index.
type candidate[T any] struct {
	action T
	i      int
}

// chooser picks replacements within the budgets: room is what the global
// budget leaves, partition what the partition leaves (-1: no limit), dom
// the per-domain budget.
type chooser struct {
	p         *Policy
	room      int
	partition int
	dom       *domains
}

// take reports whether node i may be replaced now and, if so, charges the
// budgets; global says whether the global and domain budgets apply.
func (c *chooser) take(i int, global bool) bool {
	if c.partition == 0 {
		return false
	}
	if global {
		if c.room <= 0 || !c.dom.admits(c.p, i) {
			return false
		}
		c.room--
		c.dom.charge(c.p, i)
	}
	if c.partition > 0 {
		c.partition--
	}
	return true
}

// remaining counts node n towards the partition: a desired node, not held,
// with an old pod and no new one.
func (s stepper) remaining(step *Step, n *Node, i int, newPod, oldPod judged) {
	if step.Policy == nil || n.Missing || !n.ShouldRun {
		return
	}
	if s.p.held(i) {
		step.Policy.Held++
		return
	}
	if oldPod.pod != nil && newPod.pod == nil {
		step.Policy.Remaining++
	}
}

// newChooser sets the partition's room once the walk counted Remaining.
func (s stepper) newChooser(step *Step, room int, dom *domains) chooser {
	c := chooser{p: s.p, room: room, partition: -1, dom: dom}
	if step.Policy != nil && s.p.Partition > 0 {
		c.partition = max(step.Policy.Remaining-s.p.Partition, 0)
	}
	return c
}

// withoutSurge deletes old pods within maxUnavailable. Upstream walks the
// nodes in map order and stops collecting candidates once its running count
// reaches the budget; since the count only grows, the number of candidates
// it uses is the budget left after the whole walk, whatever the order, and
// only which ones depends on the order. Here every candidate is collected
// and the first ones in the policy's order (node name by default) are used.
// Old unavailable pods are deleted at once (Policy.Strict: first, within
// the budget), as far as the partition allows.
func (s stepper) withoutSurge(step *Step, nodes []Node, order []int) error {
	dom, err := newDomains(s.p, s.p.DomainMaxUnavailable, nodes)
	if err != nil {
		return err
	}
	direct := !s.p.Strict && s.p.Partition == 0
	zero := s.p.IsZero()
	var urgent []candidate[StepDelete]
	// candidates and, under a policy, their node indices: the zero policy
	// keeps upstream's allocations.
	var candidates []StepDelete
	var candIdx []int
	nCand := 0 // candidates counted, not kept, under the zero policy
	for _, i := range order {
		n := &nodes[i]
		newPod, oldPod, ok := s.split(n)
		if ok {
			s.remaining(step, n, i, newPod, oldPod)
		}
		switch {
		case !ok:
			// Several pods of a kind: the create/delete pass cleans up.
			step.NumUnavailable++
			dom.charge(s.p, i)
		case oldPod.pod == nil && newPod.pod == nil, oldPod.pod != nil && newPod.pod != nil:
			step.NumUnavailable++
			dom.charge(s.p, i)
		case newPod.pod != nil:
			if !newPod.Available {
				step.NumUnavailable++
				dom.charge(s.p, i)
			}
		case !oldPod.Available:
			d := StepDelete{Pod: oldPod.pod, NodeName: n.Name, Action: ActionReplaceUnavailable}
			switch {
			case s.p.held(i):
				step.NumUnavailable++
				dom.charge(s.p, i)
			case direct:
				step.Deletes = append(step.Deletes, d)
				step.NumUnavailable++
				dom.charge(s.p, i)
			case s.p.Strict:
				urgent = append(urgent, candidate[StepDelete]{d, i})
			default:
				step.NumUnavailable++
				dom.charge(s.p, i)
				urgent = append(urgent, candidate[StepDelete]{d, i})
			}
		case s.p.held(i):
		case zero:
			nCand++
		default:
			candidates = append(candidates, StepDelete{Pod: oldPod.pod, NodeName: n.Name, Action: ActionReplace})
			candIdx = append(candIdx, i)
		}
	}
	step.Candidates = nCand + len(candidates) + len(urgent)*boolInt(s.p.Strict)
	c := s.newChooser(step, step.MaxUnavailable-step.NumUnavailable, dom)
	for _, u := range urgent {
		if c.take(u.i, s.p.Strict) {
			step.Deletes = append(step.Deletes, u.action)
			if s.p.Strict {
				step.NumUnavailable++
			}
		}
	}
	if zero {
		// The first candidates in order, found by a second walk rather
		// than kept from the first: a steady or early rollout plan then
		// allocates nothing per node.
		s.eachCandidate(nodes, order, min(max(c.room, 0), nCand), func(n *Node, oldPod judged) bool {
			if oldPod.pod == nil || !oldPod.Available {
				return false
			}
			step.Deletes = append(step.Deletes, StepDelete{Pod: oldPod.pod, NodeName: n.Name, Action: ActionReplace})
			return true
		})
		return nil
	}
	for k, cd := range candidates {
		if c.take(candIdx[k], true) {
			step.Deletes = append(step.Deletes, cd)
		}
	}
	return nil
}

// withSurge creates new pods beside old ones within maxSurge and deletes old
// pods whose new pod is available. Candidates are collected and chosen as in
// withoutSurge.
func (s stepper) withSurge(step *Step, nodes []Node, order []int) error {
	dom, err := newDomains(s.p, s.p.DomainMaxSurge, nodes)
	if err != nil {
		return stepError(s.ds, err)
	}
	direct := !s.p.Strict && s.p.Partition == 0
	zero := s.p.IsZero()
	var urgent []candidate[StepCreate]
	var candidates []StepCreate
	var candIdx []int
	nCand := 0 // candidates counted, not kept, under the zero policy
	var ineligible []StepDelete
	for _, i := range order {
		n := &nodes[i]
		newPod, oldPod, ok := s.split(n)
		if !ok {
			step.NumSurge++
			dom.charge(s.p, i)
			continue
		}
		s.remaining(step, n, i, newPod, oldPod)
		// Availability counts every node, those being drained included.
		switch {
		case oldPod.pod != nil:
			if oldPod.Available {
				step.NumAvailable++
			}
		case newPod.pod != nil:
			if newPod.Available {
				step.NumAvailable++
			}
		}
		switch {
		case oldPod.pod == nil:
			// Nothing to replace; the create pass handles empty nodes.
		case newPod.pod == nil:
			if n.Missing {
				return stepError(s.ds, fmt.Errorf("pod %q targets node %q, which does not exist", oldPod.pod.Name, n.Name))
			}
			switch {
			case !oldPod.Available && !n.ShouldRun:
				step.Deletes = append(step.Deletes, StepDelete{Pod: oldPod.pod, NodeName: n.Name, Action: ActionRemoveIneligible})
			case !n.ShouldRun:
				ineligible = append(ineligible, StepDelete{Pod: oldPod.pod, NodeName: n.Name, Action: ActionRemoveIneligible})
			case s.p.held(i):
			case !oldPod.Available && direct:
				step.Creates = append(step.Creates, StepCreate{NodeName: n.Name, Action: ActionReplaceUnavailable})
			case !oldPod.Available:
				urgent = append(urgent, candidate[StepCreate]{StepCreate{NodeName: n.Name, Action: ActionReplaceUnavailable}, i})
			case zero:
				nCand++
			default:
				candidates = append(candidates, StepCreate{NodeName: n.Name, Action: ActionReplace})
				candIdx = append(candIdx, i)
			}
		case !newPod.Available:
			// Surged here already; waiting for the new pod.
			step.NumSurge++
			dom.charge(s.p, i)
		default:
			step.Deletes = append(step.Deletes, StepDelete{Pod: oldPod.pod, NodeName: n.Name, Action: ActionRemoveReplaced})
		}
	}
	// Old pods on nodes that may no longer run the pod go only as far as
	// the available pods exceed the desired count (kubernetes#118823).
	if surplus := step.NumAvailable - step.Desired; surplus > 0 {
		step.Deletes = append(step.Deletes, ineligible[:min(surplus, len(ineligible))]...)
	}
	step.Candidates = nCand + len(candidates) + len(urgent)*boolInt(s.p.Strict)
	c := s.newChooser(step, step.MaxSurge-step.NumSurge, dom)
	for _, u := range urgent {
		if c.take(u.i, s.p.Strict) {
			step.Creates = append(step.Creates, u.action)
		}
	}
	if zero {
		s.eachCandidate(nodes, order, min(max(c.room, 0), nCand), func(n *Node, oldPod judged) bool {
			if !n.ShouldRun || oldPod.pod == nil || !oldPod.Available {
				return false
			}
			step.Creates = append(step.Creates, StepCreate{NodeName: n.Name, Action: ActionReplace})
			return true
		})
		return nil
	}
	for k, cd := range candidates {
		if c.take(candIdx[k], true) {
			step.Creates = append(step.Creates, cd)
		}
	}
	return nil
}

// eachCandidate walks the nodes in order again and calls take on each
// node's one old pod, the node having exactly one old pod and no new one
// (the replacement candidates of the first walk, under the zero policy),
// until take has accepted k of them.
func (s stepper) eachCandidate(nodes []Node, order []int, k int, take func(n *Node, oldPod judged) bool) {
	for _, i := range order {
		if k <= 0 {
			return
		}
		n := &nodes[i]
		newPod, oldPod, ok := s.split(n)
		if ok && newPod.pod == nil && take(n, oldPod) {
			k--
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// idle reports whether n has nothing to roll: it may not run the pod (or is
// Missing) and holds no pod. Upstream's step only walks nodes that have pods
// or should run one, so such a node must not count as unavailable.
func idle(n *Node) bool {
	if n.ShouldRun && !n.Missing {
		return false
	}
	for _, pod := range n.Pods {
		if pod != nil {
			return false
		}
	}
	return true
}

// checkNodeNames rejects an empty node name and a name given twice, naming
// the index of the offending (later) entry. order lists nodes by name.
func checkNodeNames(nodes []Node, order []int) error {
	for k, i := range order {
		name := nodes[i].Name
		if name == "" {
			return field.Required(field.NewPath("nodes").Index(i).Child("name"), "")
		}
		if k > 0 && nodes[order[k-1]].Name == name {
			later := max(i, order[k-1])
			return field.Duplicate(field.NewPath("nodes").Index(later).Child("name"), name)
		}
	}
	return nil
}

// stepError names ds once in front of an error of the step itself.
func stepError(ds *appsv1.DaemonSet, err error) error {
	return fmt.Errorf("daemonset %q: rolling update: %w", keyOfDaemonSet(ds), err)
}
