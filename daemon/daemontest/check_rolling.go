package daemontest

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon/simulate"
)

// rollingCounts are the counts checkRolling compares, before or after the
// plan.
type rollingCounts struct {
	unavailable int // U: desired nodes with no available live pod
	surging     int // S: nodes with a live available old pod and a live new pod not yet available
	available   int // A: nodes with an available live pod
}

// checkRolling judges the rolling-update step. All counts are taken at
// Options.Now over the DaemonSet's pods (see checker.nodes); "live" pods
// have no deletionTimestamp; a pod is new when rollout.IsPodUpdated(pod,
// Plan.Hash, template generation) holds, old otherwise; after the plan,
// deleted pods are gone and each create adds a new pod that is not yet
// available. With D the number of input nodes where a new pod should run,
// and the budgets of simulate.BudgetsOf(ds, D):
//
//	U = desired nodes with no available live pod
//	S = nodes (input or missing) with a live available old pod and a live
//	    new pod that is not available
//	A = nodes (input or missing) with an available live pod
//
// and U0, S0, A0 before the plan, U1, S1, A1 after it:
//  1. RollingStepConsistent: Rolling is nil when the strategy is not
//     RollingUpdate, and, when it is, nil only when the create/delete pass
//     asked for something. When set, Rolling.Desired is D and its budgets
//     are those of BudgetsOf; each create and delete of the plan is one of
//     the step's, and their numbers are the step's capped at the burst.
//  2. UnavailabilityBudget, when maxSurge is 0: the step creates nothing,
//     and U1 <= max(maxUnavailable, U0). Upstream counts as unavailable at
//     least every node U counts, so deleting old available pods only
//     within its remaining budget keeps this.
//  3. SurgeBudget, when maxSurge is not 0: S1 <= max(maxSurge, S0). Only
//     creates beside an available old pod add to S; upstream bounds them by
//     maxSurge less the nodes it counts as surging, a superset of S's.
//  4. SurgeKeepsAvailability, when maxSurge is not 0: A1 >= min(A0, D).
//     An available old pod goes only once its node's new pod is available,
//     or, on a node that may no longer run it, as far as the available
//     nodes exceed D (kubernetes#118823).
func (c *checker) checkRolling() {
	ds, p := c.ds, c.plan
	rolling := ds.Spec.UpdateStrategy.Type == appsv1.RollingUpdateDaemonSetStrategyType
	if p.Rolling == nil {
		if rolling && !c.in.Options.Rollout.Paused && len(p.Creates)+len(p.Deletes)+p.DeferredCreates+p.DeferredDeletes == 0 {
			c.add(InvariantRollingStep, "the strategy is RollingUpdate and the create/delete pass asked for nothing, yet no rolling step ran")
		}
		return
	}
	if !rolling {
		c.add(InvariantRollingStep, "a rolling step ran for strategy %q", ds.Spec.UpdateStrategy.Type)
		return
	}
	desired := c.desired
	b := simulate.BudgetsOf(ds, desired)
	st := p.Rolling
	if st.Desired != desired || st.MaxUnavailable != b.MaxUnavailable || st.MaxSurge != b.MaxSurge {
		c.add(InvariantRollingStep, "step counts desired %d, maxUnavailable %d, maxSurge %d; want %d, %d, %d",
			st.Desired, st.MaxUnavailable, st.MaxSurge, desired, b.MaxUnavailable, b.MaxSurge)
	}
	c.checkStepActions()
	c.checkPolicy()

	deleted := make(map[*corev1.Pod]bool, len(p.Deletes))
	for _, d := range p.Deletes {
		deleted[d.Pod] = true
	}
	created := make(map[string]bool, len(p.Creates))
	for _, cr := range p.Creates {
		created[cr.NodeName] = true
	}
	before, after := c.rollingCounts(nil, nil), c.rollingCounts(deleted, created)

	if b.MaxSurge == 0 {
		if len(p.Creates) > 0 {
			c.add(InvariantUnavailability, "the step without surge creates %d pods", len(p.Creates))
		}
		if limit := max(b.MaxUnavailable, before.unavailable); after.unavailable > limit {
			c.add(InvariantUnavailability, "%d desired nodes unavailable after the plan, %d before, maxUnavailable %d",
				after.unavailable, before.unavailable, b.MaxUnavailable)
		}
		return
	}
	if limit := max(b.MaxSurge, before.surging); after.surging > limit {
		c.add(InvariantSurge, "%d nodes surging after the plan, %d before, maxSurge %d", after.surging, before.surging, b.MaxSurge)
	}
	if want := min(before.available, desired); after.available < want {
		c.add(InvariantSurgeAvailability, "%d nodes with an available pod after the plan, %d before, %d desired",
			after.available, before.available, desired)
	}
}

// checkStepActions checks that the plan carries out the step's choices,
// capped at the burst.
func (c *checker) checkStepActions() {
	p, st := c.plan, c.plan.Rolling
	stepNodes := make(map[string]bool, len(st.Creates))
	for _, sc := range st.Creates {
		stepNodes[sc.NodeName] = true
	}
	for _, cr := range p.Creates {
		if !stepNodes[cr.NodeName] {
			c.add(InvariantRollingStep, "create on %q is not one of the step's", cr.NodeName)
		}
	}
	stepPods := make(map[*corev1.Pod]bool, len(st.Deletes))
	for _, sd := range st.Deletes {
		stepPods[sd.Pod] = true
		if sd.Pod != nil && c.updated(sd.Pod) {
			c.add(InvariantRollingStep, "the step deletes %s, a pod of the current revision", podKey(sd.Pod))
		}
	}
	for _, d := range p.Deletes {
		if !stepPods[d.Pod] {
			c.add(InvariantRollingStep, "delete of %s is not one of the step's", podKey(d.Pod))
		}
	}
	if len(p.Creates)+p.DeferredCreates != len(st.Creates) || len(p.Deletes)+p.DeferredDeletes != len(st.Deletes) {
		c.add(InvariantRollingStep, "the plan has %d+%d deferred creates and %d+%d deferred deletes, the step %d and %d",
			len(p.Creates), p.DeferredCreates, len(p.Deletes), p.DeferredDeletes, len(st.Creates), len(st.Deletes))
	}
}

// rollingCounts counts U, S and A (see checkRolling) with the deleted pods
// gone and a new unavailable pod on every created node.
func (c *checker) rollingCounts(deleted map[*corev1.Pod]bool, created map[string]bool) rollingCounts {
	var rc rollingCounts
	for _, name := range c.names {
		nv := c.nodes[name]
		anyAvailable, oldAvailable, newUnavailable := c.nodeAvailability(nv.pods, deleted)
		newUnavailable = newUnavailable || created[name]
		if nv.node != nil && nv.shouldRun && !anyAvailable {
			rc.unavailable++
		}
		if oldAvailable && newUnavailable {
			rc.surging++
		}
		if anyAvailable {
			rc.available++
		}
	}
	return rc
}

// nodeAvailability sums up a node's pods that are not being deleted,
// leaving out those in gone: whether any is available, whether an old one
// is, and whether a new one is not.
func (c *checker) nodeAvailability(pods []*corev1.Pod, gone map[*corev1.Pod]bool) (anyAvailable, oldAvailable, newUnavailable bool) {
	for _, pod := range live(pods) {
		if gone[pod] {
			continue
		}
		avail := c.available(pod)
		anyAvailable = anyAvailable || avail
		if c.updated(pod) {
			newUnavailable = newUnavailable || !avail
		} else {
			oldAvailable = oldAvailable || avail
		}
	}
	return anyAvailable, oldAvailable, newUnavailable
}
