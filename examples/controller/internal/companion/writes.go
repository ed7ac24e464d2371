package companion

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// deleteOldPods carries out the plan's rolling-step deletes, and nothing
// else of it, each with a UID precondition, after raising the expectations
// of key by them. Each delete that succeeds is then recorded as a
// RolloutReplace event on its pod, and the batch as one RolloutReplace
// event on the DaemonSet: best effort, like every event (the recorder
// sends it later and may drop it, and a companion that dies between the
// delete and the event never records it).
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
	var mu sync.Mutex
	var done []string
	n := c.DeletePods(ctx, key, ds, deletes, errs, func(d daemon.Delete) {
		// On the pod, each: the event recorder lets one object have 25
		// events per 5 minutes, which a rollout of more nodes would spend
		// on deletes, dropping the rollout's own events (waves, blocked,
		// complete); the DaemonSet gets one per batch (below).
		c.Recorder.Eventf(d.Pod, corev1.EventTypeNormal, "RolloutReplace", "Deleted by %s for the rollout of daemonset %s to revision %s (%s)", syncer.ComponentName, key, plan.Hash, d.Reason)
		mu.Lock()
		done = append(done, fmt.Sprintf("%s (node %s)", d.Pod.Name, d.NodeName))
		mu.Unlock()
	})
	if len(done) > 0 {
		c.Recorder.Event(ds, corev1.EventTypeNormal, "RolloutReplace", deleteBatchMessage(done, r.revisionName(plan.Hash)))
	}
	return n
}

// deleteBatchMessage is the message of the one Normal event a batch of
// deletes records on its DaemonSet, as kube-controller-manager records
// its own ("Deleted pod: ..."), one per batch rather than per pod: the
// pods (sorted, up to progressive.MaxReasonNodes, then how many more)
// and the revision that replaces them.
func deleteBatchMessage(pods []string, rev string) string {
	pods = slices.Clone(pods)
	slices.Sort(pods)
	what := "1 old pod"
	if len(pods) != 1 {
		what = fmt.Sprintf("%d old pods", len(pods))
	}
	return fmt.Sprintf("Deleted %s for the rollout to %s: %s", what, rev, nodeList(pods, progressive.MaxReasonNodes))
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

// conditionEvents records the events of condition transitions: paused by
// the annotation, resumed, waiting for an approval or a window, complete,
// pods of a completed revision failing, held by an annotation that names
// nothing of the cluster (a Warning). A stop the
// rollout makes itself records its Warnings in the sync it stops
// (stopEvents), whether or not its conditions change.
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
		case ConditionPaused:
			switch {
			case ch.Status == corev1.ConditionTrue && ch.Reason == ReasonPausedByAnnotation && (status != corev1.ConditionTrue || reason != ch.Reason):
				c.Recorder.Event(ds, corev1.EventTypeNormal, "RolloutPaused", ch.Message)
			case ch.Status == corev1.ConditionFalse && status == corev1.ConditionTrue:
				c.Recorder.Event(ds, corev1.EventTypeNormal, "RolloutResumed", "the rollout is resumed")
			}
		case ConditionBlocked:
			// An annotation naming nothing of the cluster holds the
			// rollout without a latch: its Warning comes with the
			// condition, when the hold starts or what it names changes.
			if ch.Status == corev1.ConditionTrue && ch.Reason == ReasonUnresolvedReference {
				c.Recorder.Event(ds, corev1.EventTypeWarning, "RolloutBlocked", ch.Reason+": "+ch.Message)
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
			case ch.Reason == ReasonPodsFailing:
				c.Recorder.Event(ds, corev1.EventTypeWarning, "PodsFailing", ch.Message)
			}
		}
	}
}

// stopEvents records the Warnings of a stop the rollout made itself in
// this sync, from want, its wanted conditions: RolloutBlocked (the cause)
// and RolloutPaused (how to resume).
func (c *Companion) stopEvents(ds *appsv1.DaemonSet, want []appsv1.DaemonSetCondition) {
	if b := findCondition(want, ConditionBlocked); b != nil && b.Status == corev1.ConditionTrue {
		c.Recorder.Event(ds, corev1.EventTypeWarning, "RolloutBlocked", b.Reason+": "+b.Message)
	}
	if p := findCondition(want, ConditionPaused); p != nil && p.Status == corev1.ConditionTrue {
		c.Recorder.Event(ds, corev1.EventTypeWarning, "RolloutPaused", p.Message)
	}
}
