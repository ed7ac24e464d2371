package companion

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// rolloutSync is what one sync of an opted-in DaemonSet read and judged:
// the input of what it deletes and of the conditions it writes.
type rolloutSync struct {
	key string
	ds  *appsv1.DaemonSet
	// ro is the rollout the annotations ask for (progressive.ForDaemonSet):
	// the DaemonSet as planned, the policy, the annotations.
	ro  progressive.Rollout
	now time.Time
	// satisfied: the expectations are, pods may be deleted.
	satisfied bool
	nodes     []*corev1.Node
	pods      []*corev1.Pod
	opts      daemon.Options
	plan      daemon.Plan
	// revs are the namespace's ControllerRevisions in the cache; rev is
	// the current revision among them, nil while the cache has none.
	revs []*appsv1.ControllerRevision
	rev  *appsv1.ControllerRevision
	// judgement is where the rollout stands (progressive.Judge of plan).
	judgement progressive.Judgement
	// assessed is progressive.Assess's answer for plan (its Hold is
	// zero when the gates are not asked: rolloutSync.gated); gateErr is
	// the error of its gates, which applyGates returns.
	assessed progressive.Assessment
	gateErr  error
	// hold is what holds the rollout beyond its plan
	// (progressive.Gates.Hold); zero while it is paused, latched or
	// complete.
	hold progressive.Hold
	// latched: the rollout stopped itself (at its progress deadline or on
	// a failed health gate) and stays stopped, l the outcome that says so
	// (in the outcome annotation); fresh: it stopped in this sync; legacy:
	// l was read from the message an earlier companion kept it in.
	latched, fresh, legacy bool
	l                      progressive.Outcome
	// staleOutcome: the outcome annotation records an outcome that no
	// longer holds (a new template, a resume): this sync removes it.
	staleOutcome bool
	// rolledBack is the rollback that brought the template to the current
	// revision and still holds (no new template, no resume since): the
	// restored revision is rolled out, and the change it undid failed.
	rolledBack *progressive.Outcome
	// failing is, for a rollout that completed before at this
	// generation, the health gate its pods fail now: reported, not a stop
	// (the gates judge a rollout under way).
	failing progressive.Hold
	// rollback says what on-failure rollback did or why it did not, for
	// the RolloutPaused message; "" when it was not asked for or it
	// wrote the template back.
	rollback string
	// rollingBack: on-failure rollback wrote the previous revision's
	// template back in this sync (r.rolledBack is the outcome it
	// recorded); the plan, of the template before, is not acted on.
	rollingBack bool
	// rollbackConflict: on-failure rollback's write met a conflict; this
	// sync writes nothing else and is retried.
	rollbackConflict bool
}

// paused reports whether the paused annotation pauses r.
func (r *rolloutSync) paused() bool { return r.ro.Policy.Paused }

// mayDelete reports whether r may delete old pods: the expectations are
// satisfied, the current revision is known, and nothing pauses or holds
// the rollout.
func (r *rolloutSync) mayDelete() bool {
	return r.satisfied && r.rev != nil && !r.paused() && !r.latched && !r.rollingBack && !r.hold.Held()
}

// sync is the companion's sync: it rolls out one opted-in OnDelete
// DaemonSet by deleting old pods, as the rolling step of a plan computed
// as if the DaemonSet were RollingUpdate allows, and reports where the
// rollout is in the DaemonSet's conditions.
//
// The races with kube-controller-manager, and why they are safe:
//   - A pod the companion deleted and kube-controller-manager has not
//     recreated yet leaves its node without an available pod: the plan
//     counts that node unavailable (or, once the pod is gone, wants a pod
//     created there, and then runs no rolling step at all), so it never
//     spends that budget twice. The companion acts again only once its pod
//     cache has seen each of its deletes (expectations by UID), so it
//     never plans from a cache that misses them.
//   - The companion deletes only when the current revision exists in its
//     cache: kube-controller-manager writes it before it creates a pod, so
//     the hash the plan judges pods by is the one kube-controller-manager
//     labels new pods with (the hash covers the template only and is
//     upstream's).
//   - Its status writes are patches of its own conditions only, and its
//     next sync waits until its DaemonSet cache has them; kube-controller-
//     manager's whole-status updates carry the conditions it read, and a
//     stale one meets a conflict and is redone on a fresh read.
func (c *Companion) sync(ctx context.Context, key string) (err error) {
	start := c.Config.Clock.Now()
	var found syncer.SyncFacts
	defer func() { c.Metrics.ObserveSync(found.Result(err), c.Config.Clock.Since(start)) }()

	ds, err := c.CachedDaemonSet(ctx, key)
	if ds == nil {
		found.Gone = true
		return err
	}
	if ds.DeletionTimestamp != nil {
		return nil
	}
	r, err := c.admit(ctx, key, ds, start, &found)
	if r == nil {
		return err
	}
	if done, err := c.planRollout(ctx, r, &found); done {
		return err
	}
	if err := c.judge(r); err != nil {
		return fmt.Errorf("daemonset %q: %w", key, err)
	}
	if err := c.applyGates(r); err != nil {
		var fe *field.Error
		if !errors.As(err, &fe) {
			return fmt.Errorf("daemonset %q: %w", key, err)
		}
		// A window's time zone the zone database does not know: the
		// annotations cannot be planned.
		return c.refuse(ctx, r.key, r.ds, r.now, err, &found)
	}

	var errs syncer.ErrorList
	c.onFailure(ctx, r, &errs)
	deleted, written := 0, false
	if !r.rollbackConflict {
		recorded := c.writeOutcome(ctx, r, &errs)
		if recorded && r.mayDelete() {
			deleted = c.deleteOldPods(ctx, r, &errs)
		}
		written = c.report(ctx, r, recorded, &errs)
	}
	// A rollback refused by a conflict (kube-controller-manager wrote the
	// status meanwhile) is retried on the fresh object by the error's
	// requeue, before anything else is written: a recorded pause or its
	// conditions would only say, for a moment, what the rollback undoes.

	if !r.satisfied {
		c.Queue.AddAfter(key, c.Config.ExpectationsTimeout)
	}
	if r.plan.RequeueAfter > 0 {
		c.Queue.AddAfter(key, r.plan.RequeueAfter)
	}
	c.logSync(r, deleted, written, len(errs.Errs()))
	if all := errs.Errs(); len(all) > 0 {
		return fmt.Errorf("daemonset %q: %w", key, errors.Join(all...))
	}
	return nil
}

// reasonAnnotationMisspelt is the Warning event reason of annotations
// whose prefix misspells the rollout annotations' (progressive.AnnotationWarnings).
const reasonAnnotationMisspelt = "RolloutAnnotationMisspelt"

// admit reads ds's rollout annotations (progressive.ForDaemonSet) and
// returns the rollout to plan, or nil when there is none: ds is not opted
// in (its conditions are dropped), is not OnDelete (its annotations are
// inert: a warning and a condition saying so, reportInert), or its annotations cannot be planned (a warning,
// and a condition saying no pod is replaced: a typo must not mean "no
// policy").
func (c *Companion) admit(ctx context.Context, key string, ds *appsv1.DaemonSet, now time.Time, found *syncer.SyncFacts) (*rolloutSync, error) {
	ro, err := progressive.ForDaemonSet(ds)
	if len(ro.Warnings) > 0 {
		// Near-miss prefixes: ignored, as kube-controller-manager ignores
		// them, but said, whether or not ds has opted in.
		c.Warn(key, ds, reasonAnnotationMisspelt, strings.Join(ro.Warnings, "; "))
	}
	if ro.Annotations == nil && err == nil {
		// Not opted in: kube-controller-manager's alone.
		c.metrics.forget(key)
		return nil, c.dropConditions(ctx, key, ds)
	}
	if inert := progressive.Inert(ds); inert != "" {
		// Not OnDelete: kube-controller-manager rolls it out by itself,
		// and the annotations are said to be inert where people look.
		c.metrics.forget(key)
		c.Warn(key, ds, ReasonAnnotationsIgnored, inert)
		return nil, c.reportInert(ctx, key, ds, now, inert)
	}
	if err != nil {
		return nil, c.refuse(ctx, key, ds, now, err, found)
	}
	return &rolloutSync{key: key, ds: ds, ro: ro, now: now}, nil
}

// reportInert reports that ds's rollout annotations will not be carried
// out (inert, progressive.Inert's words): RolloutProgressing False with
// reason ReasonAnnotationsIgnored, and none of the companion's other
// conditions, so that kstatus and the Argo CD check read the DaemonSet's
// own status, which kube-controller-manager's rollout moves.
func (c *Companion) reportInert(ctx context.Context, key string, ds *appsv1.DaemonSet, now time.Time, inert string) error {
	want := []appsv1.DaemonSetCondition{
		condition(ConditionProgressing, false, ReasonAnnotationsIgnored, progressive.WithGeneration(inert, ds.Generation)),
	}
	changes := conditionChanges(ds.Status.Conditions, want, now)
	var remove []appsv1.DaemonSetConditionType
	for _, t := range ownConditions {
		if t != ConditionProgressing && findCondition(ds.Status.Conditions, t) != nil {
			remove = append(remove, t)
		}
	}
	if len(changes) == 0 && len(remove) == 0 {
		return nil
	}
	if err := c.writeConditions(ctx, key, ds, changes, remove); err != nil {
		return fmt.Errorf("daemonset %q: %w", key, err)
	}
	return nil
}

// refuse reports that ds's rollout annotations cannot be planned (err): a
// warning, and conditions saying no pod is replaced (Stalled True: a typo
// must not mean "no policy", nor a rollout that kstatus waits for).
func (c *Companion) refuse(ctx context.Context, key string, ds *appsv1.DaemonSet, now time.Time, err error, found *syncer.SyncFacts) error {
	found.Invalid = true
	reason := syncer.AnnotationsReason(err)
	c.Warn(key, ds, reason, err.Error())
	return c.patchConditions(ctx, key, ds, now, withKstatus([]appsv1.DaemonSetCondition{
		condition(ConditionProgressing, false, reason, progressive.WithGeneration(fmt.Sprintf("no pod is replaced: %v", err), ds.Generation)),
	}))
}

// planRollout reads the caches and computes r's plan. It returns done
// (with the sync's error) when there is nothing more to do: an invalid
// spec (a warning), a template skew (a warning and conditions, holdSkew),
// a plan skipped or without a revision.
func (c *Companion) planRollout(ctx context.Context, r *rolloutSync, found *syncer.SyncFacts) (done bool, err error) {
	// The expectations are read before the pods: once satisfied, every
	// delete they waited for is in the pod cache (the informer updates
	// its store before its handlers observe the delete), so the pods
	// listed next show it. Read after, they could be satisfied by an
	// event that came in between, and the plan would spend the budget of
	// a pod it has just deleted a second time.
	r.satisfied = c.Expectations.Satisfied(r.key)
	found.Waiting = !r.satisfied
	nodes, pods, revs, err := c.Cached(r.ds.Namespace)
	if err != nil {
		return true, fmt.Errorf("daemonset %q: %w", r.key, err)
	}
	r.nodes, r.pods, r.revs = nodes, pods, revs
	// The plan carries its standing, which judge reads: one plan per sync.
	r.opts = r.ro.Options(daemon.Options{
		Now:                                      r.now,
		Revisions:                                revs,
		BurstReplicas:                            c.Config.BurstReplicas,
		EnableTaintTolerationComparisonOperators: c.Config.EnableTaintTolerationComparisonOperators,
	})
	plan, computeErr := c.Plan(r.key, r.ro.DaemonSet, nodes, pods, r.opts)
	if computeErr != nil {
		if syncer.IsTemplateSkew(computeErr) {
			// The cluster is newer than this build: no pod can be judged.
			found.Invalid = true
			return true, c.holdSkew(ctx, r, computeErr)
		}
		if syncer.IsInvalidSpec(computeErr) {
			found.Invalid = true
			c.Warn(r.key, r.ds, "InvalidSpec", syncer.MessageOf(computeErr))
			return true, nil
		}
		return true, fmt.Errorf("daemonset %q: %w", r.key, syncer.Keyless{Err: computeErr})
	}
	if plan.Skip != daemon.SkipNone || plan.Hash == "" {
		return true, nil
	}
	r.plan = plan
	r.rev = currentRevision(revs, r.ds, plan.Hash)
	return false, nil
}

// logSync logs what a sync of r did: at level 0 when it deleted, wrote or
// failed, at level 2 otherwise.
func (c *Companion) logSync(r *rolloutSync, deleted int, written bool, errs int) {
	pendingCreates, pendingDeletes := c.Expectations.Pending(r.key)
	level := 2
	if deleted > 0 || written || errs > 0 {
		level = 0
	}
	c.Logger.V(level).Info("Synced",
		"daemonset", r.key, "mode", "companion", "hash", r.plan.Hash, "satisfied", r.satisfied,
		"deletes", deleted, "deferredDeletes", r.plan.DeferredDeletes,
		"updated", r.judgement.Total.Updated, "desired", r.judgement.Total.Desired, "complete", r.judgement.Complete,
		"paused", r.paused(), "latched", r.latched, "latchReason", string(r.l.Reason), "rolledBack", r.rolledBack != nil, "held", string(r.hold.Cause),
		"conditionsWritten", written, "requeueAfter", r.plan.RequeueAfter,
		"pendingCreates", pendingCreates, "pendingDeletes", pendingDeletes,
		"errors", errs, "duration", c.Config.Clock.Since(r.now))
}

// currentRevision returns ds's ControllerRevision with hash, or nil.
func currentRevision(revs []*appsv1.ControllerRevision, ds *appsv1.DaemonSet, hash string) *appsv1.ControllerRevision {
	for _, r := range revs {
		if ref := metav1.GetControllerOf(r); ref != nil && ref.UID == ds.UID && r.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == hash {
			return r
		}
	}
	return nil
}
