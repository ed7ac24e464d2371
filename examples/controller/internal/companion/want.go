package companion

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// wantConditions are the conditions r's rollout should have: where it is
// (RolloutProgressing), whether it is paused and by whom (RolloutPaused),
// whether it stopped itself and why (RolloutBlocked), and the kstatus
// conditions read from those (withKstatus). No message carries state:
// the latch is the outcome annotation's.
func wantConditions(r *rolloutSync) []appsv1.DaemonSetCondition {
	gen := func(msg string) string { return progressive.WithGeneration(msg, r.ds.Generation) }
	sum := summary(r.judgement)
	deadline := r.ro.Annotations.ProgressDeadline
	current := r.revisionName(r.plan.Hash)
	var want []appsv1.DaemonSetCondition
	notPaused := condition(ConditionPaused, false, ReasonNotPaused, messageNotPaused)
	switch {
	case r.latched:
		stopped := "; stopped at its progress deadline"
		if r.l.Reason == progressive.OutcomeHealthGateFailed {
			stopped = "; stopped by a health gate"
		}
		want = append(want, condition(ConditionProgressing, false, string(r.l.Reason), gen(sum+stopped)))
		want = append(want, condition(ConditionPaused, true, string(r.l.Reason), latchMessage(r.key, &r.l, current, deadline, r.rollback)))
	case r.hold.Cause == progressive.HoldUnresolved:
		// A typo must not switch a control off: held, and said, whatever
		// else the rollout's state (complete too: the next revision would
		// be held).
		want = append(want, condition(ConditionProgressing, false, ReasonUnresolvedReference, gen(sum+"; no old pod is replaced: "+r.hold.String())))
		want = append(want, notPaused)
	case r.rolledBack != nil:
		msg := rolledBackMessage(r, r.rolledBack) + "; " + sum
		if r.hold.Held() {
			msg += "; " + syncer.HoldMessage(r.key, r.hold, r.ro.Annotations.Gates.Windows)
		}
		want = append(want, condition(ConditionProgressing, false, ReasonRolledBack, gen(msg+"; "+resumeHint(r.key))))
		want = append(want, notPaused)
	case r.paused():
		want = append(want, condition(ConditionProgressing, false, ReasonPaused, gen(sum)))
		want = append(want, condition(ConditionPaused, true, ReasonPausedByAnnotation, "paused by the "+progressive.AnnotationPaused+" annotation"))
	case r.judgement.Complete:
		want = append(want, condition(ConditionProgressing, true, ReasonComplete, gen(sum)))
		want = append(want, notPaused)
	case r.failing.Held():
		want = append(want, condition(ConditionProgressing, true, ReasonPodsFailing,
			gen(fmt.Sprintf("the rollout to %s completed, and pods of it now fail (reported, not stopped: no rollout is under way): %s; %s", current, r.failing, sum))))
		want = append(want, notPaused)
	case r.hold.Held():
		want = append(want, condition(ConditionProgressing, true, string(r.hold.Cause), gen(sum+"; "+syncer.HoldMessage(r.key, r.hold, r.ro.Annotations.Gates.Windows))))
		want = append(want, notPaused)
	default:
		want = append(want, condition(ConditionProgressing, true, ReasonUpdating, gen(sum)))
		want = append(want, notPaused)
	}
	switch have := findCondition(r.ds.Status.Conditions, ConditionBlocked); {
	case r.hold.Cause == progressive.HoldUnresolved:
		want = append(want, condition(ConditionBlocked, true, ReasonUnresolvedReference, r.hold.String()))
	case r.latched && r.l.Reason == progressive.OutcomeHealthGateFailed && r.failing.Held():
		// Every pod that fails now (Hold.String: the first few by node,
		// then how many more), not only those that failed first.
		want = append(want, condition(ConditionBlocked, true, ReasonHealthGateFailed, r.failing.String()))
	case r.fresh && r.l.Reason == progressive.OutcomeHealthGateFailed:
		want = append(want, condition(ConditionBlocked, true, ReasonHealthGateFailed, r.hold.String()))
	case r.fresh:
		reason, msg := blockedCause(r.plan.Standing)
		want = append(want, condition(ConditionBlocked, true, reason, fmt.Sprintf("no node became updated and available for %s: %s", deadline, msg)))
	case r.latched && have != nil && have.Status == corev1.ConditionTrue:
		// What it said when the rollout stopped: the cause then.
		want = append(want, *have)
	case r.latched && r.l.Reason == progressive.OutcomeHealthGateFailed:
		want = append(want, condition(ConditionBlocked, true, ReasonHealthGateFailed, "stopped by a health gate"))
	case r.latched:
		want = append(want, condition(ConditionBlocked, true, ReasonNoProgress, "stopped at its progress deadline"))
	default:
		want = append(want, condition(ConditionBlocked, false, ReasonNotBlocked, messageNotBlocked))
	}
	return withKstatus(want)
}

// rolledBackMessage says what rollback o undid, for people: "rolled back
// from revision 5 (h5) to revision 6 (h4) by on-failure: rollback (health
// gate failed: ...)".
func rolledBackMessage(r *rolloutSync, o *progressive.Outcome) string {
	by := "by on-failure: rollback"
	if o.By == progressive.RolledBackByUndo {
		by = "by kubectl dsplan rollout undo"
	}
	msg := fmt.Sprintf("rolled back from %s to %s %s", r.revisionName(o.From), r.revisionName(o.Revision), by)
	if o.Why != "" {
		msg += " (" + o.Why + ")"
	}
	return msg
}

// revisionName names the revision of r's DaemonSet with hash for people:
// "revision 3 (6d5f8b9c7)", or "revision 6d5f8b9c7" when it has no
// ControllerRevision in the cache.
func (r *rolloutSync) revisionName(hash string) string {
	if rev := currentRevision(r.revs, r.ds, hash); rev != nil {
		return revisionName(rev)
	}
	return "revision " + hash
}

// withKstatus returns want, RolloutProgressing's and RolloutBlocked's
// wanted conditions, with the kstatus conditions read from them
// (ConditionReconciling, ConditionStalled): Reconciling is
// RolloutProgressing while True and not complete, False otherwise;
// Stalled is RolloutBlocked, True also when the rollout annotations are
// refused (RolloutProgressing False with syncer.ReasonInvalidAnnotations
// or syncer.ReasonSurgeUnsupported) and when the change was rolled back
// (ReasonRolledBack: kstatus says Failed until a person acts). A
// completed rollout whose pods fail later (ReasonPodsFailing) is neither.
// One place decides both, so that they never disagree with the
// companion's own conditions.
func withKstatus(want []appsv1.DaemonSetCondition) []appsv1.DaemonSetCondition {
	p := findCondition(want, ConditionProgressing)
	if p == nil {
		return want
	}
	underWay := p.Status == corev1.ConditionTrue && p.Reason != ReasonComplete && p.Reason != ReasonPodsFailing
	reconciling := condition(ConditionReconciling, underWay, p.Reason, p.Message)
	stalled := condition(ConditionStalled, false, ReasonNotBlocked, messageNotBlocked)
	switch b := findCondition(want, ConditionBlocked); {
	case b != nil && b.Status == corev1.ConditionTrue:
		stalled = condition(ConditionStalled, true, b.Reason, b.Message)
	case p.Reason == syncer.ReasonInvalidAnnotations || p.Reason == syncer.ReasonSurgeUnsupported || p.Reason == ReasonRolledBack:
		stalled = condition(ConditionStalled, true, p.Reason, p.Message)
	}
	return append(want, reconciling, stalled)
}
