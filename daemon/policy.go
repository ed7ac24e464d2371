package daemon

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/rollout"
)

// RolloutPolicy shapes the rolling-update step beyond upstream's
// controller. The zero value is upstream's behaviour exactly, and costs
// nothing. The policy only narrows the rolling step: the create/delete pass
// (missing pods created, failed, excess and misplaced pods deleted) runs as
// upstream, whatever the policy.
//
// Revisions of new pods. Every pod a plan creates runs the current
// revision, under any policy: a node that joins outside the Scope, a
// failed pod replaced on a node kept by the Partition, a missing pod
// created while Paused. The reasons: a DaemonSet has one template, an old
// revision's template lives in ControllerRevision data a pure planner would
// have to decode and trust, and a node without a pod has nothing to "keep";
// upstream and OpenKruise's Advanced DaemonSet also create new pods from
// the current template. A node so given the current revision counts as
// updated: the partition then keeps fewer old nodes than asked, never
// more replacements than asked.
//
// What the plan reports. When the policy shapes the step (a Scope, an
// Order, a Canary, Waves, a DomainBudget, Strict or a partition above 0),
// Plan.Rolling.Policy holds the partition and the counts the policy needs
// (see rollout.StepPolicy); otherwise the plan runs upstream's step and it
// is nil.
//
// Annotations. A DaemonSet asks for a policy without Go code through its
// rollout.daemonplan.io/ annotations; package daemon/progressive reads
// them (progressive.ForDaemonSet) and judges a rollout under the policy
// (progressive.Judge). A DaemonSet without such keys has not opted in.
type RolloutPolicy struct {
	// Partition is the number of desired nodes in Scope that keep their old
	// pods: the step stops replacing once only that many in-scope nodes run
	// only old pods. An integer, or a percentage of the desired nodes in
	// Scope rounded up (keeping more old nodes, not fewer): "10%" of 25
	// nodes keeps 3. A partition at or above the desired count updates
	// nothing (not an error); a negative integer, or a percentage that is
	// not between 0% and 100%, is an error at rollout.partition. Which
	// nodes are kept follows Order: the last ones are. Unavailable old
	// pods are replaced first, but within the partition too. Lower it to
	// release the rollout; nil (or 0) keeps none.
	Partition *intstr.IntOrString
	// Scope selects the nodes the step may update; nodes it does not match
	// keep their pods (old or new, available or not) and are left out of
	// the Partition's count. Pods created on them get the current revision
	// (see RolloutPolicy). nil updates every node; an empty selector
	// matches every node; a malformed one is an error at rollout.scope.
	// Missing nodes (pods targeting nodes not in the list) have no labels.
	Scope *metav1.LabelSelector
	// Paused stops the rolling step: the plan has no Rolling step, and
	// replaces no old pod. The create/delete pass still runs: missing pods
	// are created, at the current revision, failed pods replaced.
	Paused bool
	// Order is the order in which the step picks nodes for update within
	// the budgets; the zero value is by node name, as this library does
	// upstream's map order.
	Order UpdateOrder
	// DomainBudget, when set, adds budgets per failure domain to the global
	// ones.
	DomainBudget *DomainBudget
	// Waves, when set, puts a barrier between the values of Order.Label:
	// the nodes of one value form a wave, and no node of a later wave is
	// started until every desired node of the earlier waves runs an
	// updated, available pod and Waves.Bake has passed since the last of
	// them became available. Requires Order.Label or a Canary (an error at
	// rollout.order.label otherwise). Only Bake is read: the plan names
	// the waves itself (CanaryWave, then WaveOf). Waves go in Order's
	// order, after the canary (Values first, in that order; then the other
	// values in string order; then nodes without the label, and missing
	// nodes, as one last wave); without Order.Label, the canary and then
	// the rest (RestWave). A Canary turns the barrier on without Waves
	// (a zero Bake).
	//
	// How the barrier meets the rest of the policy, and the cluster:
	//   - It is a function of the state, like the rest of the plan: should
	//     a node of an earlier wave lose its available pod, later waves
	//     start nothing more until it is back, and its new availability
	//     restarts the bake (the time comes from the pods' Ready condition,
	//     lastTransitionTime plus minReadySeconds; unset counts as long
	//     ago).
	//   - A desired node whose pod never becomes available holds every
	//     later wave: the rollout stops where it broke. To go on without
	//     such a node, take it out of the Scope.
	//   - Scope: nodes outside it neither wait for nor hold a wave; a wave
	//     with no node in scope is done at once.
	//   - Unavailable old pods of later waves are held too, also without
	//     Strict: a revision that breaks pods must not reach a later wave
	//     that way. They still count against the budget.
	//   - Partition keeps the last nodes of the order, that is of the last
	//     waves; a wave with kept nodes is never done.
	//   - Strict, DomainBudget, maxUnavailable and maxSurge apply inside
	//     the open waves as without the barrier.
	//   - Surge: a node is done once its old pod is gone, so a wave opens
	//     the next one a sync after its last old pod is removed.
	//   - Missing nodes and nodes that should not run the pod hold no
	//     wave; the step's replacements on them wait for their wave
	//     (missing nodes: the last). Removals (an old pod beside an
	//     available new one, a pod on a node that may no longer run one)
	//     are never held.
	//   - Paused stops the step, and so the waves, altogether.
	// A plan's Rolling.Policy.Wave (rollout.WaveProgress) says where the
	// waves stand; Plan.RequeueAfter includes the end of a bake.
	Waves *rollout.WaveBarrier
	// Strict counts old pods that are already unavailable against the
	// budget: they are replaced first, but only within maxUnavailable (or
	// maxSurge), one budget slot each, instead of all at once as upstream
	// does (upstream replaces every unavailable old pod at once, so a
	// revision that never becomes ready is replaced everywhere it broke;
	// OpenKruise's Advanced DaemonSet does the same for its Standard
	// type). With maxSurge 0, an unavailable old pod that waits (its
	// DomainBudget spent) still takes its slot of maxUnavailable: no
	// available pod is replaced beyond what the unavailable ones leave.
	Strict bool
	// Canary, when set, makes a first wave of a few nodes (see Canary).
	Canary *Canary
}

// UpdateOrder orders nodes for update. Keys apply in turn: Label's value
// rank, then Compare, then the node name. Unavailable old pods are
// replaced before available ones, each kind in this order. The order must
// be deterministic; Compare is called only with non-nil nodes.
type UpdateOrder struct {
	// Label, when set, orders nodes by their value of this label key (for
	// example topology.kubernetes.io/zone), so that one value's nodes go
	// before the next value's, budget permitting. Values listed in Values
	// go first, in that order; other values follow in string order; nodes
	// without the label, and missing nodes, go last. A key that no node
	// carries is not an error: every node then ties and the next key
	// decides. A malformed key is an error at rollout.order.label.
	Label  string
	Values []string
	// Compare, when set, is a caller's priority: negative when a goes
	// first. It must be a strict weak order and deterministic; missing
	// nodes go after every node.
	Compare func(a, b *corev1.Node) int
}

// DomainBudget applies maxUnavailable and maxSurge per value of a node
// label, each scaled against the desired nodes of that value (a percentage
// rounded up, at least 1), on top of the DaemonSet's global budgets: no
// domain gets more unavailable (maxSurge 0) or surging nodes at once.
// Nodes without the label, and missing nodes, share one domain, the empty
// value (a documented outcome, not an error). Old pods that are already
// unavailable and replaced for free (not Strict) count in their domain but
// are not held back by it, as they are not by the global budget.
type DomainBudget struct {
	Label          string
	MaxUnavailable *intstr.IntOrString
	MaxSurge       *intstr.IntOrString
}

// IsZero reports whether p is the zero policy, upstream's behaviour.
func (p *RolloutPolicy) IsZero() bool {
	return p.Partition == nil && p.Scope == nil && !p.Paused && p.Order.Label == "" &&
		p.Order.Values == nil && p.Order.Compare == nil && p.DomainBudget == nil && !p.Strict &&
		p.Waves == nil && p.Canary == nil
}

var policyPath = field.NewPath("rollout")

// Validate checks p on its own: the partition, the scope selector, the
// order, canary and domain label keys, the canary's count and the budgets.
// Errors are field errors under "rollout", aggregated.
func (p *RolloutPolicy) Validate() error {
	var errs field.ErrorList
	if v := p.Partition; v != nil {
		if _, err := scalePartition(v, 100); err != nil {
			errs = append(errs, err)
		}
	}
	if p.Scope != nil {
		if _, err := metav1.LabelSelectorAsSelector(p.Scope); err != nil {
			errs = append(errs, field.Invalid(policyPath.Child("scope"), p.Scope.String(), err.Error()))
		}
	}
	if k := p.Order.Label; k != "" {
		if msgs := validation.IsQualifiedName(k); len(msgs) > 0 {
			errs = append(errs, field.Invalid(policyPath.Child("order", "label"), k, strings.Join(msgs, "; ")))
		}
	}
	if w := p.Waves; w != nil {
		if p.Order.Label == "" && p.Canary == nil {
			errs = append(errs, field.Required(policyPath.Child("order", "label"), "waves are the values of an order label (or a canary and the rest)"))
		}
		if w.Bake < 0 {
			errs = append(errs, field.Invalid(policyPath.Child("waves", "bake"), w.Bake.String(), "must not be negative"))
		}
	}
	if c := p.Canary; c != nil {
		errs = append(errs, c.validate()...)
	}
	if d := p.DomainBudget; d != nil {
		path := policyPath.Child("domainBudget")
		if d.Label == "" {
			errs = append(errs, field.Required(path.Child("label"), "a node label key names the domains"))
		} else if msgs := validation.IsQualifiedName(d.Label); len(msgs) > 0 {
			errs = append(errs, field.Invalid(path.Child("label"), d.Label, strings.Join(msgs, "; ")))
		}
		for _, b := range []struct {
			name string
			v    *intstr.IntOrString
		}{{"maxUnavailable", d.MaxUnavailable}, {"maxSurge", d.MaxSurge}} {
			if b.v == nil {
				continue
			}
			if n, err := intstr.GetScaledValueFromIntOrPercent(b.v, 100, true); err != nil || n < 0 {
				errs = append(errs, field.Invalid(path.Child(b.name), b.v.String(), "must be a non-negative integer or percentage"))
			}
		}
		if d.MaxUnavailable == nil && d.MaxSurge == nil {
			errs = append(errs, field.Required(path.Child("maxUnavailable"), "maxUnavailable or maxSurge is required"))
		}
	}
	return errs.ToAggregate()
}

// scalePartition scales v against desired nodes, rounding a percentage up.
func scalePartition(v *intstr.IntOrString, desired int) (int, *field.Error) {
	path := policyPath.Child("partition")
	if v.Type == intstr.String {
		s := strings.TrimSuffix(v.StrVal, "%")
		var pct int
		if _, err := fmt.Sscanf(s, "%d", &pct); err != nil || s+"%" != v.StrVal || pct < 0 || pct > 100 || fmt.Sprint(pct) != s {
			return 0, field.Invalid(path, v.StrVal, "must be an integer or a percentage between 0% and 100%")
		}
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(v, desired, true)
	if err != nil || n < 0 {
		return 0, field.Invalid(path, v.String(), "must be a non-negative integer or percentage")
	}
	return n, nil
}

// CompareNodes orders two nodes as the policy's Order does (see
// UpdateOrder): negative when a is updated first. A nil node (a missing
// node) goes after every node; two nil nodes tie.
func (p *RolloutPolicy) CompareNodes(a, b *corev1.Node) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	if k := p.Order.Label; k != "" {
		if c := cmp.Compare(p.labelRank(a), p.labelRank(b)); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Labels[k], b.Labels[k]); c != 0 {
			return c
		}
	}
	if p.Order.Compare != nil {
		if c := p.Order.Compare(a, b); c != 0 {
			return c
		}
	}
	return cmp.Compare(a.Name, b.Name)
}

// labelRank is the rank of n's order-label value: its index in Values,
// len(Values) for another value, len(Values)+1 without the label.
func (p *RolloutPolicy) labelRank(n *corev1.Node) int {
	v, ok := n.Labels[p.Order.Label]
	if !ok {
		return len(p.Order.Values) + 1
	}
	if i := slices.Index(p.Order.Values, v); i >= 0 {
		return i
	}
	return len(p.Order.Values)
}

// compile writes what p says of each node of c that the rolling step
// walks (existing nodes that should run the pod or have pods, and missing
// nodes) on its rollout.Node: Hold from Scope (missing nodes are outside
// any scope), Rank from Order and Canary (its nodes first), Wave from
// Waves and Canary, Domain from DomainBudget. It returns the step's
// policy, and whether the policy shapes the step at all (a scope, an
// order, a canary, waves, a domain budget, Strict or a partition above
// 0): when it does not, the plan runs upstream's step and
// Plan.Rolling.Policy is nil.
func (p *RolloutPolicy) compile(c *cluster) (rp rollout.Policy, shapes bool, err error) {
	rp.Strict = p.Strict
	walked := func(i int) bool { n := &c.nodes[i]; return n.ShouldRun || len(n.Pods) > 0 }
	if p.Scope != nil {
		sel, err := metav1.LabelSelectorAsSelector(p.Scope)
		if err != nil {
			return rp, false, field.Invalid(policyPath.Child("scope"), p.Scope.String(), err.Error())
		}
		for i := range c.nodes {
			if walked(i) {
				c.nodes[i].Hold = !sel.Matches(labels.Set(c.info[i].node.Labels))
			}
		}
		for i := range c.missing {
			c.missing[i].Hold = true
		}
	}
	if p.Partition != nil {
		desired := 0
		for i := range c.nodes {
			if n := &c.nodes[i]; n.ShouldRun && !n.Hold {
				desired++
			}
		}
		n, err := scalePartition(p.Partition, desired)
		if err != nil {
			return rp, false, err
		}
		rp.Partition = n
		if n >= desired && desired > 0 {
			// Everything is kept; a partition of 0 would mean no limit.
			rp.Partition = desired
		}
	}
	if p.Order.Label != "" || p.Order.Compare != nil || p.Canary != nil {
		// Indices of the walked nodes, the missing ones after the existing
		// ones; ranked by the order (the canary's nodes first), then by
		// name.
		var idx []int
		for i := range c.nodes {
			if walked(i) {
				idx = append(idx, i)
			}
		}
		for i := range c.missing {
			idx = append(idx, len(c.nodes)+i)
		}
		node := func(i int) (*rollout.Node, *corev1.Node) {
			if i < len(c.nodes) {
				return &c.nodes[i], c.info[i].node
			}
			return &c.missing[i-len(c.nodes)], nil
		}
		canary := p.canaryOfCluster(c)
		slices.SortStableFunc(idx, func(a, b int) int {
			na, oa := node(a)
			nb, ob := node(b)
			return cmp.Or(cmpBool(!canary(a), !canary(b)), p.CompareNodes(oa, ob), cmp.Compare(na.Name, nb.Name))
		})
		for r, i := range idx {
			n, _ := node(i)
			n.Rank = int32(r)
		}
		if p.barrier() {
			rp.Waves = p.waves(idx, node, canary)
		}
	}
	if d := p.DomainBudget; d != nil {
		// Domains are numbered by label value; the empty value, which nodes
		// without the label and missing nodes share, is 0.
		ids := map[string]int32{"": 0}
		for i := range c.nodes {
			if !walked(i) {
				continue
			}
			v := c.info[i].node.Labels[d.Label]
			id, ok := ids[v]
			if !ok {
				id = int32(len(ids))
				ids[v] = id
			}
			c.nodes[i].Domain = id
		}
		rp.DomainMaxUnavailable, rp.DomainMaxSurge = d.MaxUnavailable, d.MaxSurge
	}
	shapes = p.Scope != nil || p.Order.Label != "" || p.Order.Compare != nil || p.DomainBudget != nil || !rp.IsZero()
	return rp, shapes, nil
}

// rollingStep runs the rolling-update step of one plan under policy:
// upstream's step when policy is zero, or does not shape the step.
func (c *cluster) rollingStep(ds *appsv1.DaemonSet, hash string, opts *Options) (rollout.Step, error) {
	if opts.Rollout.IsZero() {
		return rollout.RollingUpdate(ds, c.rolloutNodes(), hash, opts.Now)
	}
	rp, shapes, err := opts.Rollout.compile(c)
	if err != nil {
		return rollout.Step{}, err
	}
	if !shapes {
		return rollout.RollingUpdate(ds, c.rolloutNodes(), hash, opts.Now)
	}
	return rollout.RollingUpdatePolicy(ds, c.rolloutNodes(), hash, opts.Now, rp)
}
