package companion

import (
	"context"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// report writes where r's rollout is: its conditions (a change of only the
// progress message at most once per messageInterval), their events, the
// events of the waves it completed and its gauges. It returns whether it
// wrote the conditions.
func (c *Companion) report(ctx context.Context, r *rolloutSync, errs *syncer.ErrorList) (written bool) {
	ds := r.ds
	changes := conditionChanges(ds.Status.Conditions, wantConditions(r), r.now)
	if wait := c.memory.holdMessage(r.key, ds.Status.Conditions, changes, r.now); wait > 0 {
		// Only the progress message changed, and it was written a moment
		// ago: each write is one more conflict for kube-controller-
		// manager's next status update; write it a little later.
		changes = nil
		c.Queue.AddAfter(r.key, wait)
	}
	if len(changes) > 0 {
		if err := c.writeConditions(ctx, r.key, ds, changes, nil); err != nil {
			errs.Add(err)
		} else {
			c.conditionEvents(ds, ds.Status.Conditions, changes)
			written = true
		}
	}
	j := r.judgement
	for _, w := range c.memory.newlyComplete(r.key, ds.UID, r.plan.Hash, j) {
		next := ""
		if i := j.Current(); i >= 0 {
			next = "; next: " + waveName(j.Waves[i].Wave)
		}
		c.Recorder.Eventf(ds, corev1.EventTypeNormal, "WaveComplete", "%s: %d/%d nodes updated and available%s", waveName(w.Wave), w.Updated, w.Desired, next)
	}

	g := rolloutGauges{namespace: ds.Namespace, name: ds.Name, desired: j.Total.Desired, updated: j.Total.Updated, waves: len(j.Waves), wavesDone: wavesDone(j)}
	if b := findCondition(append(changes, ds.Status.Conditions...), ConditionBlocked); b != nil && b.Status == corev1.ConditionTrue {
		g.blockedSince = b.LastTransitionTime.Time
	}
	c.metrics.set(r.key, g)
	return written
}

// wantConditions are the conditions r's rollout should have: where it is
// (RolloutProgressing), whether it is paused and by whom (RolloutPaused),
// and whether it stopped at its progress deadline and why
// (RolloutBlocked).
func wantConditions(r *rolloutSync) []appsv1.DaemonSetCondition {
	gen := fmt.Sprintf(" (generation %d)", r.ds.Generation)
	sum := summary(r.judgement)
	if ws := progressive.OrderWarnings(&r.ro.Policy, r.nodes); len(ws) > 0 {
		sum += "; " + strings.Join(ws, "; ")
	}
	deadline := r.ro.Annotations.ProgressDeadline
	var want []appsv1.DaemonSetCondition
	switch {
	case r.selfPaused:
		want = append(want, condition(ConditionProgressing, false, ReasonProgressDeadlineExceeded, sum+"; stopped at its progress deadline"+gen))
		want = append(want, condition(ConditionPaused, true, ReasonProgressDeadlineExceeded, r.sp.message(deadline)))
	case r.paused():
		want = append(want, condition(ConditionProgressing, false, ReasonPaused, sum+gen))
		want = append(want, condition(ConditionPaused, true, ReasonPausedByAnnotation, "paused by the "+progressive.AnnotationPaused+" annotation"))
	case r.judgement.Complete:
		want = append(want, condition(ConditionProgressing, true, ReasonComplete, sum+gen))
		want = append(want, condition(ConditionPaused, false, ReasonNotPaused, messageNotPaused))
	default:
		want = append(want, condition(ConditionProgressing, true, ReasonUpdating, sum+gen))
		want = append(want, condition(ConditionPaused, false, ReasonNotPaused, messageNotPaused))
	}
	switch have := findCondition(r.ds.Status.Conditions, ConditionBlocked); {
	case r.deadlineHit:
		reason, msg := blockedCause(r.plan.ReadOut)
		want = append(want, condition(ConditionBlocked, true, reason, fmt.Sprintf("no node became updated and available for %s: %s", deadline, msg)))
	case r.selfPaused && have != nil && have.Status == corev1.ConditionTrue:
		want = append(want, *have)
	case r.selfPaused:
		want = append(want, condition(ConditionBlocked, true, ReasonNoProgress, "stopped at its progress deadline"))
	default:
		want = append(want, condition(ConditionBlocked, false, ReasonNotBlocked, messageNotBlocked))
	}
	return want
}
