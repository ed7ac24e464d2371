package daemon

import (
	"cmp"
	"errors"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon/backoff"
	"github.com/daemonplan/daemonplan/daemon/eligibility"
	"github.com/daemonplan/daemonplan/daemon/internal/podbuild"
	"github.com/daemonplan/daemonplan/daemon/internal/readahead"
	"github.com/daemonplan/daemonplan/rollout"
	"github.com/daemonplan/daemonplan/selector"
)

// Compute returns the plan of one sync of ds over nodes and pods: what
// kube-controller-manager v1.37's DaemonSet controller would do in one
// syncDaemonSet on exactly this state, with its expectations satisfied.
//
// nodes are all nodes of the cluster; pods are the pods of ds's namespace
// (pods of other namespaces are ignored); opts carries the revisions, the
// clock and the backoff state. In order, Compute:
//  1. stops with Skip set when the selector is {} or ds is being deleted
//     (SkipOf);
//  2. claims revisions, then builds the revision history (see
//     rollout.ConstructHistory), which fixes Hash;
//  3. claims pods (adopt and release, see selector.ClaimPods) and groups
//     them by target node;
//  4. runs the create/delete pass over the nodes in name order: create on
//     eligible nodes without a pod, delete failed pods (one per node, with
//     the failed-pod backoff), succeeded pods, excess pods, pods on nodes
//     that may not keep them, and never-scheduled pods targeting missing
//     nodes;
//  5. only when that pass asks for nothing, the strategy is RollingUpdate
//     and Options.Rollout is not Paused, runs one rolling-update step (see
//     rollout.RollingUpdate, and RolloutPolicy for what the policy changes);
//  6. deletes old revisions beyond revisionHistoryLimit (10 when nil, where
//     upstream panics);
//  7. computes the status from the state before the plan's actions.
//
// Creates and deletes are each capped at Options.BurstReplicas, keeping the
// first ones in node name order (upstream keeps a prefix in informer order;
// deletes of pods on missing nodes come last, as upstream).
//
// Errors. Every error is an *Error: the DaemonSet (named once), the Stage
// and the cause, which names the field or the fact. Input that cannot
// describe a cluster (nil DaemonSet, nil entries, empty names, missing
// namespace or UID, two nodes with one name, two pods the DaemonSet owns
// or adopts with one name, two revisions with one namespace and name) and
// an invalid selector are StageInput, with a zero Plan; an invalid
// Options.Rollout (see RolloutPolicy.Validate) is StagePolicy, with a zero
// Plan. Pods the plan releases or ignores play no part and are not checked
// for duplicates. Errors upstream's sync itself returns are returned with
// the part of the plan upstream would still have carried out: a revision
// name collision (StageHistory, a *rollout.CollisionError; the plan
// carries History.CollisionCount and the status write of the bumped count,
// which the caller must apply or the next sync collides again); an invalid
// maxSurge or maxUnavailable (a *field.Error), or a surge step over a pod
// on a missing node (a *rollout.MissingNodeError), both StageRollingUpdate
// (the plan carries adoptions, the history changes made before the step
// and the status). Every input, selector, policy and budget error matches
// ErrInvalidInput (errors.Is); a collision and a missing node do not.
//
// Template skew: when the revision history holds fields of the pod
// template this build's types do not know (a cluster newer than the
// build; see rollout.TemplateSkewError), Compute stops at StageHistory
// with a *rollout.TemplateSkewError (errors.Is rollout.ErrTemplateSkew) and
// a plan that asks for nothing: Plan.TemplateSkew is the same cause, Status
// the stored status. It never plans a revision, or judges a pod, by a
// template it knows only in part.
//
// Compute modifies none of its arguments. Plans share the caller's pods and
// revisions where documented (Deletes, Adopt, Release, ...); new objects
// (created pods and revisions, updated revisions) belong to the plan.
func Compute(ds *appsv1.DaemonSet, nodes []*corev1.Node, pods []*corev1.Pod, opts Options) (Plan, error) {
	return compute(ds, nodes, pods, opts, &cluster{})
}

// compute is Compute, building the cluster view in c: a new cluster, or a
// Planner's (c.kept), whose memory the plan then shares nothing with.
func compute(ds *appsv1.DaemonSet, nodes []*corev1.Node, pods []*corev1.Pod, opts Options, c *cluster) (Plan, error) {
	// A memo that resolved the nodes and pods has checked each for nil and
	// a name already.
	if err := validateInput(ds, nodes, pods, opts.Revisions, c.memo == nil); err != nil {
		return Plan{}, err
	}
	if !opts.Rollout.IsZero() {
		if err := opts.Rollout.Validate(); err != nil {
			return Plan{}, NewError(ds, StagePolicy, err)
		}
	}
	plan := Plan{FailedPodBackoff: opts.FailedPodBackoff}

	if plan.Skip = SkipOf(ds); plan.Skip != SkipNone {
		plan.Status = *ds.Status.DeepCopy()
		if plan.Skip == SkipSelectsAll {
			plan.Events = []Event{{
				Type:    corev1.EventTypeWarning,
				Reason:  "SelectingAll",
				Message: "the selector {} selects every pod of the namespace; a non-empty selector is required",
			}}
		}
		return plan, nil
	}
	sel, err := selector.ForDaemonSet(ds)
	if err != nil {
		return Plan{}, NewError(ds, StageInput, err) // a *selector.Error names the fields
	}
	owner := selector.OwnerOf(ds)

	// Revisions of other namespaces are ignored by the claim and by the
	// history's name lookup alike.
	revisions := opts.Revisions
	revClaims := selector.ClaimRevisions(owner, sel, revisions)

	// The history comes first: the hash it fixes judges the pods. It needs
	// the claimed pods only to relabel them when it merges duplicate
	// current revisions, which is rare: they are named below, once the
	// claim has found them.
	hist, err := rollout.ConstructHistory(ds, revClaims.Claimed, revisions, nil)
	var skew *rollout.TemplateSkewError
	if errors.As(err, &skew) {
		// The template cannot be matched to its revision: no revision,
		// pod or status write, not even an adoption of a revision.
		plan.TemplateSkew = skew
		plan.Status = *ds.Status.DeepCopy()
		return plan, NewError(ds, StageHistory, err)
	}
	plan.History = hist.Plan
	plan.History.Adopt, plan.History.Release = revClaims.Adopt, revClaims.Release
	if err != nil {
		var collision *rollout.CollisionError
		if errors.As(err, &collision) {
			plan.Status = *ds.Status.DeepCopy()
			plan.Status.CollisionCount = plan.History.CollisionCount
			plan.StatusChanged = true
		}
		return plan, NewError(ds, StageHistory, err)
	}
	plan.Hash = hist.Hash

	generation, genErr := rollout.GetTemplateGeneration(ds)
	if genErr != nil {
		generation = nil // upstream ignores an unparsable annotation
	}
	elig := eligibility.New(ds, opts.EnableTaintTolerationComparisonOperators)
	judge := podJudge{hash: hist.Hash, generation: generation, minReady: ds.Spec.MinReadySeconds, now: opts.Now}
	cl := claimer{owner: owner, sel: sel}
	if c.memo == nil || !c.memo.build(c, ds, pods, cl, elig, judge, opts.EnableTaintTolerationComparisonOperators) {
		c.memo = nil // what the memo cannot decide, the full build names
		if err := c.build(nodes, pods, cl, elig, judge, readahead.LabelKey(&ds.Spec.Template.Spec)); err != nil {
			return Plan{}, NewError(ds, StageInput, err)
		}
	}
	if len(hist.Plan.Delete) > 0 {
		// The history merged duplicate current revisions (its only
		// deletes): the claimed pods of other hashes get the kept one's.
		plan.History.Relabel = rollout.PodsToRelabel(c.claimed, hist.Hash)
	}
	plan.Adopt, plan.Release = c.detach(c.adopt), c.detach(c.release)
	plan.Unplaced = c.detach(c.unplaced)

	failedBackoff := opts.FailedPodBackoff.Start(opts.Now)
	m := &manager{
		hash:       hist.Hash,
		surge:      rollout.AllowsSurge(ds),
		backoff:    failedBackoff,
		backoffKey: backoff.Key{UID: ds.UID, ObservedGeneration: ds.Status.ObservedGeneration},
		creates:    reuse(&c.mem.creates, 0),
		deletes:    reuse(&c.mem.deletes, 0),
		burst:      opts.burst(),
	}
	defer func() { c.mem.creates, c.mem.deletes = m.creates, m.deletes }()
	m.run(c)
	plan.Events = m.events
	plan.FailedPodBackoff = failedBackoff.State()

	var stepErr error
	if len(m.creates) == 0 && len(m.deletes) == 0 && !opts.Rollout.Paused &&
		ds.Spec.UpdateStrategy.Type == appsv1.RollingUpdateDaemonSetStrategyType {
		var step rollout.Step
		step, stepErr = c.rollingStep(ds, hist.Hash, &opts)
		if stepErr == nil {
			plan.Rolling = &step
			// The step decides in the plan's own shape: its decisions join
			// the create/delete pass's, so that the burst cap and pod
			// building apply to both alike.
			m.creates = append(m.creates, step.Creates...)
			m.deletes = append(m.deletes, step.Deletes...)
		}
	}
	if opts.ReportStanding {
		plan.Standing = c.standingOf(ds, hist.Hash, &opts, len(m.creates)+len(m.deletes) == 0, plan.Rolling)
	}
	if stepErr == nil && len(hist.Old) > rollout.HistoryLimit(ds) {
		old := rollout.CleanupHistory(ds, hist.Old, c.livePods())
		plan.History.Delete = mergeRevisions(plan.History.Delete, callersRevisions(old, revClaims.Claimed))
	}

	plan.Status = statusOf(ds, c)
	plan.StatusChanged = statusChanged(ds.Status, plan.Status, ds.Generation)

	burst := opts.burst()
	factory := podbuild.New(ds, generation, hist.Hash)
	creates := m.creates[:min(len(m.creates), burst)]
	deletes := m.deletes[:min(len(m.deletes), burst)]
	plan.DeferredCreates = len(m.creates) - len(creates) + m.deferredCreates
	plan.DeferredDeletes = len(m.deletes) - len(deletes) + m.deferredDeletes
	if len(creates) > 0 {
		plan.Creates = ownDecisions(creates, c.kept)
		for i := range plan.Creates {
			plan.Creates[i].Pod = factory.Pod(plan.Creates[i].NodeName)
		}
		slices.SortStableFunc(plan.Creates, func(a, b Create) int { return cmp.Compare(a.NodeName, b.NodeName) })
	}
	if len(deletes) > 0 {
		plan.Deletes = ownDecisions(deletes, c.kept)
		slices.SortFunc(plan.Deletes, func(a, b Delete) int {
			return cmp.Or(cmp.Compare(a.NodeName, b.NodeName), cmp.Compare(a.Pod.Name, b.Pod.Name))
		})
	}

	var wait durationMin
	wait.add(time.Duration(m.backoffWait))
	wait.add(availabilityWait(c, ds.Spec.MinReadySeconds, opts.Now))
	if w := opts.Rollout.Waves; w != nil {
		wait.add(bakeWait(plan.Rolling, w.Bake, opts.Now))
	}
	plan.RequeueAfter = time.Duration(wait)

	if stepErr != nil {
		return plan, NewError(ds, StageRollingUpdate, stepErr)
	}
	return plan, nil
}

// callersRevisions replaces, in revs, the copies the history made (an old
// revision given its missing hash label) by the caller's revision of the
// same name, from claimed (sorted by name), so that a plan's Delete holds
// the caller's pointers as documented. It reuses revs.
func callersRevisions(revs, claimed []*appsv1.ControllerRevision) []*appsv1.ControllerRevision {
	for i, r := range revs {
		j, found := slices.BinarySearchFunc(claimed, r.Name, func(c *appsv1.ControllerRevision, name string) int {
			return cmp.Compare(c.Name, name)
		})
		if found {
			revs[i] = claimed[j]
		}
	}
	return revs
}

// mergeRevisions returns a and b in one slice sorted by name, then UID.
func mergeRevisions(a, b []*appsv1.ControllerRevision) []*appsv1.ControllerRevision {
	if len(b) == 0 {
		return a
	}
	out := append(slices.Clip(a), b...)
	slices.SortFunc(out, func(x, y *appsv1.ControllerRevision) int {
		return cmp.Or(cmp.Compare(x.Name, y.Name), cmp.Compare(x.UID, y.UID))
	})
	return out
}
