package companion

import (
	"time"
	// The maintenance windows' time zones resolve with time.LoadLocation
	// also where the image has no /usr/share/zoneinfo (a distroless
	// image): the zone database is embedded.
	_ "time/tzdata"

	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// judge judges r's plan (progressive.Judge, which reads the plan and
// computes none) and reads the latch: a rollout that stopped itself stays
// stopped while its revision and the paused annotation are those it
// stopped at.
func (c *Companion) judge(r *rolloutSync) error {
	r.l, r.latched = readLatch(r.ds.Status.Conditions)
	if r.latched && !r.l.holds(r.ds, r.plan.Hash) {
		r.l, r.latched = latch{}, false
	}
	j, err := progressive.Judge(r.ro.DaemonSet, &r.plan)
	if err != nil {
		return err
	}
	r.judgement = j
	return nil
}

// applyGates decides, for a rollout neither paused nor latched, what
// holds it beyond its plan (progressive.Gates.Hold: an annotation naming
// nothing of the cluster, then, unless the rollout is complete, the
// health gates, an approval point, the windows) and applies the progress
// deadline:
//   - an unresolved reference holds it, not latched, also once complete:
//     RolloutBlocked and Stalled True name it until the annotation or the
//     cluster changes (wantConditions);
//   - a failed health gate latches (a fresh latch, ReasonHealthGateFailed);
//   - an approval point or a closed window holds it, not latched: it goes
//     on once approved or once a window opens, and the progress deadline
//     does not run meanwhile;
//   - otherwise a rollout that made no progress for its deadline latches
//     (ReasonProgressDeadlineExceeded), and one that may still make it is
//     requeued for the deadline.
//
// The sync is requeued at Hold.Next, when the answer may change with the
// clock alone. It fails only when Hold does: a window's time zone that
// the zone database does not know.
func (c *Companion) applyGates(r *rolloutSync) error {
	if r.paused() || r.latched {
		return nil
	}
	hold, err := r.ro.Annotations.Gates.Hold(r.ro.DaemonSet, &r.plan, r.judgement, r.now, c.zones)
	if err != nil {
		return err
	}
	r.hold = hold
	if !hold.Next.IsZero() {
		c.Queue.AddAfter(r.key, max(hold.Next.Sub(r.now), minHoldRequeue))
	}
	switch {
	case hold.Cause == progressive.HoldHealthGate:
		c.latch(r, ReasonHealthGateFailed)
		c.metrics.healthGateFailed(r.ds.Namespace, r.ds.Name, hold.Signals)
		return nil
	case hold.Held():
		return nil
	}
	exceeded, wait := r.judgement.Deadline(progressSince(r), r.ro.Annotations.ProgressDeadline, r.now)
	switch {
	case exceeded:
		c.latch(r, ReasonProgressDeadlineExceeded)
	case wait > 0:
		c.Queue.AddAfter(r.key, wait+time.Second)
	}
	return nil
}

// minHoldRequeue is the least wait before looking again at a hold that
// changes with the clock: Hold.Next is exact, and a sync a moment early
// finds it unchanged.
const minHoldRequeue = 100 * time.Millisecond

// latch stops r's rollout itself, for reason, in this sync.
func (c *Companion) latch(r *rolloutSync, reason string) {
	r.latched, r.fresh = true, true
	r.l = latch{Reason: reason, Hash: r.plan.Hash, Paused: pausedValue(r.ds)}
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
