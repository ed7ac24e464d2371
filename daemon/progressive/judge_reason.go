package progressive

import (
	"slices"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/rollout"
)

// reasonOf is Judge's reason for plan, which is not skipped, and its
// standing ro.
func reasonOf(ds *appsv1.DaemonSet, plan *daemon.Plan, ro *daemon.Standing) Reason {
	creates, deletes := len(plan.Creates)+plan.DeferredCreates, len(plan.Deletes)+plan.DeferredDeletes
	if creates+deletes > 0 {
		var where []string
		for _, x := range plan.Creates {
			where = append(where, x.NodeName)
		}
		for _, x := range plan.Deletes {
			where = append(where, x.NodeName)
		}
		if plan.Rolling != nil {
			return Reason{Cause: CauseReplacing, Count: creates + deletes}.withNodes(sortedSet(where))
		}
		return Reason{Cause: CauseCreatingDeleting, Count: creates, Of: deletes}.withNodes(sortedSet(where))
	}
	step := plan.Rolling
	if p := ro.Paused; p != nil {
		step = p
		if n := len(p.Creates) + len(p.Deletes); n > 0 {
			// What the plan would have asked for, under its burst cap.
			var where []string
			for _, x := range p.Creates[:min(len(p.Creates), ro.BurstReplicas)] {
				where = append(where, x.NodeName)
			}
			for _, x := range p.Deletes[:min(len(p.Deletes), ro.BurstReplicas)] {
				where = append(where, x.NodeName)
			}
			return Reason{Cause: CausePaused, Count: n}.withNodes(sortedSet(where))
		}
	}
	st := plan.Status
	if step == nil || step.Policy == nil {
		judged := *ds
		judged.Status = st
		if ok, _ := rollout.Complete(&judged); ok {
			return Reason{Cause: CauseComplete}
		}
		if st.UpdatedNumberScheduled < st.DesiredNumberScheduled {
			return Reason{Cause: CauseNotUpdated, Count: int(st.UpdatedNumberScheduled), Of: int(st.DesiredNumberScheduled)}.
				withNodes(desiredNames(ro, func(n *daemon.NodeStanding) bool { return !n.HasUpdated() }))
		}
		return unavailable(ro, st)
	}
	p := step.Policy
	if p.Remaining > p.Partition {
		if r, ok := blocked(step, ro); ok {
			return r
		}
	}
	if st.NumberAvailable < st.DesiredNumberScheduled {
		return unavailable(ro, st)
	}
	// In flight are desired nodes only: the step also counts an unavailable
	// pod that a node which may no longer run one keeps (upstream's budget
	// does), but such a node is not part of the rollout and cannot hold
	// its completion.
	if flying := desiredNames(ro, inFlight); len(flying) > 0 || p.Remaining > p.Partition {
		return Reason{Cause: CauseInFlight}.withNodes(flying)
	}
	if p.Remaining > 0 {
		return Reason{Cause: CausePartitionReached, Count: p.Remaining, Of: p.Partition}
	}
	return Reason{Cause: CauseComplete}
}

// blocked says why a step that left nodes to update did nothing; false
// when no cause of the policy's explains it.
func blocked(step *daemon.RollingStep, ro *daemon.Standing) (Reason, bool) {
	w := step.Policy.Wave
	if w != nil && !w.BakeUntil.IsZero() {
		return Reason{Cause: CauseWaveBaking, Wave: w.Name, Until: w.BakeUntil}, true
	}
	if step.Candidates > 0 {
		surge := step.MaxSurge != 0
		budget, used := step.MaxUnavailable, step.NumUnavailable
		busy := func(n *daemon.NodeStanding) bool { return !n.HasAvailable() }
		if surge {
			budget, used, busy = step.MaxSurge, step.NumSurge, inFlight
		}
		if used < budget {
			return Reason{Cause: CauseDomainBudget, Count: step.Candidates}.
				withNodes(desiredNames(ro, func(n *daemon.NodeStanding) bool { return !n.HasAvailable() })), true
		}
		if held := desiredNames(ro, func(n *daemon.NodeStanding) bool { return n.Held == daemon.HeldScope && busy(n) }); len(held) > 0 {
			return Reason{Cause: CauseBudgetOutsideScope, Count: len(held), Of: budget, Surge: surge}.withNodes(held), true
		}
		var all []string
		if surge {
			all = desiredNames(ro, busy)
		} else {
			// The budget is spent by every node the step counts, desired
			// or not: a node that may no longer run the pod but keeps an
			// unavailable one spends it too.
			all = unavailableNames(ro)
		}
		return Reason{Cause: CauseBudget, Count: used, Of: budget, Surge: surge}.withNodes(all), true
	}
	if w != nil && w.Done < w.Desired {
		return Reason{Cause: CauseWaveWaiting, Wave: w.Name, Count: w.Done, Of: w.Desired, Nodes: w.Waiting, MoreNodes: w.WaitingMore}, true
	}
	return Reason{}, false
}

// unavailable is CauseUnavailable for the plan's status.
func unavailable(ro *daemon.Standing, st appsv1.DaemonSetStatus) Reason {
	return Reason{Cause: CauseUnavailable, Count: int(st.NumberAvailable), Of: int(st.DesiredNumberScheduled)}.
		withNodes(desiredNames(ro, func(n *daemon.NodeStanding) bool { return !n.HasAvailable() }))
}

// desiredNames returns the names of the nodes that should run the pod and
// pass keep, sorted.
func desiredNames(ro *daemon.Standing, keep func(*daemon.NodeStanding) bool) []string {
	var out []string
	for i := range ro.Nodes {
		if n := &ro.Nodes[i]; n.ShouldRun && keep(n) {
			out = append(out, n.Name)
		}
	}
	return out
}

// unavailableNames returns the names of the nodes whose unavailability the
// rolling step counts without surge: desired nodes without an available
// pod, and other nodes (not desired, or missing from the node list) that
// keep a live pod none of which is available; existing nodes first.
func unavailableNames(ro *daemon.Standing) []string {
	var out []string
	for i := range ro.Nodes {
		n := &ro.Nodes[i]
		if n.HasAvailable() || !n.ShouldRun && n.Live() == 0 {
			continue
		}
		out = append(out, n.Name)
	}
	return out
}

// inFlight reports whether n runs more than one live pod, or none.
func inFlight(n *daemon.NodeStanding) bool { return n.Live() != 1 }

// sortedSet sorts names and drops repeats.
func sortedSet(names []string) []string {
	slices.Sort(names)
	return slices.Compact(names)
}
