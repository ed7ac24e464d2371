package daemon

import (
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/rollout"
)

// RolloutComplete reports whether the rollout of ds over nodes and pods is
// complete under opts.Rollout, and why (see RolloutReason; its Complete
// agrees with the bool). It computes the plan (as Compute, but ignoring
// Paused: a paused rollout is complete when its state is) and is complete
// when the plan asks for nothing and:
//   - under the zero policy, or a strategy other than RollingUpdate,
//     rollout.Complete holds for ds with the plan's status (every desired
//     node runs one available pod of the current revision);
//   - under a non-zero policy, every desired node has an available pod, no
//     node runs an old and a new pod, and at most the partition of the
//     in-scope desired nodes run only old pods (nodes outside the scope
//     keep theirs): complete at the partition, not at 100%.
//
// When it is not complete, the reason names the first cause in this order,
// in the policy's terms: the sync is skipped; the plan acts (paused, when
// Paused holds back the rolling step's replacements; replacing; or the
// create/delete pass at work); and, when nothing acts while nodes in scope
// still run only old pods beyond the partition: the current wave bakes;
// the budget is used up (by unavailable nodes outside the scope, naming
// them, or by nodes in flight); the per-domain budgets are; the current
// wave waits for its nodes. Otherwise: nodes without an available pod,
// nodes not updated (zero policy), nodes in flight. Compute's errors are
// returned as they are, with false. It modifies nothing.
func RolloutComplete(ds *appsv1.DaemonSet, nodes []*corev1.Node, pods []*corev1.Pod, opts Options) (bool, RolloutReason, error) {
	paused := opts.Rollout.Paused
	opts.Rollout.Paused = false
	// The cluster view names the nodes behind a cause: it is kept here
	// after the plan.
	c := &cluster{}
	plan, err := compute(ds, nodes, pods, opts, c)
	if err != nil {
		return false, RolloutReason{}, err
	}
	r := judgeRollout(ds, &plan, c, paused)
	return r.Complete(), r, nil
}

// judgeRollout is RolloutComplete's judgement of plan, with the cluster
// view c it was computed from.
func judgeRollout(ds *appsv1.DaemonSet, plan *Plan, c *cluster, paused bool) RolloutReason {
	if plan.Skip != "" {
		return RolloutReason{Cause: CauseSkipped, Skip: plan.Skip}
	}
	creates, deletes := len(plan.Creates)+plan.DeferredCreates, len(plan.Deletes)+plan.DeferredDeletes
	if creates+deletes > 0 {
		var where []string
		for _, x := range plan.Creates {
			where = append(where, x.NodeName)
		}
		for _, x := range plan.Deletes {
			where = append(where, x.NodeName)
		}
		slices.Sort(where)
		where = slices.Compact(where)
		switch {
		case plan.Rolling != nil && paused:
			return RolloutReason{Cause: CausePaused, Count: creates + deletes}.withNodes(where)
		case plan.Rolling != nil:
			return RolloutReason{Cause: CauseReplacing, Count: creates + deletes}.withNodes(where)
		}
		return RolloutReason{Cause: CauseCreatingDeleting, Count: creates, Of: deletes}.withNodes(where)
	}
	st := plan.Status
	step := plan.Rolling
	if step == nil || step.Policy == nil {
		judged := *ds
		judged.Status = st
		if ok, _ := rollout.Complete(&judged); ok {
			return RolloutReason{Cause: CauseComplete}
		}
		if st.UpdatedNumberScheduled < st.DesiredNumberScheduled {
			return RolloutReason{Cause: CauseNotUpdated, Count: int(st.UpdatedNumberScheduled), Of: int(st.DesiredNumberScheduled)}.
				withNodes(c.desiredNames(func(n *rollout.Node) bool { return !hasUpdated(n) }))
		}
		return unavailable(c, st)
	}
	p := step.Policy
	if p.Remaining > p.Partition {
		if r, ok := blocked(step, c); ok {
			return r
		}
	}
	if st.NumberAvailable < st.DesiredNumberScheduled {
		return unavailable(c, st)
	}
	// In flight are desired nodes only: the step also counts an unavailable
	// pod that a node which may no longer run one keeps (upstream's budget
	// does), but such a node is not part of the rollout and cannot hold
	// its completion.
	if flying := c.desiredNames(inFlight); len(flying) > 0 || p.Remaining > p.Partition {
		return RolloutReason{Cause: CauseInFlight}.withNodes(flying)
	}
	if p.Remaining > 0 {
		return RolloutReason{Cause: CausePartitionReached, Count: p.Remaining, Of: p.Partition}
	}
	return RolloutReason{Cause: CauseComplete}
}

// blocked says why a step that left nodes to update did nothing; false
// when no cause of the policy's explains it.
func blocked(step *rollout.Step, c *cluster) (RolloutReason, bool) {
	w := step.Policy.Wave
	if w != nil && !w.BakeUntil.IsZero() {
		return RolloutReason{Cause: CauseWaveBaking, Wave: w.Name, Until: w.BakeUntil}, true
	}
	if step.Candidates > 0 {
		surge := step.MaxSurge != 0
		budget, used := step.MaxUnavailable, step.NumUnavailable
		busy := func(n *rollout.Node) bool { return !hasAvailable(n) }
		if surge {
			budget, used, busy = step.MaxSurge, step.NumSurge, inFlight
		}
		if used < budget {
			return RolloutReason{Cause: CauseDomainBudget, Count: step.Candidates}.
				withNodes(c.desiredNames(func(n *rollout.Node) bool { return !hasAvailable(n) })), true
		}
		if held := c.desiredNames(func(n *rollout.Node) bool { return n.Hold && busy(n) }); len(held) > 0 {
			return RolloutReason{Cause: CauseBudgetOutsideScope, Count: len(held), Of: budget, Surge: surge}.withNodes(held), true
		}
		var all []string
		if surge {
			all = c.desiredNames(busy)
		} else {
			// The budget is spent by every node the step counts, desired
			// or not: a node that may no longer run the pod but keeps an
			// unavailable one spends it too.
			all = c.unavailableNames()
		}
		return RolloutReason{Cause: CauseBudget, Count: used, Of: budget, Surge: surge}.withNodes(all), true
	}
	if w != nil && w.Done < w.Desired {
		return RolloutReason{Cause: CauseWaveWaiting, Wave: w.Name, Count: w.Done, Of: w.Desired, Nodes: w.Waiting, MoreNodes: w.WaitingMore}, true
	}
	return RolloutReason{}, false
}

// unavailable is CauseUnavailable for the plan's status.
func unavailable(c *cluster, st appsv1.DaemonSetStatus) RolloutReason {
	return RolloutReason{Cause: CauseUnavailable, Count: int(st.NumberAvailable), Of: int(st.DesiredNumberScheduled)}.
		withNodes(c.desiredNames(func(n *rollout.Node) bool { return !hasAvailable(n) }))
}

// desiredNames returns the names of the existing nodes that should run the
// pod and pass keep, sorted.
func (c *cluster) desiredNames(keep func(*rollout.Node) bool) []string {
	var out []string
	for i := range c.nodes {
		if n := &c.nodes[i]; n.ShouldRun && keep(n) {
			out = append(out, n.Name)
		}
	}
	return out
}

// unavailableNames returns the names of the nodes whose unavailability the
// rolling step counts without surge: desired nodes without an
// available pod, and other nodes (not desired, or missing from the node
// list) that keep a live pod none of which is available.
func (c *cluster) unavailableNames() []string {
	var out []string
	for _, group := range [2][]rollout.Node{c.nodes, c.missing} {
		for i := range group {
			n := &group[i]
			desired := n.ShouldRun && !n.Missing
			if hasAvailable(n) || !desired && !hasLive(n) {
				continue
			}
			out = append(out, n.Name)
		}
	}
	return out
}

// hasLive reports whether n has a pod that is not being deleted.
func hasLive(n *rollout.Node) bool {
	return slices.ContainsFunc(n.States, func(s rollout.PodState) bool { return !s.Deleting })
}

// hasAvailable reports whether a live pod of n is available.
func hasAvailable(n *rollout.Node) bool {
	return slices.ContainsFunc(n.States, func(s rollout.PodState) bool { return s.Available && !s.Deleting })
}

// hasUpdated reports whether a live pod of n runs the current revision.
func hasUpdated(n *rollout.Node) bool {
	return slices.ContainsFunc(n.States, func(s rollout.PodState) bool { return s.Updated && !s.Deleting })
}

// inFlight reports whether n runs more than one live pod, or none.
func inFlight(n *rollout.Node) bool {
	live := 0
	for _, s := range n.States {
		if !s.Deleting {
			live++
		}
	}
	return live != 1
}
