package rollout

// The rolling-update step as it was before the rewrite (ea5fb88), kept as
// the differential oracle of FuzzStepMatchesOld. Temporary.

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Action says what a rolling-update step does with one pod or node.
type oldAction string

// The actions of a rolling-update step.
const (
	// ActionReplaceUnavailable: an old pod that is not available is replaced
	// at once: deleted when maxSurge is 0, or given its new pod beside it
	// when surging. It does not wait for the budget, but it counts against
	// it.
	oldActionReplaceUnavailable oldAction = "ReplaceUnavailable"
	// ActionReplace: an old available pod is replaced within the budget:
	// deleted within maxUnavailable (maxSurge 0), or given a new pod beside
	// it within maxSurge.
	oldActionReplace oldAction = "Replace"
	// ActionRemoveReplaced: with surge, an old pod whose new pod on the same
	// node is available is deleted.
	oldActionRemoveReplaced oldAction = "RemoveReplaced"
	// ActionRemoveIneligible: with surge, an old pod on a node that may no
	// longer run a new pod is deleted: at once when it is not available,
	// otherwise only as far as the available pods exceed the desired count.
	oldActionRemoveIneligible oldAction = "RemoveIneligible"
)

// StepCreate asks for a new pod on a node.
type oldStepCreate struct {
	NodeName string
	Action   oldAction
}

// StepDelete asks for an old pod to be deleted.
type oldStepDelete struct {
	// Pod is the caller's pod, unmodified.
	Pod      *corev1.Pod
	NodeName string
	Action   oldAction
}

// Step is one rolling-update step: the budgets it worked with, what it
// counted, and what it chose. Creates are sorted by node name, Deletes by
// node name then pod name.
type oldStep struct {
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
	Creates    []oldStepCreate
	Deletes    []oldStepDelete
	// Policy is what the step counted for a non-zero Policy (see
	// RollingUpdatePolicy); nil under the zero policy.
	Policy *oldStepPolicy
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
func oldRollingUpdate(ds *appsv1.DaemonSet, nodes []Node, hash string, now time.Time) (oldStep, error) {
	return oldRollingUpdatePolicy(ds, nodes, hash, now, oldPolicy{})
}

// RollingUpdatePolicy is RollingUpdate under p (see Policy); the zero
// Policy gives exactly RollingUpdate's step. Under a non-zero p, Step.Policy
// holds the partition and the counts the policy needs. It also fails, with
// a *field.Error under "policy", when a slice of p has the wrong length,
// p.Partition is negative or a per-domain budget does not scale. p is not
// modified.
func oldRollingUpdatePolicy(ds *appsv1.DaemonSet, nodes []Node, hash string, now time.Time, p oldPolicy) (oldStep, error) {
	if ds == nil {
		return oldStep{}, fmt.Errorf("rolling update: %w", ErrNilDaemonSet)
	}
	for i := range nodes {
		if n := &nodes[i]; n.States != nil && len(n.States) != len(n.Pods) {
			return oldStep{}, oldstepError(ds, fmt.Errorf("nodes[%d] (%q): %d states for %d pods", i, n.Name, len(n.States), len(n.Pods)))
		}
	}
	order := oldsortedNodeOrder(nodes)
	if err := oldcheckNodeNames(nodes, order); err != nil {
		return oldStep{}, oldstepError(ds, err)
	}
	if err := oldcheckPolicy(&p, len(nodes)); err != nil {
		return oldStep{}, oldstepError(ds, err)
	}
	if ds.Spec.UpdateStrategy.Type != appsv1.RollingUpdateDaemonSetStrategyType {
		return oldStep{}, nil
	}
	var step oldStep
	for i := range nodes {
		if !nodes[i].Missing && nodes[i].ShouldRun {
			step.Desired++
		}
	}
	maxUnavailable, err := UnavailableCount(ds, step.Desired)
	if err != nil {
		return oldStep{}, err
	}
	maxSurge, err := SurgeCount(ds, step.Desired)
	if err != nil {
		return oldStep{}, err
	}
	if step.Desired > 0 && maxUnavailable == 0 && maxSurge == 0 {
		maxUnavailable = 1
	}
	step.MaxSurge, step.MaxUnavailable = maxSurge, maxUnavailable

	order = slices.DeleteFunc(order, func(i int) bool { return oldidle(&nodes[i]) })
	gen, genErr := GetTemplateGeneration(ds)
	if genErr != nil {
		gen = nil
	}
	s := oldstepper{ds: ds, hash: hash, gen: gen, now: now, p: &p}
	if !p.IsZero() {
		oldorderByRank(order, &p)
		step.Policy = &oldStepPolicy{Partition: p.Partition}
	}
	if maxSurge == 0 {
		if err := s.withoutSurge(&step, nodes, order); err != nil {
			return oldStep{}, oldstepError(ds, err)
		}
	} else if err := s.withSurge(&step, nodes, order); err != nil {
		return oldStep{}, err
	}
	slices.SortFunc(step.Deletes, func(a, b oldStepDelete) int {
		return cmp.Or(cmp.Compare(a.NodeName, b.NodeName), cmp.Compare(a.Pod.Name, b.Pod.Name))
	})
	slices.SortFunc(step.Creates, func(a, b oldStepCreate) int { return cmp.Compare(a.NodeName, b.NodeName) })
	return step, nil
}

// sortedNodeOrder returns the indices of nodes in name order, without
// touching nodes.
func oldsortedNodeOrder(nodes []Node) []int {
	order := make([]int, len(nodes))
	for i := range order {
		order[i] = i
	}
	if !slices.IsSortedFunc(nodes, func(a, b Node) int { return cmp.Compare(a.Name, b.Name) }) {
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(nodes[a].Name, nodes[b].Name) })
	}
	return order
}

type oldstepper struct {
	ds   *appsv1.DaemonSet
	hash string
	gen  *int64
	now  time.Time
	p    *oldPolicy
}

// judged is a pod with its state.
type oldjudged struct {
	pod *corev1.Pod
	PodState
}

// split returns the one new and the one old pod of a node, ignoring nil
// pods and pods being deleted; ok is false when there are several of either. A missing
// pod has a nil pod field.
func (s oldstepper) split(n *Node) (newPod, oldPod oldjudged, ok bool) {
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
				return oldjudged{}, oldjudged{}, false
			}
			newPod = oldjudged{pod, st}
		} else {
			if oldPod.pod != nil {
				return oldjudged{}, oldjudged{}, false
			}
			oldPod = oldjudged{pod, st}
		}
	}
	return newPod, oldPod, true
}

// candidate is a replacement waiting for the budget: a delete (maxSurge 0)
// or a create (surge), with its node's index.
type oldcandidate[T any] struct {
	action T
	i      int
}

// chooser picks replacements within the budgets: room is what the global
// budget leaves, partition what the partition leaves (-1: no limit), dom
// the per-domain budget.
type oldchooser struct {
	p         *oldPolicy
	room      int
	partition int
	dom       *olddomains
}

// take reports whether node i may be replaced now and, if so, charges the
// budgets; global says whether the global and domain budgets apply.
func (c *oldchooser) take(i int, global bool) bool {
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
func (s oldstepper) remaining(step *oldStep, n *Node, i int, newPod, oldPod oldjudged) {
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
func (s oldstepper) newChooser(step *oldStep, room int, dom *olddomains) oldchooser {
	c := oldchooser{p: s.p, room: room, partition: -1, dom: dom}
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
func (s oldstepper) withoutSurge(step *oldStep, nodes []Node, order []int) error {
	dom, err := oldnewDomains(s.p, s.p.DomainMaxUnavailable, nodes)
	if err != nil {
		return err
	}
	direct := !s.p.Strict && s.p.Partition == 0
	zero := s.p.IsZero()
	var urgent []oldcandidate[oldStepDelete]
	// candidates and, under a policy, their node indices: the zero policy
	// keeps upstream's allocations.
	var candidates []oldStepDelete
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
			d := oldStepDelete{Pod: oldPod.pod, NodeName: n.Name, Action: oldActionReplaceUnavailable}
			switch {
			case s.p.held(i):
				step.NumUnavailable++
				dom.charge(s.p, i)
			case direct:
				step.Deletes = append(step.Deletes, d)
				step.NumUnavailable++
				dom.charge(s.p, i)
			case s.p.Strict:
				urgent = append(urgent, oldcandidate[oldStepDelete]{d, i})
			default:
				step.NumUnavailable++
				dom.charge(s.p, i)
				urgent = append(urgent, oldcandidate[oldStepDelete]{d, i})
			}
		case s.p.held(i):
		case zero:
			nCand++
		default:
			candidates = append(candidates, oldStepDelete{Pod: oldPod.pod, NodeName: n.Name, Action: oldActionReplace})
			candIdx = append(candIdx, i)
		}
	}
	step.Candidates = nCand + len(candidates) + len(urgent)*oldboolInt(s.p.Strict)
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
		s.eachCandidate(nodes, order, min(max(c.room, 0), nCand), func(n *Node, oldPod oldjudged) bool {
			if oldPod.pod == nil || !oldPod.Available {
				return false
			}
			step.Deletes = append(step.Deletes, oldStepDelete{Pod: oldPod.pod, NodeName: n.Name, Action: oldActionReplace})
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
func (s oldstepper) withSurge(step *oldStep, nodes []Node, order []int) error {
	dom, err := oldnewDomains(s.p, s.p.DomainMaxSurge, nodes)
	if err != nil {
		return oldstepError(s.ds, err)
	}
	direct := !s.p.Strict && s.p.Partition == 0
	zero := s.p.IsZero()
	var urgent []oldcandidate[oldStepCreate]
	var candidates []oldStepCreate
	var candIdx []int
	nCand := 0 // candidates counted, not kept, under the zero policy
	var ineligible []oldStepDelete
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
				return oldstepError(s.ds, fmt.Errorf("pod %q targets node %q, which does not exist", oldPod.pod.Name, n.Name))
			}
			switch {
			case !oldPod.Available && !n.ShouldRun:
				step.Deletes = append(step.Deletes, oldStepDelete{Pod: oldPod.pod, NodeName: n.Name, Action: oldActionRemoveIneligible})
			case !n.ShouldRun:
				ineligible = append(ineligible, oldStepDelete{Pod: oldPod.pod, NodeName: n.Name, Action: oldActionRemoveIneligible})
			case s.p.held(i):
			case !oldPod.Available && direct:
				step.Creates = append(step.Creates, oldStepCreate{NodeName: n.Name, Action: oldActionReplaceUnavailable})
			case !oldPod.Available:
				urgent = append(urgent, oldcandidate[oldStepCreate]{oldStepCreate{NodeName: n.Name, Action: oldActionReplaceUnavailable}, i})
			case zero:
				nCand++
			default:
				candidates = append(candidates, oldStepCreate{NodeName: n.Name, Action: oldActionReplace})
				candIdx = append(candIdx, i)
			}
		case !newPod.Available:
			// Surged here already; waiting for the new pod.
			step.NumSurge++
			dom.charge(s.p, i)
		default:
			step.Deletes = append(step.Deletes, oldStepDelete{Pod: oldPod.pod, NodeName: n.Name, Action: oldActionRemoveReplaced})
		}
	}
	// Old pods on nodes that may no longer run the pod go only as far as
	// the available pods exceed the desired count (kubernetes#118823).
	if surplus := step.NumAvailable - step.Desired; surplus > 0 {
		step.Deletes = append(step.Deletes, ineligible[:min(surplus, len(ineligible))]...)
	}
	step.Candidates = nCand + len(candidates) + len(urgent)*oldboolInt(s.p.Strict)
	c := s.newChooser(step, step.MaxSurge-step.NumSurge, dom)
	for _, u := range urgent {
		if c.take(u.i, s.p.Strict) {
			step.Creates = append(step.Creates, u.action)
		}
	}
	if zero {
		s.eachCandidate(nodes, order, min(max(c.room, 0), nCand), func(n *Node, oldPod oldjudged) bool {
			if !n.ShouldRun || oldPod.pod == nil || !oldPod.Available {
				return false
			}
			step.Creates = append(step.Creates, oldStepCreate{NodeName: n.Name, Action: oldActionReplace})
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
func (s oldstepper) eachCandidate(nodes []Node, order []int, k int, take func(n *Node, oldPod oldjudged) bool) {
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

func oldboolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// idle reports whether n has nothing to roll: it may not run the pod (or is
// Missing) and holds no pod. Upstream's step only walks nodes that have pods
// or should run one, so such a node must not count as unavailable.
func oldidle(n *Node) bool {
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
func oldcheckNodeNames(nodes []Node, order []int) error {
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
func oldstepError(ds *appsv1.DaemonSet, err error) error {
	return fmt.Errorf("daemonset %q: rolling update: %w", keyOfDaemonSet(ds), err)
}

// Policy narrows a rolling-update step beyond upstream's: which nodes it
// may update, in what order, how many, and how budgets are spent. The zero
// value is upstream's step exactly. Slices, when non-nil, hold one entry
// per node given to the step, index for index.
type oldPolicy struct {
	// Hold marks nodes the step must not update: their old pods stay,
	// available or not (an out-of-scope node). A held node still counts in
	// the budgets as upstream counts it.
	Hold []bool
	// Rank orders the nodes for update, ascending, ties broken by node
	// name; nil means by name. Unavailable old pods are still replaced
	// before available ones, each kind in this order.
	Rank []int
	// Partition is the number of desired nodes that are not held whose
	// old pods the step keeps: it starts replacements only while more than
	// Partition such nodes run only old pods. Since nodes are replaced in
	// order, the last ones in the order are kept. 0 keeps none.
	Partition int
	// Domain, when non-nil, names each node's failure domain; with
	// DomainMaxUnavailable (maxSurge 0) or DomainMaxSurge (surge) set, no
	// domain gets more unavailable, or surging, nodes than that budget
	// scaled against the domain's desired nodes (rounded up, at least 1),
	// on top of the global budget. Nodes with the empty domain form one
	// domain of their own.
	Domain                               []string
	DomainMaxUnavailable, DomainMaxSurge *intstr.IntOrString
	// Strict makes old pods that are already unavailable wait for the
	// budget like available ones (before them) instead of being replaced
	// at once: they count against maxUnavailable, or maxSurge, when
	// replaced, and the partition and domain budgets apply to them too.
	Strict bool
}

// IsZero reports whether p is the zero policy, upstream's step.
func (p *oldPolicy) IsZero() bool {
	return p.Hold == nil && p.Rank == nil && p.Partition == 0 && p.Domain == nil &&
		p.DomainMaxUnavailable == nil && p.DomainMaxSurge == nil && !p.Strict
}

// StepPolicy is what a step under a non-zero Policy counted for it.
type oldStepPolicy struct {
	// Partition is Policy.Partition.
	Partition int
	// Remaining is the number of desired nodes, not held, that ran only
	// old pods before the step; the rollout under the policy is done when
	// it is at most Partition and nothing else is in flight.
	Remaining int
	// Held is the number of desired nodes the policy held.
	Held int
}

// checkPolicy rejects slices of the wrong length and negative partitions.
func oldcheckPolicy(p *oldPolicy, n int) error {
	for _, s := range []struct {
		name string
		len  int
		set  bool
	}{{"hold", len(p.Hold), p.Hold != nil}, {"rank", len(p.Rank), p.Rank != nil}, {"domain", len(p.Domain), p.Domain != nil}} {
		if s.set && s.len != n {
			return field.Invalid(field.NewPath("policy", s.name), s.len, fmt.Sprintf("must have one entry per node (%d)", n))
		}
	}
	if p.Partition < 0 {
		return field.Invalid(field.NewPath("policy", "partition"), p.Partition, "must be non-negative")
	}
	return nil
}

// orderByRank re-sorts order (node indices in name order) by p.Rank,
// keeping name order among equal ranks.
func oldorderByRank(order []int, p *oldPolicy) {
	if p.Rank == nil {
		return
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(p.Rank[a], p.Rank[b]) })
}

// held reports whether the policy holds node i.
func (p *oldPolicy) held(i int) bool { return p.Hold != nil && p.Hold[i] }

// domains counts, per domain, the nodes a budget charges, against a
// per-domain limit scaled from the domain's desired nodes. A nil *domains
// (no per-domain budget) admits everything.
type olddomains struct {
	used, limit map[string]int
}

// newDomains scales budget against each domain's desired nodes; nil when
// the policy sets no per-domain budget.
func oldnewDomains(p *oldPolicy, budget *intstr.IntOrString, nodes []Node) (*olddomains, error) {
	if p.Domain == nil || budget == nil {
		return nil, nil
	}
	d := &olddomains{used: map[string]int{}, limit: map[string]int{}}
	desired := map[string]int{}
	for i := range nodes {
		if !nodes[i].Missing && nodes[i].ShouldRun {
			desired[p.Domain[i]]++
		}
	}
	for dom, n := range desired {
		v, err := intstr.GetScaledValueFromIntOrPercent(budget, n, true)
		if err != nil || v < 0 {
			return nil, field.Invalid(field.NewPath("policy", "domainBudget"), budget.String(), "must be a non-negative integer or percentage")
		}
		d.limit[dom] = max(v, 1)
	}
	return d, nil
}

func (d *olddomains) charge(p *oldPolicy, i int) {
	if d != nil {
		d.used[p.Domain[i]]++
	}
}

func (d *olddomains) admits(p *oldPolicy, i int) bool {
	if d == nil {
		return true
	}
	dom := p.Domain[i]
	lim, ok := d.limit[dom]
	if !ok {
		lim = 1 // a domain without desired nodes
	}
	return d.used[dom] < lim
}
