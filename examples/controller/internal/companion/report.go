package companion

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// report writes where r's rollout is: its conditions (a change of only the
// progress message at most once per messageInterval), their events, the
// events of the waves it completed and its gauges. Every stop the rollout
// makes records its Warnings (RolloutBlocked, RolloutPaused) once the
// outcome is recorded (recorded), a repeat after a resume too. It returns
// whether it wrote the conditions.
func (c *Companion) report(ctx context.Context, r *rolloutSync, recorded bool, errs *syncer.ErrorList) (written bool) {
	ds := r.ds
	changes := conditionChanges(ds.Status.Conditions, wantConditions(r), r.now)
	if wait := c.memory.holdMessage(r.key, ds.Status.Conditions, changes, r.now); wait > 0 && !r.fresh {
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
	if r.fresh && recorded {
		c.stopEvents(ds, wantConditions(r))
	}
	if h := findCondition(ds.Status.Conditions, ConditionProgressing); written && r.rolledBack != nil && r.rolledBack.By == progressive.RolledBackByUndo &&
		(h == nil || h.Reason != ReasonRolledBack) {
		// on-failure's rollback records its own Warning (onFailure); one
		// by hand is seen here first.
		c.Recorder.Event(ds, corev1.EventTypeWarning, "RolledBack", rolledBackMessage(r, r.rolledBack))
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
		g.blockedSince, g.blockedReason = b.LastTransitionTime.Time, b.Reason
	}
	if r.hold.Cause == progressive.HoldApproval || r.hold.Cause == progressive.HoldWindow {
		g.held = string(r.hold.Cause)
	}
	c.metrics.set(r.key, g)
	return written
}
