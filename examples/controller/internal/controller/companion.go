package controller

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/whatif"
)

// companionFieldManager is the field manager of the companion's status
// patches.
const companionFieldManager = "daemonplan-companion"

// companionState is what the companion keeps in memory between syncs: the
// warnings already recorded (one per DaemonSet spec and annotations) and the
// waves already announced. Everything a restart must not forget (a
// self-pause, the progress clock) lives in the DaemonSet's conditions.
type companionState struct {
	mu     sync.Mutex
	warned map[string]string
	waves  map[string]*waveMemory
	// messages holds back the condition writes that change only a
	// message (messageInterval).
	messages *keyThrottle
}

// messageInterval is the least time between two condition writes of one
// DaemonSet that change only a message (the progress summary); a change
// of a condition's status or reason is written at once.
const messageInterval = 5 * time.Second

// waveMemory is, for one revision of one DaemonSet, the waves seen with
// old pods (rolling) and those announced complete.
type waveMemory struct {
	uid           types.UID
	hash          string
	rolling, done map[string]bool
}

func newCompanionState() *companionState {
	return &companionState{warned: map[string]string{}, waves: map[string]*waveMemory{}, messages: newKeyThrottle(messageInterval)}
}

// warnOnce reports whether the warning fingerprint fp (the DaemonSet's UID,
// generation, annotations and the warning) is new for key.
func (s *companionState) warnOnce(key, fp string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.warned[key] == fp {
		return false
	}
	s.warned[key] = fp
	return true
}

// newlyComplete returns the waves of pr that are complete now, were seen
// with old pods before (for this uid and hash) and were not announced yet,
// and remembers them. A wave that never had an old pod (a new DaemonSet's
// first placement), or whose old pods were all replaced while the
// companion was not running, is not announced.
func (s *companionState) newlyComplete(key string, uid types.UID, hash string, pr progress) []wave {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.waves[key]
	if m == nil || m.uid != uid || m.hash != hash {
		m = &waveMemory{uid: uid, hash: hash, rolling: map[string]bool{}, done: map[string]bool{}}
		s.waves[key] = m
	}
	var out []wave
	for _, w := range pr.Waves {
		id := w.Value
		if w.Unlabelled {
			id = "\x00"
		}
		if w.Old > 0 {
			m.rolling[id] = true
		}
		if w.complete() && m.rolling[id] && !m.done[id] {
			m.done[id] = true
			out = append(out, w)
		}
	}
	return out
}

func (s *companionState) forget(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.warned, key)
	delete(s.waves, key)
	s.messages.forget(key)
}

// holdMessage returns how long to wait before writing changes, conditions
// of key that differ from have: 0 when some status or reason changes or
// messageInterval has passed since the last write (which it then records
// as now), the rest of the interval otherwise.
func (s *companionState) holdMessage(key string, have, changes []appsv1.DaemonSetCondition, now time.Time) time.Duration {
	if len(changes) == 0 {
		return 0
	}
	messageOnly := true
	for _, ch := range changes {
		if h := findCondition(have, ch.Type); h == nil || h.Status != ch.Status || h.Reason != ch.Reason {
			messageOnly = false
		}
	}
	return s.messages.hold(key, messageOnly, now)
}

// fingerprint identifies a DaemonSet spec and its rollout annotations.
func fingerprint(ds *appsv1.DaemonSet, what string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s/%d/%s", ds.UID, ds.Generation, what)
	for _, k := range slices.Sorted(maps.Keys(ds.Annotations)) {
		if strings.Contains(k, "daemonplan") {
			fmt.Fprintf(&b, "\x00%s=%s", k, ds.Annotations[k])
		}
	}
	return b.String()
}

// syncCompanion is the sync of ModeCompanion: it rolls out one opted-in
// OnDelete DaemonSet by deleting old pods, as the rolling step of a plan
// computed as if the DaemonSet were RollingUpdate allows, and reports
// where the rollout is in the DaemonSet's conditions.
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
func (c *Controller) syncCompanion(ctx context.Context, key string) (err error) {
	start := c.cfg.Clock.Now()
	var found syncFacts
	defer func() { c.metrics.observeSync(found.result(err), c.cfg.Clock.Since(start)) }()

	ds, err := c.cachedDaemonSet(ctx, key)
	if ds == nil {
		found.gone = true
		return err
	}
	ns := ds.Namespace
	if ds.DeletionTimestamp != nil {
		return nil
	}

	a, annErr := daemon.ParseRolloutAnnotations(ds.Annotations)
	if a == nil && annErr == nil {
		// Not opted in: kube-controller-manager's alone.
		c.rolloutMetrics.forget(key)
		return c.dropConditions(ctx, key, ds)
	}
	if ds.Spec.UpdateStrategy.Type != appsv1.OnDeleteDaemonSetStrategyType {
		c.rolloutMetrics.forget(key)
		c.warn(key, ds, "RolloutAnnotationsIgnored", fmt.Sprintf(
			"the rollout annotations are ignored: the companion rolls out OnDelete DaemonSets; kube-controller-manager rolls out this %s one by itself",
			ds.Spec.UpdateStrategy.Type))
		return c.dropConditions(ctx, key, ds)
	}
	var strategy appsv1.DaemonSetUpdateStrategy
	reason := ReasonInvalidAnnotations
	if annErr == nil {
		strategy, annErr = a.Strategy(ds)
		reason = strategyReason(annErr)
	}
	if annErr != nil {
		// A typo must not mean "no policy": nothing is deleted until the
		// annotations (or the spec) are fixed.
		found.invalid = true
		c.warn(key, ds, reason, annErr.Error())
		return c.patchConditions(ctx, key, ds, start, []appsv1.DaemonSetCondition{
			condition(ConditionProgressing, false, reason, fmt.Sprintf("no pod is replaced: %v (generation %d)", annErr, ds.Generation)),
		})
	}
	planned := *ds
	planned.Spec.UpdateStrategy = strategy

	// The expectations are read before the pods: once satisfied, every
	// delete they waited for is in the pod cache (the informer updates
	// its store before its handlers observe the delete), so the pods
	// listed next show it. Read after, they could be satisfied by an
	// event that came in between, and the plan would spend the budget of
	// a pod it has just deleted a second time.
	satisfied := c.expectations.Satisfied(key)
	found.waiting = !satisfied
	nodes, pods, revs, err := c.cached(ns)
	if err != nil {
		return fmt.Errorf("daemonset %q: %w", key, err)
	}

	policy := a.Policy
	opts := daemon.Options{
		Now:                                      start,
		Revisions:                                revs,
		BurstReplicas:                            c.cfg.BurstReplicas,
		EnableTaintTolerationComparisonOperators: c.cfg.EnableTaintTolerationComparisonOperators,
		Rollout:                                  policy,
	}
	plan, computeErr := c.plan(key, &planned, nodes, pods, opts)
	if computeErr != nil {
		if isInvalidSpec(computeErr) {
			found.invalid = true
			c.warn(key, ds, "InvalidSpec", messageOf(computeErr))
			return nil
		}
		return fmt.Errorf("daemonset %q: %w", key, keyless{computeErr})
	}
	if plan.Skip != daemon.SkipNone || plan.Hash == "" {
		return nil
	}

	// The self-pause holds while the revision and the paused annotation
	// are those it paused at.
	sp, selfPaused := readSelfPause(ds.Status.Conditions)
	if selfPaused && (sp.Hash != plan.Hash || sp.Paused != pausedValue(ds)) {
		selfPaused = false
	}
	pr := measure(&planned, c.placement.get(ds).elig, &policy, nodes, pods, plan.Hash, start)
	complete, _, err := daemon.RolloutComplete(&planned, nodes, pods, opts)
	if err != nil {
		return fmt.Errorf("daemonset %q: %w", key, err)
	}
	partition := 0
	if plan.Rolling != nil && plan.Rolling.Policy != nil {
		partition = plan.Rolling.Policy.Partition
	}

	// The progress clock: the latest of the revision's creation, the last
	// updated pod becoming available, and the last resume (or the
	// companion's first look); all of it read from the cluster.
	rev := currentRevision(revs, ds, plan.Hash)
	lastProgress := pr.LastAvailable
	if rev == nil {
		lastProgress = start
	} else if t := rev.CreationTimestamp.Time; t.After(lastProgress) {
		lastProgress = t
	}
	switch pc := findCondition(ds.Status.Conditions, ConditionPaused); {
	case pc == nil:
		// The companion's first look.
		lastProgress = start
	case pc.Status == corev1.ConditionTrue && !policy.Paused && !selfPaused:
		// Resumed by this sync.
		lastProgress = start
	case pc.Status == corev1.ConditionFalse && pc.LastTransitionTime.After(lastProgress):
		lastProgress = pc.LastTransitionTime.Time
	}
	deadlineHit := false
	if d := a.ProgressDeadline; d > 0 && !complete && !policy.Paused && !selfPaused {
		if wait := lastProgress.Add(d).Sub(start); wait <= 0 {
			deadlineHit, selfPaused = true, true
			sp = selfPause{Hash: plan.Hash, Paused: pausedValue(ds)}
		} else {
			c.queue.AddAfter(key, wait+time.Second)
		}
	}

	var out outcome
	var errs errorList
	if satisfied && !policy.Paused && !selfPaused && rev != nil {
		c.deleteOldPods(ctx, key, ds, plan, &out, &errs)
	}

	// Conditions.
	gen := fmt.Sprintf(" (generation %d)", ds.Generation)
	summary := pr.summary(complete)
	if partition > 0 {
		summary += fmt.Sprintf("; the partition keeps %d on the old revision", partition)
	}
	var want []appsv1.DaemonSetCondition
	switch {
	case selfPaused:
		want = append(want, condition(ConditionProgressing, false, ReasonProgressDeadlineExceeded, summary+"; stopped at its progress deadline"+gen))
		want = append(want, condition(ConditionPaused, true, ReasonProgressDeadlineExceeded, sp.message(a.ProgressDeadline)))
	case policy.Paused:
		want = append(want, condition(ConditionProgressing, false, ReasonPaused, summary+gen))
		want = append(want, condition(ConditionPaused, true, ReasonPausedByAnnotation, "paused by the "+daemon.AnnotationPaused+" annotation"))
	case complete:
		want = append(want, condition(ConditionProgressing, true, ReasonComplete, summary+gen))
		want = append(want, condition(ConditionPaused, false, ReasonNotPaused, ""))
	default:
		want = append(want, condition(ConditionProgressing, true, ReasonUpdating, summary+gen))
		want = append(want, condition(ConditionPaused, false, ReasonNotPaused, ""))
	}
	switch have := findCondition(ds.Status.Conditions, ConditionBlocked); {
	case deadlineHit:
		u, err := whatif.Unavailable(&planned, nodes, pods, opts)
		reason, msg := ReasonNoProgress, "the breakdown of unavailable nodes failed: "+messageOf(err)
		if err == nil {
			reason, msg = blockedCause(u, plan.Hash, scopeFilter(&policy, nodes))
		}
		want = append(want, condition(ConditionBlocked, true, reason, fmt.Sprintf("no node became updated and available for %s: %s", a.ProgressDeadline, msg)))
	case selfPaused && have != nil && have.Status == corev1.ConditionTrue:
		want = append(want, *have)
	case selfPaused:
		want = append(want, condition(ConditionBlocked, true, ReasonNoProgress, "stopped at its progress deadline"))
	default:
		want = append(want, condition(ConditionBlocked, false, ReasonNotBlocked, ""))
	}
	changes := conditionChanges(ds.Status.Conditions, want, start)
	if wait := c.companion.holdMessage(key, ds.Status.Conditions, changes, start); wait > 0 {
		// Only the progress message changed, and it was written a moment
		// ago: each write is one more conflict for kube-controller-
		// manager's next status update; write it a little later.
		changes = nil
		c.queue.AddAfter(key, wait)
	}
	if len(changes) > 0 {
		if err := c.writeConditions(ctx, key, ds, changes, nil); err != nil {
			errs.add(err)
		} else {
			c.conditionEvents(ds, ds.Status.Conditions, changes)
			out.statusWritten = true
		}
	}
	for _, w := range c.companion.newlyComplete(key, ds.UID, plan.Hash, pr) {
		next := ""
		if i := pr.current(); i >= 0 {
			next = "; next: " + pr.Waves[i].name(pr.Label)
		}
		c.recorder.Eventf(ds, corev1.EventTypeNormal, "WaveComplete", "%s: %d/%d nodes updated and available%s", w.name(pr.Label), w.Updated, w.Desired, next)
	}

	g := rolloutGauges{namespace: ns, name: ds.Name, desired: pr.Desired, updated: pr.Updated, waves: len(pr.Waves)}
	for _, w := range pr.Waves {
		if w.complete() {
			g.wavesDone++
		}
	}
	if b := findCondition(append(changes, ds.Status.Conditions...), ConditionBlocked); b != nil && b.Status == corev1.ConditionTrue {
		g.blockedSince = b.LastTransitionTime.Time
	}
	c.rolloutMetrics.set(key, g)

	if !satisfied {
		c.queue.AddAfter(key, c.cfg.ExpectationsTimeout)
	}
	if plan.RequeueAfter > 0 {
		c.queue.AddAfter(key, plan.RequeueAfter)
	}
	pendingCreates, pendingDeletes := c.expectations.Pending(key)
	level := 2
	if out.deleted > 0 || out.statusWritten || len(errs.errs) > 0 {
		level = 0
	}
	c.logger.V(level).Info("Synced",
		"daemonset", key, "mode", ModeCompanion, "hash", plan.Hash, "satisfied", satisfied,
		"deletes", out.deleted, "deferredDeletes", plan.DeferredDeletes,
		"updated", pr.Updated, "desired", pr.Desired, "complete", complete,
		"paused", policy.Paused, "selfPaused", selfPaused,
		"conditionsWritten", out.statusWritten, "requeueAfter", plan.RequeueAfter,
		"pendingCreates", pendingCreates, "pendingDeletes", pendingDeletes,
		"errors", len(errs.errs), "duration", c.cfg.Clock.Since(start))
	if len(errs.errs) > 0 {
		return fmt.Errorf("daemonset %q: %w", key, errors.Join(errs.errs...))
	}
	return nil
}

// scopeFilter returns whether a node, by name, is in the policy's scope.
func scopeFilter(policy *daemon.RolloutPolicy, nodes []*corev1.Node) func(string) bool {
	if policy.Scope == nil {
		return func(string) bool { return true }
	}
	sel, err := metav1.LabelSelectorAsSelector(policy.Scope)
	if err != nil {
		return func(string) bool { return true }
	}
	in := map[string]bool{}
	for _, n := range nodes {
		in[n.Name] = sel.Matches(labels.Set(n.Labels))
	}
	return func(name string) bool { return in[name] }
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

// deleteOldPods carries out the plan's rolling-step deletes, and nothing
// else of it, each with a UID precondition, after raising the expectations
// of key by them.
func (c *Controller) deleteOldPods(ctx context.Context, key string, ds *appsv1.DaemonSet, plan daemon.Plan, out *outcome, errs *errorList) {
	if plan.Rolling == nil {
		return
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
		return
	}
	uids := make([]types.UID, len(deletes))
	for i, d := range deletes {
		uids[i] = d.Pod.UID
	}
	c.expectations.Expect(key, 0, uids)
	c.deletePods(ctx, key, ds, deletes, out, errs, func(d daemon.Delete) {
		// On the pod, not the DaemonSet: the event recorder lets one
		// object have 25 events per 5 minutes, which a rollout of more
		// nodes would spend on deletes, dropping the rollout's own events
		// (waves, blocked, complete).
		c.recorder.Eventf(d.Pod, corev1.EventTypeNormal, "RolloutReplace", "Deleted by %s for the rollout of daemonset %s to revision %s (%s)", ComponentName, key, plan.Hash, d.Reason)
	})
}

// warn records a Warning event once per DaemonSet spec, annotations and
// reason.
func (c *Controller) warn(key string, ds *appsv1.DaemonSet, reason, msg string) {
	if c.companion.warnOnce(key, fingerprint(ds, reason+"\x00"+msg)) {
		c.recorder.Event(ds, corev1.EventTypeWarning, reason, msg)
		c.logger.Info("DaemonSet not rolled out", "daemonset", key, "reason", reason, "detail", msg)
	}
}

// patchConditions writes the conditions of want that changed, with their
// events.
func (c *Controller) patchConditions(ctx context.Context, key string, ds *appsv1.DaemonSet, now time.Time, want []appsv1.DaemonSetCondition) error {
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
func (c *Controller) dropConditions(ctx context.Context, key string, ds *appsv1.DaemonSet) error {
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
func (c *Controller) writeConditions(ctx context.Context, key string, ds *appsv1.DaemonSet, set []appsv1.DaemonSetCondition, remove []appsv1.DaemonSetConditionType) error {
	patch, err := conditionsPatch(ds.UID, set, remove)
	if err == nil {
		var written *appsv1.DaemonSet
		written, err = c.client.AppsV1().DaemonSets(ds.Namespace).Patch(ctx, ds.Name, types.StrategicMergePatchType, patch,
			metav1.PatchOptions{FieldManager: companionFieldManager}, "status")
		if err == nil {
			c.fence.wrote(key, fenceDaemonSets, written.ResourceVersion)
			c.metrics.actions.WithLabelValues("conditions", "Rollout").Inc()
			return nil
		}
	}
	c.metrics.actionErrors.WithLabelValues("conditions").Inc()
	return fmt.Errorf("patch status conditions: %w", err)
}

// conditionEvents records the events of condition transitions: blocked,
// paused (by annotation or at the deadline), resumed, complete.
func (c *Controller) conditionEvents(ds *appsv1.DaemonSet, have, changes []appsv1.DaemonSetCondition) {
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
				c.recorder.Event(ds, corev1.EventTypeWarning, "RolloutBlocked", ch.Reason+": "+ch.Message)
			}
		case ConditionPaused:
			switch {
			case ch.Status == corev1.ConditionTrue && status != corev1.ConditionTrue && ch.Reason == ReasonProgressDeadlineExceeded:
				c.recorder.Event(ds, corev1.EventTypeWarning, "RolloutPaused", ch.Message)
			case ch.Status == corev1.ConditionTrue && status != corev1.ConditionTrue:
				c.recorder.Event(ds, corev1.EventTypeNormal, "RolloutPaused", ch.Message)
			case ch.Status == corev1.ConditionFalse && status == corev1.ConditionTrue:
				c.recorder.Event(ds, corev1.EventTypeNormal, "RolloutResumed", "the rollout is resumed")
			}
		case ConditionProgressing:
			if existed && ch.Reason == ReasonComplete && reason != ReasonComplete {
				c.recorder.Event(ds, corev1.EventTypeNormal, "RolloutComplete", ch.Message)
			}
		}
	}
}
