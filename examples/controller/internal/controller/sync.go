package controller

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// sync computes the plan of the DaemonSet key from the informers' caches and
// carries it out. A nil error forgets the key's rate limit; an error requeues
// it with backoff.
//
// Pod creates and deletes run only when the key's expectations are
// satisfied; otherwise the sync still applies what does not depend on an up
// to date view of the pods (revision history, adoption and release, status),
// as upstream does.
//
// A DaemonSet with rollout annotations is planned as they ask
// (annotatedRollout), and its plan is held by their gates (holds): while
// held, the plan of the paused rollout is carried out instead.
//
// A DaemonSet that Compute rejects as invalid gets one Warning event per
// spec (UID and generation) and is not requeued: the next change of the
// DaemonSet, or of its pods, brings it back.
//
// A DaemonSet whose plan stops at a template skew (the cluster is newer
// than this build: daemon.Plan.TemplateSkew) is held: nothing of it is
// written (no pod created or deleted, no revision created, deleted,
// relabelled or adopted, no status), so this build never fights the
// revision history a newer controller wrote nor creates pods from a
// template it knows only in part. It gets a Warning event
// (syncer.ReasonTemplateSkew, once per spec and message), counts as
// invalid in the sync metrics, and is not requeued: a change of the
// DaemonSet, its pods or its revisions, or an upgraded controller's
// start, plans it again.
func (c *Controller) sync(ctx context.Context, key string) (err error) {
	start := c.Config.Clock.Now()
	var found syncer.SyncFacts
	defer func() { c.Metrics.ObserveSync(found.Result(err), c.Config.Clock.Since(start)) }()

	ds, err := c.CachedDaemonSet(ctx, key)
	if ds == nil {
		found.Gone = true
		return err
	}
	ns := ds.Namespace
	// The expectations are read before the pods: once satisfied, every
	// delete they waited for is in the pod cache (the informer updates its
	// store before its handlers observe the delete), so the pods listed
	// next show it. Read after, an event coming in between satisfies them
	// while the list still shows the pod, and the plan deletes it again.
	satisfied := c.Expectations.Satisfied(key)
	found.Waiting = !satisfied
	nodes, pods, revs, err := c.Cached(ns)
	if err != nil {
		return fmt.Errorf("daemonset %q: %w", key, err)
	}

	r := c.annotatedRollout(key, ds)
	opts, gated := gatedOptions(r, daemon.Options{
		Now:                                      start,
		Revisions:                                revs,
		FailedPodBackoff:                         c.state.getBackoff(key),
		BurstReplicas:                            c.Config.BurstReplicas,
		EnableTaintTolerationComparisonOperators: c.Config.EnableTaintTolerationComparisonOperators,
	})
	plan, computeErr := c.Plan(key, r.DaemonSet, nodes, pods, opts)
	var held bool
	var gateErr error
	switch {
	case !gated:
		c.state.noteHold(key, progressive.Hold{})
	case computeErr == nil:
		held, gateErr = c.holds(key, ds, r, &plan, start)
		if held {
			// Held beyond the plan: the plan of the paused rollout runs
			// instead, which still creates missing pods and replaces
			// failed ones, but replaces no old pod.
			opts.Rollout.Paused, opts.ReportStanding = true, false
			plan, computeErr = c.Plan(key, r.DaemonSet, nodes, pods, opts)
		}
	}
	invalid := computeErr != nil && syncer.IsInvalidSpec(computeErr)
	// skewed: the cluster is newer than this build (daemon.Plan.TemplateSkew).
	skewed := computeErr != nil && syncer.IsTemplateSkew(computeErr)
	found.Invalid = invalid || skewed
	if skewed {
		c.Warn(key, ds, syncer.ReasonTemplateSkew, syncer.TemplateSkewMessage(computeErr)+
			"; the DaemonSet is held: no pod, revision or status is written until it plans again")
	}
	if invalid {
		if c.state.markInvalid(key, specVersion{uid: ds.UID, generation: ds.Generation}) {
			c.Recorder.Event(ds, corev1.EventTypeWarning, "InvalidSpec", syncer.MessageOf(computeErr))
			c.Logger.Info("DaemonSet rejected, not retried until it changes", "daemonset", key, "generation", ds.Generation, "reason", syncer.MessageOf(computeErr))
		}
	} else if computeErr == nil && plan.Skip == daemon.SkipNone {
		c.state.clearInvalid(key)
	}

	var out outcome
	if !skewed {
		// A skewed plan asks for nothing; it is not carried out at all.
		out = c.execute(ctx, key, ds, plan, satisfied)
	}
	if satisfied && computeErr == nil && plan.Skip == daemon.SkipNone {
		// A plan that failed or skipped carries no backoff decisions;
		// some failed plans carry none at all, and must not wipe it.
		c.state.setBackoff(key, plan.FailedPodBackoff)
	}
	if !satisfied {
		// A lost watch event must not stall the DaemonSet: look again when
		// the expectations expire.
		c.Queue.AddAfter(key, c.Config.ExpectationsTimeout)
	}
	if plan.RequeueAfter > 0 {
		c.Queue.AddAfter(key, plan.RequeueAfter)
	}
	pendingCreates, pendingDeletes := c.Expectations.Pending(key)
	level := 2
	if !plan.IsZero() || computeErr != nil || gateErr != nil || len(out.errs) > 0 {
		level = 0
	}
	c.Logger.V(level).Info("Synced",
		"daemonset", key,
		"hash", plan.Hash,
		"satisfied", satisfied, "held", held,
		"creates", out.created, "deletes", out.deleted,
		"deferredCreates", plan.DeferredCreates, "deferredDeletes", plan.DeferredDeletes,
		"adopted", out.adopted, "released", out.released,
		"revisionWrites", out.revisionWrites,
		"statusWritten", out.statusWritten, "statusHeld", out.statusHeld,
		"events", len(plan.Events),
		"requeueAfter", plan.RequeueAfter,
		"pendingCreates", pendingCreates, "pendingDeletes", pendingDeletes,
		"errors", len(out.errs),
		"duration", c.Config.Clock.Since(start),
	)

	switch {
	case invalid || skewed:
		if len(out.errs) > 0 {
			return fmt.Errorf("daemonset %q: %w", key, errors.Join(out.errs...))
		}
		return nil
	case computeErr != nil || gateErr != nil || len(out.errs) > 0:
		all := out.errs
		if gateErr != nil {
			all = append([]error{syncer.Keyless{Err: gateErr}}, all...)
		}
		if computeErr != nil {
			all = append([]error{syncer.Keyless{Err: computeErr}}, all...)
		}
		return fmt.Errorf("daemonset %q: %w", key, errors.Join(all...))
	}
	return nil
}
