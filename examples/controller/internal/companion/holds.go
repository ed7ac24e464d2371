package companion

import (
	"fmt"
	"time"
	// The maintenance windows' time zones resolve with time.LoadLocation
	// also where the image has no /usr/share/zoneinfo (a distroless
	// image): the zone database is embedded.
	_ "time/tzdata"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// judge reads the recorded outcome (readOutcome: a rollout that stopped
// itself stays stopped, and a rollback stays a failed change, while the
// revision and the paused annotation are those it recorded), then judges
// r's plan and, for a rollout neither paused nor stopped by itself for
// another cause than a health gate, asks its gates (progressive.Assess,
// which computes no plan). An error of the gates is kept for applyGates;
// any other is returned.
func (c *Companion) judge(r *rolloutSync) error {
	o, legacy := readOutcome(r.ds, r.ro.Annotations)
	switch {
	case o == nil:
	case !o.Holds(r.ds, r.plan.Hash):
		r.staleOutcome = !legacy
	case o.Stops():
		r.l, r.latched, r.legacy = *o, true, legacy
	default:
		r.rolledBack = o
	}
	var gates *progressive.Gates
	if r.gated() {
		gates = r.ro.Gates()
	}
	a, err := progressive.Assess(progressive.AssessInput{
		DaemonSet: r.ro.DaemonSet, Plan: &r.plan, Gates: gates,
		Options: daemon.Options{Now: r.now}, Zones: c.zones,
	})
	if progressive.StepOf(err) == progressive.AssessGates {
		r.judgement, r.gateErr = a.Judgement, err
		return nil
	}
	if err != nil {
		return err
	}
	r.judgement, r.assessed = a.Judgement, a
	return nil
}

// gated reports whether r's gates are asked: not while the rollout is
// paused or stopped by itself for another cause than a health gate.
func (r *rolloutSync) gated() bool {
	return !r.paused() && !(r.latched && r.l.Reason != progressive.OutcomeHealthGateFailed)
}

// applyGates decides, for a rollout neither paused nor stopped by itself
// for another cause than a health gate, what holds it beyond its plan
// (progressive.Gates.Hold: an annotation naming nothing of the cluster,
// then, unless the rollout is complete, the health gates, an approval
// point, the windows) and applies the progress deadline:
//   - an unresolved reference holds it, not latched, also once complete:
//     RolloutBlocked and Stalled True name it until the annotation or the
//     cluster changes (wantConditions);
//   - a failed health gate latches (a fresh latch, ReasonHealthGateFailed);
//     of a latched rollout it only refreshes which pods fail, for the
//     RolloutBlocked message;
//   - a rollout that completed before at this generation (steady) is not
//     under way: a failing health gate is reported (r.failing), nothing
//     else holds it, and no deadline runs;
//   - an approval point or a closed window holds it, not latched: it goes
//     on once approved or once a window opens, and the progress deadline
//     does not run meanwhile;
//   - otherwise a rollout that made no progress for its deadline latches
//     (ReasonProgressDeadlineExceeded), and one that may still make it is
//     requeued for the deadline.
//
// The hold is judge's (progressive.Assess). The sync is requeued at
// Hold.Next, when the answer may change with the clock alone
// (Assessment.Requeue). It fails only when the gates did: a window's time
// zone that the zone database does not know.
func (c *Companion) applyGates(r *rolloutSync) error {
	if !r.gated() {
		return nil
	}
	if r.gateErr != nil {
		return r.gateErr
	}
	hold := r.assessed.Hold
	if r.assessed.Requeue > 0 {
		c.Queue.AddAfter(r.key, r.assessed.Requeue)
	}
	steady := completedBefore(r.ds)
	switch {
	case hold.Cause == progressive.HoldUnresolved && !r.latched:
		r.hold = hold
		return nil
	case r.latched:
		if hold.Cause == progressive.HoldHealthGate {
			r.failing = hold
		}
		return nil
	case steady:
		if hold.Cause == progressive.HoldHealthGate {
			r.failing = hold
		}
		return nil
	case r.judgement.Complete:
		return nil
	}
	r.hold = hold
	switch {
	case hold.Cause == progressive.HoldHealthGate:
		c.latch(r, progressive.OutcomeHealthGateFailed, hold.String())
		c.metrics.healthGateFailed(r.ds.Namespace, r.ds.Name, hold.Signals)
		return nil
	case hold.Held():
		return nil
	}
	exceeded, wait := r.judgement.Deadline(progressSince(r), r.ro.Annotations.ProgressDeadline, r.now)
	switch {
	case exceeded:
		c.latch(r, progressive.OutcomeProgressDeadlineExceeded, fmt.Sprintf("no node became updated and available for %s", r.ro.Annotations.ProgressDeadline))
	case wait > 0:
		c.Queue.AddAfter(r.key, wait+time.Second)
	}
	return nil
}

// completedBefore reports whether the companion found the rollout of ds's
// current generation complete before: its RolloutProgressing condition
// says RolloutComplete (or PodsFailing, reported after it) for this
// generation. Its gates then no longer judge a rollout: a pod of that
// revision failing later is the DaemonSet's trouble, not the change's.
func completedBefore(ds *appsv1.DaemonSet) bool {
	p := findCondition(ds.Status.Conditions, ConditionProgressing)
	if p == nil || (p.Reason != ReasonComplete && p.Reason != ReasonPodsFailing) {
		return false
	}
	gen, ok := progressive.ConditionGeneration(p)
	return ok && gen == ds.Generation
}

// latch stops r's rollout itself, for reason (why, in words), in this
// sync.
func (c *Companion) latch(r *rolloutSync, reason progressive.OutcomeReason, why string) {
	r.latched, r.fresh = true, true
	r.l = progressive.NewOutcome(r.ds, reason, r.plan.Hash)
	r.l.Why = why
}

// progressSince is when r's progress clock starts, read from the cluster:
// the latest of the revision's creation, the last resume (or the
// companion's first look) and the end of the last approval or window hold
// (or this sync, when it ends the hold). The judgement adds the last
// updated pod becoming available (progressive.Judgement.Deadline).
func progressSince(r *rolloutSync) time.Time {
	since := r.now
	if r.rev != nil {
		since = r.rev.CreationTimestamp.Time
	}
	switch pc := findCondition(r.ds.Status.Conditions, ConditionPaused); {
	case pc == nil:
		// The companion's first look.
		since = r.now
	case pc.Status == corev1.ConditionTrue:
		// Resumed by this sync (applyGates asks only when not paused).
		since = r.now
	case pc.Status == corev1.ConditionFalse && pc.LastTransitionTime.After(since):
		since = pc.LastTransitionTime.Time
	}
	switch pc := findCondition(r.ds.Status.Conditions, ConditionProgressing); {
	case pc == nil:
	case pc.Reason == ReasonWaitingForApproval || pc.Reason == ReasonOutsideWindow:
		// Held until this sync.
		since = r.now
	case pc.Reason == ReasonUpdating && pc.LastTransitionTime.After(since):
		// Updating since the last hold ended (a change of reason is a
		// transition: conditionChanges).
		since = pc.LastTransitionTime.Time
	}
	return since
}
