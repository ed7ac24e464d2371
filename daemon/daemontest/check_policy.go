package daemontest

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/rollout"
)

// The invariants of daemon.RolloutPolicy, checked by checkPolicy when
// Options.Rollout is not zero.
const (
	// InvariantPaused: with Paused, no rolling step runs.
	InvariantPaused Invariant = "PausedNoStep"
	// InvariantScope: the step replaces no pod on a node outside Scope
	// (missing nodes are outside any scope).
	InvariantScope Invariant = "UpdateOnlyInScope"
	// InvariantPartition: the step never leaves fewer in-scope desired
	// nodes running only old pods than the partition keeps (or than there
	// were).
	InvariantPartition Invariant = "PartitionKept"
	// InvariantOrder: without a domain budget, every available old pod the
	// step replaces comes, in RolloutPolicy.CompareNodes order, before every
	// in-scope waiting one it leaves.
	InvariantOrder Invariant = "UpdateOrderRespected"
	// InvariantStrictBudget: with Strict, the step's replacements, of
	// unavailable old pods too, fit in the budget the nodes in flight leave.
	InvariantStrictBudget Invariant = "StrictBudget"
	// InvariantDomainBudget: no failure domain has more unavailable (maxSurge
	// 0) or surging nodes after the plan than its budget, unless it already
	// had.
	InvariantDomainBudget Invariant = "DomainBudget"
)

// checkPolicy checks the plan against Options.Rollout. With U, S as in
// checkRolling, counted per domain, and "old-only" a desired node with a
// live old pod and no live new one:
//  1. PausedNoStep: Paused gives a nil Rolling.
//  2. UpdateOnlyInScope: no replacement of the step (a RollingUpdate or
//     ReplaceUnavailable delete, a Surge or SurgeForUnavailable create) is
//     on a node Scope does not match.
//  3. PartitionKept: in-scope old-only nodes after the step (those before,
//     less the nodes the step replaced) >= min(before, partition), the
//     partition scaled against the in-scope desired nodes, rounded up and
//     capped at them.
//  4. UpdateOrderRespected (no DomainBudget): each node whose available
//     old pod the step replaced precedes, by CompareNodes (the canary's
//     nodes before all others), every in-scope desired node with exactly
//     one live pod, old and available, that it did not replace.
//  5. StrictBudget (Strict): the step's replacements number at most max(budget - F, 0), budget maxUnavailable
//     (maxSurge 0) or maxSurge, and F the nodes in flight before it: with
//     maxSurge 0, desired nodes with no live pod, and nodes with several
//     live pods or one new unavailable one; with surge, nodes with several
//     live old or several live new pods, or an old pod beside an
//     unavailable new one.
//  6. DomainBudget: per domain, U1 <= max(limit, U0) (maxSurge 0) or
//     S1 <= max(limit, S0) (surge), limit the domain's budget scaled
//     against its desired nodes, rounded up, at least 1.
//  7. WaveBarrier (Waves or Canary): see checkWaves.
//  8. CanaryWave (Canary): see checkCanary.
func (c *checker) checkPolicy() {
	pol := &c.in.Options.Rollout
	if pol.IsZero() {
		return
	}
	if pol.Paused {
		if c.plan.Rolling != nil {
			c.add(InvariantPaused, "the rollout is paused, yet a rolling step ran")
		}
		return
	}
	st := c.plan.Rolling
	if st == nil {
		return
	}
	inScope := func(nv *nodeView) bool { return true }
	if pol.Scope != nil {
		sel, err := metav1.LabelSelectorAsSelector(pol.Scope)
		if err != nil {
			return // Compute refuses it
		}
		inScope = func(nv *nodeView) bool { return nv.node != nil && sel.Matches(labels.Set(nv.node.Labels)) }
	}
	replaced := map[string]rollout.Reason{}
	for _, sd := range st.Deletes {
		if sd.Reason == rollout.ReasonRollingUpdate || sd.Reason == rollout.ReasonReplaceUnavailable {
			replaced[sd.NodeName] = sd.Reason
		}
	}
	for _, sc := range st.Creates {
		replaced[sc.NodeName] = sc.Reason
	}
	for _, name := range slices.Sorted(mapKeys(replaced)) {
		if !inScope(c.nodes[name]) {
			c.add(InvariantScope, "the step replaces the pod on %q, outside the scope", name)
		}
	}

	var desired, oldOnly, replacedOld int
	var waiting []*nodeView
	for _, name := range c.names {
		nv := c.nodes[name]
		if nv.node == nil || !nv.shouldRun || !inScope(nv) {
			continue
		}
		desired++
		pods := live(nv.pods)
		var hasOld, hasNew bool
		for _, p := range pods {
			if c.updated(p) {
				hasNew = true
			} else {
				hasOld = true
			}
		}
		if hasOld && !hasNew {
			oldOnly++
			if _, ok := replaced[name]; ok {
				replacedOld++
			}
		}
		if len(pods) == 1 && !c.updated(pods[0]) && c.available(pods[0]) {
			if _, ok := replaced[name]; !ok {
				waiting = append(waiting, nv)
			}
		}
	}
	if pol.Partition != nil {
		part, err := intstr.GetScaledValueFromIntOrPercent(pol.Partition, desired, true)
		if err == nil {
			part = min(part, desired)
			if after := oldOnly - replacedOld; after < min(oldOnly, part) {
				c.add(InvariantPartition, "%d in-scope nodes run only old pods after the step, %d before; the partition keeps %d", after, oldOnly, part)
			}
		}
	}
	if pol.Strict {
		c.checkStrict(st, len(replaced))
	}
	canary := c.canaryNodes()
	if pol.Canary != nil {
		c.checkCanary(canary, inScope)
	}
	if pol.Waves != nil || pol.Canary != nil {
		c.checkWaves(replaced, inScope, canary)
	}
	if pol.DomainBudget == nil {
		for name, r := range replaced {
			if r != rollout.ReasonRollingUpdate && r != rollout.ReasonSurge {
				continue // an unavailable old pod, replaced first
			}
			for _, w := range waiting {
				if compareUpdate(pol, canary, c.nodes[name], w, name, w.node.Name) > 0 {
					c.add(InvariantOrder, "the step replaces %q before %q, which comes first in the update order", name, w.node.Name)
					break
				}
			}
		}
	} else {
		c.checkDomains(pol.DomainBudget)
	}
}

// checkStrict is StrictBudget (see checkPolicy); n is the number of nodes
// the step replaces on.
func (c *checker) checkStrict(st *rollout.Step, n int) {
	budget, surge := st.MaxUnavailable, st.MaxSurge > 0
	if surge {
		budget = st.MaxSurge
	}
	flight := 0
	for _, name := range c.names {
		nv := c.nodes[name]
		var olds, news int
		newUnavailable := false
		for _, p := range live(nv.pods) {
			if c.updated(p) {
				news++
				newUnavailable = newUnavailable || !c.available(p)
			} else {
				olds++
			}
		}
		switch {
		case surge && (olds > 1 || news > 1 || (olds == 1 && news == 1 && newUnavailable)):
			flight++
		case !surge && (olds+news > 1 || (news == 1 && newUnavailable) || (olds+news == 0 && nv.node != nil && nv.shouldRun)):
			flight++
		}
	}
	if limit := max(budget-flight, 0); n > limit {
		c.add(InvariantStrictBudget, "the strict step replaces on %d nodes; budget %d less %d in flight leaves %d", n, budget, flight, limit)
	}
}

// checkDomains is DomainBudget (see checkPolicy).
func (c *checker) checkDomains(d *daemon.DomainBudget) {
	p := c.plan
	budget := d.MaxUnavailable
	surge := c.plan.Rolling.MaxSurge > 0
	if surge {
		budget = d.MaxSurge
	}
	if budget == nil {
		return
	}
	deleted := podSet(nil)
	for _, x := range p.Deletes {
		deleted[x.Pod] = true
	}
	created := map[string]bool{}
	for _, x := range p.Creates {
		created[x.NodeName] = true
	}
	type counts struct{ desired, before, after int }
	doms := map[string]*counts{}
	for _, name := range c.names {
		nv := c.nodes[name]
		dom := ""
		if nv.node != nil {
			dom = nv.node.Labels[d.Label]
		}
		ct := doms[dom]
		if ct == nil {
			ct = &counts{}
			doms[dom] = ct
		}
		if nv.node != nil && nv.shouldRun {
			ct.desired++
		}
		for k, gone := range []map[*corev1.Pod]bool{nil, deleted} {
			anyAvailable, oldAvailable, newUnavailable := c.nodeAvailability(nv.pods, gone)
			newUnavailable = newUnavailable || (k == 1 && created[name])
			hit := nv.node != nil && nv.shouldRun && !anyAvailable
			if surge {
				hit = oldAvailable && newUnavailable
			}
			if hit && k == 0 {
				ct.before++
			} else if hit {
				ct.after++
			}
		}
	}
	for _, dom := range slices.Sorted(mapKeys(doms)) {
		ct := doms[dom]
		limit, err := intstr.GetScaledValueFromIntOrPercent(budget, ct.desired, true)
		if err != nil {
			return
		}
		limit = max(limit, 1)
		if ct.after > max(limit, ct.before) {
			c.add(InvariantDomainBudget, "domain %q has %d nodes unavailable or surging after the plan, %d before, budget %d", dom, ct.after, ct.before, limit)
		}
	}
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
