package controller

import (
	"context"
	"fmt"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// outcome is what execute did.
type outcome struct {
	created, deleted, adopted, released, revisionWrites int
	statusWritten                                       bool
	// statusHeld: the status changed only in its counters and was
	// written less than Config.StatusWriteInterval ago; the key is
	// requeued for the end of the interval.
	statusHeld bool
	// errs are the API errors of the actions that failed; the others were
	// still carried out.
	errs []error
}

// execute carries out plan for ds, in upstream's order: revision history,
// adoption and release of pods, creates then deletes, status. An API error
// on one action does not stop the others (the next sync redoes what is
// missing), except that no pod is created or deleted when the current
// revision could not be created or the DaemonSet failed its recheck before
// adopting, and an orphan whose adoption failed is not deleted. Pods are
// created and deleted only when podsAllowed (the expectations are
// satisfied); the events of the plan are recorded with them. A status
// change that only moves counters is written at most once per
// Config.StatusWriteInterval (see minorStatusChange); a held one is
// written by the sync that the key is requeued for at the end of the
// interval. The caller keeps the plan's failed-pod backoff.
func (c *Controller) execute(ctx context.Context, key string, ds *appsv1.DaemonSet, plan daemon.Plan, podsAllowed bool) outcome {
	var out outcome
	var errs syncer.ErrorList
	if plan.Skip != daemon.SkipNone {
		// A skipped DaemonSet (selector {}, being deleted) stays so until
		// its spec changes: its warning is recorded once per spec.
		if len(plan.Events) > 0 && c.state.markInvalid(key, specVersion{uid: ds.UID, generation: ds.Generation}) {
			for _, ev := range plan.Events {
				c.Recorder.Event(ds, ev.Type, ev.Reason, ev.Message)
			}
		}
		return out
	}

	adoptOK := true
	if len(plan.Adopt) > 0 || len(plan.History.Adopt) > 0 {
		if err := c.canAdopt(ctx, ds); err != nil {
			adoptOK = false
			errs.Add(err)
		}
	}

	historyOK := c.applyHistory(ctx, ds, plan, adoptOK, &out, &errs)

	// notOwned are the pods the plan meant to adopt but could not: the
	// plan's deletes of them are dropped, as the pods are not ours.
	notOwned := map[types.UID]bool{}
	for _, pod := range plan.Adopt {
		if !adoptOK {
			notOwned[pod.UID] = true
			continue
		}
		if err := c.patchOwner(ctx, "pod", pod.Namespace, pod.Name, pod.UID, ds, true); err != nil {
			notOwned[pod.UID] = true
			errs.Add(err)
			continue
		}
		out.adopted++
		c.Metrics.Actions.WithLabelValues("adopt", "Orphan").Inc()
	}
	for _, pod := range plan.Release {
		if err := c.patchOwner(ctx, "pod", pod.Namespace, pod.Name, pod.UID, ds, false); err != nil {
			errs.Add(err)
			continue
		}
		out.released++
		c.Metrics.Actions.WithLabelValues("release", "LabelsMismatch").Inc()
	}

	// No pod is created or deleted when the current revision could not be
	// created, or when the recheck before adopting failed (the cached
	// DaemonSet may be gone: its pods would be orphans at birth).
	if podsAllowed && historyOK && adoptOK {
		for _, ev := range plan.Events {
			c.Recorder.Event(ds, ev.Type, ev.Reason, ev.Message)
		}
		c.applyPods(ctx, key, ds, plan, notOwned, &out, &errs)
	}

	if plan.StatusChanged {
		minor := minorStatusChange(ds, plan.Status)
		if wait := c.statusWrites.Hold(key, minor, c.Config.Clock.Now()); wait > 0 {
			out.statusHeld = true
			c.Queue.AddAfter(key, wait)
		} else if err := c.writeStatus(ctx, ds, plan.Status); err != nil {
			errs.Add(err)
		} else {
			out.statusWritten = true
			c.Metrics.Actions.WithLabelValues("status", "StatusChanged").Inc()
		}
	}
	out.errs = errs.Errs()
	return out
}

// canAdopt re-reads ds from the API server, not the cache, before anything
// is adopted: a DaemonSet deleted and re-created under the same name, or
// being deleted, must not take pods or revisions.
func (c *Controller) canAdopt(ctx context.Context, ds *appsv1.DaemonSet) error {
	fresh, err := c.Client.AppsV1().DaemonSets(ds.Namespace).Get(ctx, ds.Name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("recheck before adopting: %w", err)
	}
	if fresh.UID != ds.UID {
		return fmt.Errorf("recheck before adopting: the DaemonSet was replaced (UID %s, cache has %s)", fresh.UID, ds.UID)
	}
	if fresh.DeletionTimestamp != nil {
		return fmt.Errorf("recheck before adopting: the DaemonSet is being deleted")
	}
	return nil
}

// applyHistory carries out plan.History: adoption and release of revisions,
// updates, relabelled pods, the create of the current revision, deletes.
// It returns false when the current revision could not be created.
func (c *Controller) applyHistory(ctx context.Context, ds *appsv1.DaemonSet, plan daemon.Plan, adoptOK bool, out *outcome, errs *syncer.ErrorList) bool {
	h := plan.History
	revs := c.Client.AppsV1().ControllerRevisions(ds.Namespace)
	if adoptOK {
		for _, rev := range h.Adopt {
			if err := c.patchOwner(ctx, "controllerrevision", rev.Namespace, rev.Name, rev.UID, ds, true); err != nil {
				errs.Add(err)
				continue
			}
			out.revisionWrites++
			c.Metrics.Actions.WithLabelValues("revision_adopt", "Orphan").Inc()
		}
	}
	for _, rev := range h.Release {
		if err := c.patchOwner(ctx, "controllerrevision", rev.Namespace, rev.Name, rev.UID, ds, false); err != nil {
			errs.Add(err)
			continue
		}
		out.revisionWrites++
		c.Metrics.Actions.WithLabelValues("revision_release", "LabelsMismatch").Inc()
	}
	for _, rev := range h.Update {
		if _, err := revs.Update(ctx, rev, metav1.UpdateOptions{}); err != nil {
			c.Metrics.ActionErrors.WithLabelValues("revision_update").Inc()
			errs.Add(fmt.Errorf("update controllerrevision %s/%s: %w", rev.Namespace, rev.Name, err))
			continue
		}
		out.revisionWrites++
		c.Metrics.Actions.WithLabelValues("revision_update", "History").Inc()
	}
	for _, pod := range h.Relabel {
		if err := c.patchHashLabel(ctx, cache.MetaObjectToName(ds).String(), pod, plan.Hash); err != nil {
			errs.Add(err)
			continue
		}
		c.Metrics.Actions.WithLabelValues("relabel", "DuplicateRevision").Inc()
	}
	ok := true
	if h.Create != nil {
		_, err := revs.Create(ctx, h.Create, metav1.CreateOptions{})
		switch {
		case err == nil:
			out.revisionWrites++
			c.Metrics.Actions.WithLabelValues("revision_create", "CurrentRevision").Inc()
		case apierrors.IsAlreadyExists(err):
			// The revision exists (an unowned copy of the same data, or a
			// create the cache has not seen yet): the next sync takes it
			// over, or finds a collision and bumps the count.
		default:
			ok = false
			c.Metrics.ActionErrors.WithLabelValues("revision_create").Inc()
			errs.Add(fmt.Errorf("create controllerrevision %s/%s: %w", h.Create.Namespace, h.Create.Name, err))
		}
	}
	for _, rev := range h.Delete {
		err := revs.Delete(ctx, rev.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &rev.UID}})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			c.Metrics.ActionErrors.WithLabelValues("revision_delete").Inc()
			errs.Add(fmt.Errorf("delete controllerrevision %s/%s: %w", rev.Namespace, rev.Name, err))
			continue
		}
		out.revisionWrites++
		c.Metrics.Actions.WithLabelValues("revision_delete", "History").Inc()
	}
	return ok
}

// applyPods creates the plan's pods in slow-start batches, then deletes its
// pods but those in notOwned (orphans whose adoption failed), after raising
// the expectations of key by what it is about to do.
func (c *Controller) applyPods(ctx context.Context, key string, ds *appsv1.DaemonSet, plan daemon.Plan, notOwned map[types.UID]bool, out *outcome, errs *syncer.ErrorList) {
	deletes := make([]daemon.Delete, 0, len(plan.Deletes))
	for _, d := range plan.Deletes {
		if !notOwned[d.Pod.UID] {
			deletes = append(deletes, d)
		}
	}
	if len(plan.Creates) == 0 && len(deletes) == 0 {
		return
	}
	uids := make([]types.UID, len(deletes))
	for i, d := range deletes {
		uids[i] = d.Pod.UID
	}
	c.Expectations.Expect(key, len(plan.Creates), uids)

	pods := c.Client.CoreV1().Pods(ds.Namespace)
	var mu sync.Mutex
	calls, _ := syncer.SlowStartBatch(len(plan.Creates), c.Config.BurstReplicas, func(i int) error {
		cr := plan.Creates[i]
		created, err := pods.Create(ctx, cr.Pod, metav1.CreateOptions{})
		switch {
		case err == nil:
			c.Fence.Wrote(key, syncer.FencePods, created.ResourceVersion)
			mu.Lock()
			out.created++
			mu.Unlock()
			c.Metrics.Actions.WithLabelValues("create", string(cr.Reason)).Inc()
			c.Recorder.Eventf(ds, corev1.EventTypeNormal, "SuccessfulCreate", "Created pod: %s", created.Name)
			return nil
		case apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause):
			// Nothing can be created in a namespace being deleted, and it
			// is not worth retrying.
			c.Expectations.CreationObserved(key)
			return nil
		case apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err):
			// The pod may exist: let the informer or the expectations'
			// timeout settle it.
			c.Fence.MarkUnsure(key)
		default:
			c.Expectations.CreationObserved(key)
			if syncer.MayHaveApplied(err) {
				// The pod may exist all the same: the next sync waits
				// until the cache would show it.
				c.Fence.MarkUnsure(key)
			}
		}
		c.Metrics.ActionErrors.WithLabelValues("create").Inc()
		c.Recorder.Eventf(ds, corev1.EventTypeWarning, "FailedCreate", "Error creating pod on node %s: %v", cr.NodeName, err)
		err = fmt.Errorf("create pod on node %s: %w", cr.NodeName, err)
		errs.Add(err)
		return err
	})
	// The creates skipped after a failed batch will not be observed.
	for range len(plan.Creates) - calls {
		c.Expectations.CreationObserved(key)
	}

	out.deleted += c.DeletePods(ctx, key, ds, deletes, errs, func(d daemon.Delete) {
		c.Recorder.Eventf(ds, corev1.EventTypeNormal, "SuccessfulDelete", "Deleted pod: %s", d.Pod.Name)
	})
}

// writeStatus writes status to ds's status subresource. When the write
// meets a conflict (the cached DaemonSet is older than the stored one, often
// after this controller's own previous status write), it reads the stored
// DaemonSet and, if it is still the same object, writes the same status
// onto it once more, as kube-controller-manager does. Any other failure, a
// second one, or a conflict with a new object of the same name is returned,
// and the next sync computes afresh.
func (c *Controller) writeStatus(ctx context.Context, ds *appsv1.DaemonSet, status appsv1.DaemonSetStatus) error {
	toUpdate := ds.DeepCopy()
	toUpdate.Status = status
	written, err := c.Client.AppsV1().DaemonSets(ds.Namespace).UpdateStatus(ctx, toUpdate, metav1.UpdateOptions{})
	if apierrors.IsConflict(err) {
		c.Metrics.ActionErrors.WithLabelValues("status").Inc()
		fresh, getErr := c.Client.AppsV1().DaemonSets(ds.Namespace).Get(ctx, ds.Name, metav1.GetOptions{})
		switch {
		case getErr != nil:
			err = fmt.Errorf("%w; reading it again: %w", err, getErr)
		case fresh.UID != ds.UID:
			// Deleted and created again under the same name: the plan
			// was made for the old object, so the conflict stands.
		default:
			fresh.Status = status
			written, err = c.Client.AppsV1().DaemonSets(ds.Namespace).UpdateStatus(ctx, fresh, metav1.UpdateOptions{})
		}
	}
	if err != nil {
		c.Metrics.ActionErrors.WithLabelValues("status").Inc()
		return fmt.Errorf("update status: %w", err)
	}
	c.Fence.Wrote(cache.MetaObjectToName(ds).String(), syncer.FenceDaemonSets, written.ResourceVersion)
	return nil
}
