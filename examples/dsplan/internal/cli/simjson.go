package cli

import (
	"slices"
	"time"

	"github.com/daemonplan/daemonplan/daemon/simulate"
)

// simulateJSON is one DaemonSet's simulation, as "simulate -o json" prints
// it (one per DaemonSet, sorted by namespace/name). Durations are Go
// durations ("3m20s").
type simulateJSON struct {
	// APIVersion and Kind name the document and its JSON Schema
	// (examples/dsplan/schema): dsplan.daemonplan.io/v1alpha1 and Simulation.
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// DaemonSet is "namespace/name"; Image the --image set, if any.
	DaemonSet string `json:"daemonSet"`
	Image     string `json:"image,omitempty"`
	// Applied, when the DaemonSet came from a manifest in the input, says
	// what it was applied over (as in a plan).
	Applied *appliedJSON `json:"applied,omitempty"`
	// Rollout, when the DaemonSet has rollout annotations
	// (rollout.daemonplan.io/…), says which were read and how it was
	// simulated (as in a plan).
	Rollout *rolloutJSON `json:"rollout,omitempty"`
	// Warnings are what the library says is ignored or selects nothing,
	// as the text output's "warning:" lines: annotations with a near-miss
	// of the rollout.daemonplan.io/ prefix
	// (progressive.AnnotationWarnings) and order labels or values no node
	// has (progressive.OrderWarnings); absent when there are none. A plan
	// carries them in its notes.
	Warnings []string `json:"warnings,omitempty"`
	// Outcome is Converged, Stalled, Blocked or StepLimit; Reason why it
	// did not converge ("" when it did). Blocked: the run stalled only on
	// trouble of the cluster (NotReady nodes, failing pods: see
	// blocking), not on the rollout, or a health gate stopped it on a
	// failing pod of the new revision (gates.stop); the command exits 3.
	Outcome string `json:"outcome"`
	Reason  string `json:"reason,omitempty"`
	// Cause is the judge's cause where the run ended Converged, Stalled or
	// Blocked (progressive.Judge of the last sync), as data; absent after
	// StepLimit.
	Cause *causeJSON `json:"cause,omitempty"`
	// Blocking are the desired nodes held unavailable by trouble the
	// simulation does not resolve, where it ended Stalled or Blocked
	// (simulate.Result.Blocking), sorted by node; empty otherwise.
	Blocking []blockerJSON `json:"blocking"`
	// Gates, when the rollout annotations ask for a canary, approval
	// points, maintenance windows or health gates, say what the run made
	// of them: the canary's nodes, the approval points reached (each taken
	// as given at once), the windows waited out (counted in duration), and
	// the health gate that stopped the run (outcome Blocked); absent
	// otherwise.
	Gates *gatesJSON `json:"gates,omitempty"`
	// Assumed says what --assume-ready and --exclude-not-ready made of
	// the input; absent without them.
	Assumed *assumedJSON `json:"assumed,omitempty"`
	// ProgressDeadlineStop, when the progress-deadline annotation is set
	// and the run ended Stalled or Blocked, says when the companion would
	// pause the rollout and with which RolloutBlocked reason.
	ProgressDeadlineStop *stopJSON `json:"progressDeadlineStop,omitempty"`
	// Syncs and Duration are the run's (with the p50 delays when learned).
	Syncs    int    `json:"syncs"`
	Duration string `json:"duration"`
	// Estimate is the expected duration and the delays it was made with.
	Estimate estimateJSON `json:"estimate"`
	// GroupBy is the node label the update batches are grouped by ("" for
	// none).
	GroupBy string `json:"groupBy,omitempty"`
	// PlannedWaves are the waves of the order label (--order-label or the
	// order-by annotation), in the order they start, before the rollout:
	// each one's name (the label selector of its nodes), nodes in update
	// order, and when it starts and is done in the simulation.
	PlannedWaves []plannedWaveJSON `json:"plannedWaves"`
	// WaveBake is the wave barrier's bake (--wave-bake or the wave-bake
	// annotation), when there is a barrier.
	WaveBake string `json:"waveBake,omitempty"`
	// Batches are the update batches, the syncs that start updating nodes,
	// in order. The field keeps its first name, "waves", for the programs
	// that read it; a wave is a group of the order label (PlannedWaves).
	Batches []batchJSON `json:"waves"`
	// Blocks say where the rollout blocks or what holds nodes back, in
	// words.
	Blocks []string `json:"blocks"`
	// Worst is the worst point of the run.
	Worst worstJSON `json:"worst"`
	// Steps are the syncs that created, deleted or met an event or error.
	Steps []stepJSON `json:"steps"`
}

// causeJSON is progressive.Reason: why the judge judged the last sync as
// it did.
type causeJSON struct {
	// Cause is progressive.Cause: Complete, PartitionReached, Skipped,
	// Paused, Replacing, CreatingDeleting, BudgetUsedOutsideScope,
	// BudgetUsed, DomainBudgetUsed, WaveBaking, WaveWaiting, Unavailable,
	// NotUpdated or InFlight.
	Cause string `json:"cause"`
	// Count and Of are the cause's figures (see progressive.Cause).
	Count int `json:"count"`
	Of    int `json:"of"`
	// Nodes are up to 5 nodes behind the cause, sorted; MoreNodes counts
	// the others.
	Nodes     []string `json:"nodes"`
	MoreNodes int      `json:"moreNodes,omitempty"`
	// Wave is the current wave, for the wave causes; Until the end of its
	// bake (RFC 3339), for WaveBaking.
	Wave  string `json:"wave,omitempty"`
	Until string `json:"until,omitempty"`
	// Message says it in a sentence.
	Message string `json:"message"`
}

// blockerJSON is simulate.Blocker: a node the cluster's trouble holds.
type blockerJSON struct {
	// Node is the node's name; Pod the pod the status counts there, ""
	// when it runs none.
	Node string `json:"node"`
	Pod  string `json:"pod,omitempty"`
	// Cause is whatif's cause of the node's unavailability: NodeNotReady,
	// NotReady, Pending, ...
	Cause string `json:"cause"`
	// Failing says why the pod is failing (simulate.FailingReason:
	// "CrashLoopBackOff, 12 restarts"); "" for a pod that only waits for
	// its NotReady node.
	Failing string `json:"failing,omitempty"`
	// Restarts is the pod's highest container restart count.
	Restarts int32 `json:"restarts"`
}

// assumedJSON is what was assumed of the input.
type assumedJSON struct {
	// Ready are the --assume-ready nodes, Ready from now with their pods.
	Ready []string `json:"ready"`
	// Excluded are the NotReady nodes --exclude-not-ready left out, with
	// their pods.
	Excluded []string `json:"excluded"`
}

// stopJSON is when the companion would stop the rollout at its progress
// deadline, on the simulation's clock.
type stopJSON struct {
	// Deadline is the progress-deadline annotation.
	Deadline string `json:"deadline"`
	// At is the time after the start (progressive.Judgement.Deadline:
	// the deadline from the latest of the start and the last updated pod
	// becoming available).
	At string `json:"at"`
	// Reason is the RolloutBlocked condition's reason
	// (progressive.Stopped: NewRevisionUnavailable, NodesNotReady,
	// PodsMissing, OldPodsUnavailable, NoProgress); Message its message.
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// estimateJSON is the time estimate.
type estimateJSON struct {
	// Source says where the delays come from: "learned" (the pods),
	// "flags" (--ready-delay, --bind-delay) or "defaults" (too few pods).
	Source string `json:"source"`
	// Pods is the number of pods learned from.
	Pods int `json:"pods"`
	// ReadyP50, ReadyP90, BindP50 and BindP90 are the learned delays from
	// creation to Ready and to scheduled; Ready and Bind the ones the run
	// used.
	ReadyP50 string `json:"readyP50,omitempty"`
	ReadyP90 string `json:"readyP90,omitempty"`
	BindP50  string `json:"bindP50,omitempty"`
	BindP90  string `json:"bindP90,omitempty"`
	Ready    string `json:"ready"`
	Bind     string `json:"bind"`
	// MinReady is minReadySeconds: from Ready to available.
	MinReady string `json:"minReady"`
	// DurationP50 and DurationP90 are the runs' durations with every pod
	// taking the p50, and the p90, delays (the same without learning).
	DurationP50 string `json:"durationP50"`
	DurationP90 string `json:"durationP90"`
	// OutcomeP90 is the p90 run's outcome.
	OutcomeP90 string `json:"outcomeP90"`
}

// plannedWaveJSON is one wave of the order label.
type plannedWaveJSON struct {
	// Name is "label=value" ("!label" for the nodes without the label).
	Name string `json:"name"`
	// Nodes are its desired nodes, in update order.
	Nodes []string `json:"nodes"`
	// Start is when its first node is started (its old pod deleted, or a
	// new pod created beside it under surge), in the run with the p50
	// delays (time since the start); "" when none is.
	Start string `json:"start,omitempty"`
	// Done is when its last node runs an updated, available pod; "" when
	// one never does (Updated says how many do).
	Done string `json:"done,omitempty"`
	// Duration is Done less Start: how long the wave takes; "" without
	// both.
	Duration string `json:"duration,omitempty"`
	// Updated is the number of its nodes that end with an updated,
	// available pod.
	Updated int `json:"updated"`
}

// batchJSON is an update batch: a sync that starts updating nodes.
type batchJSON struct {
	// Step and At are the sync's number and time since the start.
	Step int    `json:"step"`
	At   string `json:"at"`
	// Nodes are the nodes it starts, by name.
	Nodes []string `json:"nodes"`
	// Down is the number of unavailable (Surge: surging) nodes after it,
	// Budget maxUnavailable (maxSurge).
	Down   int  `json:"down"`
	Budget int  `json:"budget"`
	Surge  bool `json:"surge"`
	// Groups are the values of GroupBy among its nodes.
	Groups []string `json:"groups"`
}

// worstJSON is the worst point of the run (simulate.Peak).
type worstJSON struct {
	// MaxDown is the most nodes down (should run, no available pod) at
	// once, MaxDownStep the first step it happened at (-1: the start),
	// MaxUnavailable the budget then.
	MaxDown        int `json:"maxDown"`
	MaxDownStep    int `json:"maxDownStep"`
	MaxUnavailable int `json:"maxUnavailable"`
	// MaxSurge is the most nodes with two pods at once, MaxSurgeStep the
	// first step it happened at, SurgeBudget maxSurge then.
	MaxSurge     int `json:"maxSurge"`
	MaxSurgeStep int `json:"maxSurgeStep"`
	SurgeBudget  int `json:"surgeBudget"`
	// OverBudget are the steps after which more nodes were down (or
	// surging) than the budget and than at the start.
	OverBudget []int `json:"overBudget"`
}

// stepJSON is one row of the step table.
type stepJSON struct {
	// Step and At are the sync's number and time since the start.
	Step int    `json:"step"`
	At   string `json:"at"`
	// Creates and Deletes are the plan's.
	Creates int `json:"creates"`
	Deletes int `json:"deletes"`
	// Updated and Desired are the status the sync computed (before its
	// plan).
	Updated int32 `json:"updated"`
	Desired int32 `json:"desired"`
	// Down and Surge are measured after the plan, MaxUnavailable and
	// MaxSurge the budgets they count against.
	Down           int `json:"down"`
	MaxUnavailable int `json:"maxUnavailable"`
	Surge          int `json:"surge"`
	MaxSurge       int `json:"maxSurge"`
	// Events are the cluster events just before the sync.
	Events []string `json:"events"`
	// Error is Compute's error in the sync, if any: its stage and cause
	// without the DaemonSet.
	Error string `json:"error,omitempty"`
}

func (r *simReport) toJSON(l *loaded) simulateJSON {
	res, d := r.res, r.delays
	out := simulateJSON{
		APIVersion: jsonAPIVersion, Kind: "Simulation",
		DaemonSet: r.name, Image: r.image, Outcome: string(res.Outcome), Reason: res.Reason,
		Syncs: len(res.Steps), Duration: fmtDur(res.Duration()), GroupBy: r.groupBy,
		Batches: []batchJSON{}, Blocks: append([]string{}, r.blocks...), Steps: []stepJSON{},
		Estimate: estimateJSON{Source: d.source, Pods: d.learned.pods, Ready: fmtDur(d.ready), Bind: fmtDur(d.bind),
			MinReady: fmtDur(d.minReady), DurationP50: fmtDur(res.Duration()), DurationP90: fmtDur(r.p90.Duration()),
			OutcomeP90: string(r.p90.Outcome)},
	}
	if d.learned.pods > 0 {
		lr := d.learned
		out.Estimate.ReadyP50, out.Estimate.ReadyP90 = fmtDur(lr.readyP50), fmtDur(lr.readyP90)
		out.Estimate.BindP50, out.Estimate.BindP90 = fmtDur(lr.bindP50), fmtDur(lr.bindP90)
	}
	for _, a := range l.applied {
		if a.name == r.name {
			out.Applied = a.toJSON()
		}
	}
	out.PlannedWaves = []plannedWaveJSON{}
	for i, w := range r.planned {
		pw := plannedWaveJSON{Name: w.Name, Nodes: append([]string{}, w.Nodes...)}
		t := r.timing[i]
		pw.Updated = t.updated
		if t.started {
			pw.Start = fmtDur(t.start)
		}
		if t.finished {
			pw.Done = fmtDur(t.done)
		}
		if t.started && t.finished {
			pw.Duration = fmtDur(t.took())
		}
		out.PlannedWaves = append(out.PlannedWaves, pw)
	}
	out.Rollout = r.rollout.toJSON()
	out.Gates = r.gatesToJSON()
	out.Warnings = slices.Clone(r.rollout.warnings)
	out.Cause, out.Blocking = causeOf(res), []blockerJSON{}
	for _, b := range res.Blocking {
		out.Blocking = append(out.Blocking, blockerJSON{Node: b.Node, Pod: b.Pod, Cause: string(b.Cause), Failing: b.Failing, Restarts: b.Restarts})
	}
	if len(r.assumed) > 0 || r.excludeNotReady {
		out.Assumed = &assumedJSON{Ready: append([]string{}, r.assumed...), Excluded: append([]string{}, r.excluded...)}
	}
	if st := r.stop; st != nil {
		out.ProgressDeadlineStop = &stopJSON{Deadline: fmtDur(st.deadline), At: fmtDur(st.at), Reason: string(st.cause), Message: st.message}
	}
	if r.barrier != nil {
		out.WaveBake = fmtDur(r.barrier.Bake)
	}
	for _, w := range r.batches {
		out.Batches = append(out.Batches, batchJSON{Step: w.step, At: w.at, Nodes: w.nodes, Down: w.down, Budget: w.budget,
			Surge: w.surge, Groups: append([]string{}, w.groups...)})
	}
	pk := res.Peak()
	out.Worst = worstJSON{MaxDown: pk.MaxDown, MaxDownStep: pk.MaxDownStep, MaxUnavailable: pk.MaxUnavailable,
		MaxSurge: pk.MaxSurge, MaxSurgeStep: pk.MaxSurgeStep, SurgeBudget: pk.SurgeBudget, OverBudget: append([]int{}, pk.OverBudget...)}
	for _, s := range res.Steps {
		if s.Creates == 0 && s.Deletes == 0 && len(s.Events) == 0 && s.Err == "" {
			continue
		}
		out.Steps = append(out.Steps, stepJSON{Step: s.Step, At: fmtDur(s.At), Creates: s.Creates, Deletes: s.Deletes,
			Updated: s.Updated, Desired: s.Desired, Down: s.Down, MaxUnavailable: s.Budgets.MaxUnavailable,
			Surge: s.Surge, MaxSurge: s.Budgets.MaxSurge, Events: append([]string{}, s.Events...), Error: s.Err})
	}
	return out
}

// causeOf is the judge's cause of res, nil when the run was not judged.
func causeOf(res simulate.Result) *causeJSON {
	r := res.Judgement.Reason
	if r.Cause == "" || res.Outcome == simulate.OutcomeStepLimit {
		return nil
	}
	c := &causeJSON{Cause: string(r.Cause), Count: r.Count, Of: r.Of, Nodes: append([]string{}, r.Nodes...),
		MoreNodes: r.MoreNodes, Wave: r.Wave, Message: r.String()}
	if !r.Until.IsZero() {
		c.Until = r.Until.UTC().Format(time.RFC3339)
	}
	return c
}
