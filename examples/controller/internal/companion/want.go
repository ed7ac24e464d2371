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
// conditions read from those (withKstatus).
func wantConditions(r *rolloutSync) []appsv1.DaemonSetCondition {
	gen := fmt.Sprintf(" (generation %d)", r.ds.Generation)
	sum := summary(r.judgement)
	deadline := r.ro.Annotations.ProgressDeadline
	var want []appsv1.DaemonSetCondition
	switch {
	case r.latched:
		stopped := "; stopped at its progress deadline"
		if r.l.Reason == ReasonHealthGateFailed {
			stopped = "; stopped by a health gate"
		}
		want = append(want, condition(ConditionProgressing, false, r.l.Reason, sum+stopped+gen))
		want = append(want, condition(ConditionPaused, true, r.l.Reason, r.l.message(deadline, r.rollback)))
	case r.hold.Cause == progressive.HoldUnresolved:
		// A typo must not switch a control off: held, and said, whatever
		// else the rollout's state (complete too: the next revision would
		// be held).
		want = append(want, condition(ConditionProgressing, false, ReasonUnresolvedReference, sum+"; no old pod is replaced: "+r.hold.String()+gen))
		want = append(want, condition(ConditionPaused, false, ReasonNotPaused, messageNotPaused))
	case r.paused():
		want = append(want, condition(ConditionProgressing, false, ReasonPaused, sum+gen))
		want = append(want, condition(ConditionPaused, true, ReasonPausedByAnnotation, "paused by the "+progressive.AnnotationPaused+" annotation"))
	case r.judgement.Complete:
		want = append(want, condition(ConditionProgressing, true, ReasonComplete, sum+gen))
		want = append(want, condition(ConditionPaused, false, ReasonNotPaused, messageNotPaused))
	case r.hold.Held():
		want = append(want, condition(ConditionProgressing, true, string(r.hold.Cause), sum+"; "+syncer.HoldMessage(r.key, r.hold, r.ro.Annotations.Gates.Windows)+gen))
		want = append(want, condition(ConditionPaused, false, ReasonNotPaused, messageNotPaused))
	default:
		want = append(want, condition(ConditionProgressing, true, ReasonUpdating, sum+gen))
		want = append(want, condition(ConditionPaused, false, ReasonNotPaused, messageNotPaused))
	}
	switch have := findCondition(r.ds.Status.Conditions, ConditionBlocked); {
	case r.hold.Cause == progressive.HoldUnresolved:
		want = append(want, condition(ConditionBlocked, true, ReasonUnresolvedReference, r.hold.String()))
	case r.fresh && r.l.Reason == ReasonHealthGateFailed:
		want = append(want, condition(ConditionBlocked, true, ReasonHealthGateFailed, r.hold.String()))
	case r.fresh:
		reason, msg := blockedCause(r.plan.ReadOut)
		want = append(want, condition(ConditionBlocked, true, reason, fmt.Sprintf("no node became updated and available for %s: %s", deadline, msg)))
	case r.latched && have != nil && have.Status == corev1.ConditionTrue:
		// What it said when the rollout stopped: the cause then.
		want = append(want, *have)
	case r.latched && r.l.Reason == ReasonHealthGateFailed:
		want = append(want, condition(ConditionBlocked, true, ReasonHealthGateFailed, "stopped by a health gate"))
	case r.latched:
		want = append(want, condition(ConditionBlocked, true, ReasonNoProgress, "stopped at its progress deadline"))
	default:
		want = append(want, condition(ConditionBlocked, false, ReasonNotBlocked, messageNotBlocked))
	}
	want = withKstatus(want)
	if r.rollingBack {
		// The template goes back to the previous revision, which the
		// next syncs roll out (a write refused by a conflict is tried
		// again in the next): under way again, not stalled, though the
		// latch and RolloutBlocked say why until a sync reads the
		// restored template (kstatus would say Failed in between).
		for i := range want {
			switch want[i].Type {
			case ConditionReconciling:
				want[i] = condition(ConditionReconciling, true, ReasonRollingBack, r.rollback)
			case ConditionStalled:
				want[i] = condition(ConditionStalled, false, ReasonRollingBack, r.rollback)
			}
		}
	}
	return want
}

// withKstatus returns want, RolloutProgressing's and RolloutBlocked's
// wanted conditions, with the kstatus conditions read from them
// (ConditionReconciling, ConditionStalled): Reconciling is
// RolloutProgressing while True and not complete, False otherwise;
// Stalled is RolloutBlocked, True also when the rollout annotations are
// refused (RolloutProgressing False with syncer.ReasonInvalidAnnotations
// or syncer.ReasonSurgeUnsupported). One place decides both, so that they
// never disagree with the companion's own conditions.
func withKstatus(want []appsv1.DaemonSetCondition) []appsv1.DaemonSetCondition {
	p := findCondition(want, ConditionProgressing)
	if p == nil {
		return want
	}
	reconciling := condition(ConditionReconciling, p.Status == corev1.ConditionTrue && p.Reason != ReasonComplete, p.Reason, p.Message)
	stalled := condition(ConditionStalled, false, ReasonNotBlocked, messageNotBlocked)
	switch b := findCondition(want, ConditionBlocked); {
	case b != nil && b.Status == corev1.ConditionTrue:
		stalled = condition(ConditionStalled, true, b.Reason, b.Message)
	case p.Reason == syncer.ReasonInvalidAnnotations || p.Reason == syncer.ReasonSurgeUnsupported:
		stalled = condition(ConditionStalled, true, p.Reason, p.Message)
	}
	return append(want, reconciling, stalled)
}
