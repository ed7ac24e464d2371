package progressive

import (
	"fmt"
	"strings"
	"time"

	"github.com/daemonplan/daemonplan/daemon"
)

// Cause names why a rollout under a daemon.RolloutPolicy is, or is not,
// complete (see Judge and Reason).
type Cause string

// The causes Judge reports. The first two mean complete.
const (
	// CauseComplete: every desired node runs an available pod and the
	// policy leaves nothing to update.
	CauseComplete Cause = "Complete"
	// CausePartitionReached: complete at the partition. Count is the number
	// of desired nodes in scope that keep the old revision; Of the
	// partition.
	CausePartitionReached Cause = "PartitionReached"
	// CauseSkipped: the sync is skipped (Skip says why).
	CauseSkipped Cause = "Skipped"
	// CausePaused: the rollout is paused with replacements to make. Count
	// is the number of pods the step would create or delete; Nodes where.
	CausePaused Cause = "Paused"
	// CauseReplacing: the rolling step is replacing pods now. Count is the
	// number of pods it creates or deletes; Nodes where.
	CauseReplacing Cause = "Replacing"
	// CauseCreatingDeleting: the create/delete pass still acts (missing
	// pods, failed, excess or misplaced ones). Count creates and Of
	// deletes; Nodes where.
	CauseCreatingDeleting Cause = "CreatingDeleting"
	// CauseBudgetOutsideScope: the budget (maxUnavailable, or maxSurge) is
	// used up, partly by unavailable nodes outside the Scope, which the
	// rollout can never update. Count is the number of those nodes, Of the
	// budget; Nodes are they.
	CauseBudgetOutsideScope Cause = "BudgetUsedOutsideScope"
	// CauseBudget: the budget is used up by nodes in flight: unavailable
	// ones (maxSurge 0) or surging ones. Count is their number, Of the
	// budget; Nodes are they.
	CauseBudget Cause = "BudgetUsed"
	// CauseDomainBudget: the global budget has room, but the per-domain
	// budget of every waiting node's domain is used up. Count is the
	// number of nodes waiting; Nodes are the unavailable nodes.
	CauseDomainBudget Cause = "DomainBudgetUsed"
	// CauseWaveBaking: the current wave (Wave) is updated and available and
	// bakes until Until before the next one starts.
	CauseWaveBaking Cause = "WaveBaking"
	// CauseWaveWaiting: the current wave (Wave) waits for its nodes to run
	// an updated, available pod. Count of Of nodes are done; Nodes are the
	// ones it waits for.
	CauseWaveWaiting Cause = "WaveWaiting"
	// CauseUnavailable: Count of the Of desired nodes have an available
	// pod; Nodes are the others.
	CauseUnavailable Cause = "Unavailable"
	// CauseNotUpdated: Count of the Of desired nodes run the current
	// revision; Nodes are the others (under OnDelete, their old pods wait
	// to be deleted).
	CauseNotUpdated Cause = "NotUpdated"
	// CauseInFlight: nodes still run an old and a new pod, or several pods;
	// Nodes are they.
	CauseInFlight Cause = "InFlight"
)

// MaxReasonNodes is the most nodes a Reason names.
const MaxReasonNodes = 5

// Reason says why Judge judged as it did, as data:
// dsplan's simulator, a controller's status condition and a CI gate can
// each print it (String) or branch on its Cause. The fields a cause uses
// are documented with it.
type Reason struct {
	Cause Cause
	// Count and Of are the cause's figures.
	Count, Of int
	// Nodes are up to MaxReasonNodes nodes behind the cause, sorted by
	// name; MoreNodes counts the others.
	Nodes     []string
	MoreNodes int
	// Wave is the current wave's name (see daemon.RolloutPolicy.WaveOf), for the
	// wave causes; Until the end of its bake (CauseWaveBaking).
	Wave  string
	Until time.Time
	// Skip is the plan's Skip (CauseSkipped).
	Skip daemon.Skip
	// Surge is true when the budget of a budget cause is maxSurge.
	Surge bool
}

// Complete reports whether the cause means complete.
func (r Reason) Complete() bool {
	return r.Cause == CauseComplete || r.Cause == CausePartitionReached
}

// String says the reason in a sentence fit for a status condition or a
// log line.
func (r Reason) String() string {
	budget := "maxUnavailable"
	if r.Surge {
		budget = "maxSurge"
	}
	switch r.Cause {
	case CauseComplete:
		return "complete"
	case CausePartitionReached:
		return fmt.Sprintf("complete at the partition: %s keep the old revision (partition %d)", nodesCount(r.Count), r.Of)
	case CauseSkipped:
		return fmt.Sprintf("the sync is skipped (%s)", r.Skip)
	case CausePaused:
		return fmt.Sprintf("paused: the rolling step would replace %s", r.names(podsCount(r.Count)))
	case CauseReplacing:
		return fmt.Sprintf("replacing %s", r.names(podsCount(r.Count)))
	case CauseCreatingDeleting:
		return fmt.Sprintf("the plan still creates %d and deletes %d pods (%s)", r.Count, r.Of, r.list())
	case CauseBudgetOutsideScope:
		return fmt.Sprintf("%s (%d) is used up, %s by unavailable nodes outside the scope: %s", budget, r.Of, nodesCount(r.Count), r.list())
	case CauseBudget:
		what := "unavailable"
		if r.Surge {
			what = "surging"
		}
		nodes := what + " nodes"
		if r.Count == 1 {
			nodes = what + " node"
		}
		return fmt.Sprintf("%s (%d) is used up by %d %s: %s", budget, r.Of, r.Count, nodes, r.list())
	case CauseDomainBudget:
		s := fmt.Sprintf("the domain budgets of the %s waiting are used up", nodesCount(r.Count))
		if len(r.Nodes) > 0 {
			s += "; unavailable: " + r.list()
		}
		return s
	case CauseWaveBaking:
		return fmt.Sprintf("wave %s is updated and available; it bakes until %s", r.Wave, r.Until.UTC().Format(time.RFC3339))
	case CauseWaveWaiting:
		return fmt.Sprintf("wave %s: %d/%d updated and available; waiting for %s", r.Wave, r.Count, r.Of, r.list())
	case CauseUnavailable:
		return fmt.Sprintf("%d of %d desired nodes have an available pod; waiting for %s", r.Count, r.Of, r.list())
	case CauseNotUpdated:
		return fmt.Sprintf("%d of %d desired nodes run the current revision; not yet: %s", r.Count, r.Of, r.list())
	case CauseInFlight:
		return "nodes still being updated: " + r.list()
	}
	return string(r.Cause)
}

// list joins the nodes, with how many more there are.
func (r Reason) list() string {
	s := strings.Join(r.Nodes, ", ")
	if r.MoreNodes > 0 {
		s += fmt.Sprintf(" and %d more", r.MoreNodes)
	}
	if s == "" {
		s = "no node"
	}
	return s
}

// names is what, followed by the nodes when there are any.
func (r Reason) names(what string) string {
	if len(r.Nodes) == 0 {
		return what
	}
	return what + " on " + r.list()
}

// withNodes sets r's nodes from names, sorted, keeping MaxReasonNodes.
func (r Reason) withNodes(names []string) Reason {
	if len(names) > MaxReasonNodes {
		r.MoreNodes = len(names) - MaxReasonNodes
		names = names[:MaxReasonNodes]
	}
	r.Nodes = names
	return r
}

func nodesCount(n int) string {
	if n == 1 {
		return "1 node"
	}
	return fmt.Sprintf("%d nodes", n)
}

func podsCount(n int) string {
	if n == 1 {
		return "1 pod"
	}
	return fmt.Sprintf("%d pods", n)
}
