package companion

import (
	"context"
	"fmt"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// deleteOldPods carries out the plan's rolling-step deletes, and nothing
// else of it, each with a UID precondition, after raising the expectations
// of key by them. Each delete that succeeds is then recorded as a
// RolloutReplace event on its pod: best effort, like every event (the
// recorder sends it later and may drop it, and a companion that dies
// between the delete and the event never records it).
func (c *Companion) deleteOldPods(ctx context.Context, r *rolloutSync, errs *syncer.ErrorList) (deleted int) {
	key, ds, plan := r.key, r.ds, r.plan
	if plan.Rolling == nil {
		return 0
	}
	var deletes []daemon.Delete
	for _, d := range plan.Deletes {
		ref := metav1.GetControllerOf(d.Pod)
		if (d.Reason == daemon.ReasonRollingUpdate || d.Reason == daemon.ReasonReplaceUnavailable) &&
			ref != nil && ref.UID == ds.UID && d.Pod.DeletionTimestamp == nil {
			deletes = append(deletes, d)
		}
	}
	if len(deletes) == 0 {
		return 0
	}
	uids := make([]types.UID, len(deletes))
	for i, d := range deletes {
		uids[i] = d.Pod.UID
	}
	c.Expectations.Expect(key, 0, uids)
	return c.DeletePods(ctx, key, ds, deletes, errs, func(d daemon.Delete) {
		// On the pod, not the DaemonSet: the event recorder lets one
		// object have 25 events per 5 minutes, which a rollout of more
		// nodes would spend on deletes, dropping the rollout's own events
		// (waves, blocked, complete).
		c.Recorder.Eventf(d.Pod, corev1.EventTypeNormal, "RolloutReplace", "Deleted by %s for the rollout of daemonset %s to revision %s (%s)", syncer.ComponentName, key, plan.Hash, d.Reason)
	})
}

// patchConditions writes the conditions of want that changed, with their
// events.
func (c *Companion) patchConditions(ctx context.Context, key string, ds *appsv1.DaemonSet, now time.Time, want []appsv1.DaemonSetCondition) error {
	changes := conditionChanges(ds.Status.Conditions, want, now)
	if len(changes) == 0 {
		return nil
	}
	if err := c.writeConditions(ctx, key, ds, changes, nil); err != nil {
		return fmt.Errorf("daemonset %q: %w", key, err)
	}
	c.conditionEvents(ds, ds.Status.Conditions, changes)
	return nil
}

// dropConditions removes the companion's conditions from a DaemonSet it no
// longer manages.
func (c *Companion) dropConditions(ctx context.Context, key string, ds *appsv1.DaemonSet) error {
	var remove []appsv1.DaemonSetConditionType
	for _, t := range ownConditions {
		if findCondition(ds.Status.Conditions, t) != nil {
			remove = append(remove, t)
		}
	}
	if len(remove) == 0 {
		return nil
	}
	if err := c.writeConditions(ctx, key, ds, nil, remove); err != nil {
		return fmt.Errorf("daemonset %q: %w", key, err)
	}
	return nil
}

// writeConditions patches ds's status conditions (see conditionsPatch) and
// makes the next sync of key wait for the DaemonSet cache to hold the
// result.
func (c *Companion) writeConditions(ctx context.Context, key string, ds *appsv1.DaemonSet, set []appsv1.DaemonSetCondition, remove []appsv1.DaemonSetConditionType) error {
	patch, err := conditionsPatch(ds.UID, set, remove)
	if err == nil {
		var written *appsv1.DaemonSet
		written, err = c.Client.AppsV1().DaemonSets(ds.Namespace).Patch(ctx, ds.Name, types.StrategicMergePatchType, patch,
			metav1.PatchOptions{FieldManager: fieldManager}, "status")
		if err == nil {
			c.Fence.Wrote(key, syncer.FenceDaemonSets, written.ResourceVersion)
			c.Metrics.Actions.WithLabelValues("conditions", "Rollout").Inc()
			return nil
		}
	}
	c.Metrics.ActionErrors.WithLabelValues("conditions").Inc()
	return fmt.Errorf("patch status conditions: %w", err)
}

// conditionEvents records the events of condition transitions: blocked,
// paused (by annotation, or by itself: a Warning), resumed, waiting for
// an approval or a window, complete.
func (c *Companion) conditionEvents(ds *appsv1.DaemonSet, have, changes []appsv1.DaemonSetCondition) {
	was := func(t appsv1.DaemonSetConditionType) (status corev1.ConditionStatus, reason string, ok bool) {
		if h := findCondition(have, t); h != nil {
			return h.Status, h.Reason, true
		}
		return "", "", false
	}
	for _, ch := range changes {
		status, reason, existed := was(ch.Type)
		switch ch.Type {
		case ConditionBlocked:
			if ch.Status == corev1.ConditionTrue && status != corev1.ConditionTrue {
				c.Recorder.Event(ds, corev1.EventTypeWarning, "RolloutBlocked", ch.Reason+": "+ch.Message)
			}
		case ConditionPaused:
			switch {
			case ch.Status == corev1.ConditionTrue && status != corev1.ConditionTrue && slices.Contains(latchReasons, ch.Reason):
				c.Recorder.Event(ds, corev1.EventTypeWarning, "RolloutPaused", ch.Message)
			case ch.Status == corev1.ConditionTrue && status != corev1.ConditionTrue:
				c.Recorder.Event(ds, corev1.EventTypeNormal, "RolloutPaused", ch.Message)
			case ch.Status == corev1.ConditionFalse && status == corev1.ConditionTrue:
				c.Recorder.Event(ds, corev1.EventTypeNormal, "RolloutResumed", "the rollout is resumed")
			}
		case ConditionProgressing:
			if ch.Reason == reason {
				break
			}
			switch {
			case existed && ch.Reason == ReasonComplete:
				c.Recorder.Event(ds, corev1.EventTypeNormal, "RolloutComplete", ch.Message)
			case ch.Reason == ReasonWaitingForApproval:
				c.Recorder.Event(ds, corev1.EventTypeNormal, "RolloutWaitingForApproval", ch.Message)
			case ch.Reason == ReasonOutsideWindow:
				c.Recorder.Event(ds, corev1.EventTypeNormal, "RolloutOutsideWindow", ch.Message)
			}
		}
	}
}
