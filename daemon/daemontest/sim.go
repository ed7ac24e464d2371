package daemontest

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonplan/daemonplan/daemon"
)

// DefaultMaxSteps is the step limit of Simulate when SimConfig.MaxSteps is 0.
const DefaultMaxSteps = 1000

// SimConfig configures Simulate. The zero value works: created pods are
// bound, running and ready the instant they are created, none fails,
// deletions finish at once and nothing else happens.
type SimConfig struct {
	// Seed seeds the simulator's only random choice: which created pods
	// fail.
	Seed uint64
	// BindDelay is the time from a pod's creation to the scheduler setting
	// its spec.nodeName; until then the pod is bound only by its node
	// affinity.
	BindDelay time.Duration
	// ReadyDelay is the time from a pod's creation to it running and being
	// Ready (or failing); at least BindDelay. A pod on a node that is not
	// Ready waits for the node. Pods of the input that are not Ready get
	// it too, counted from their own creation (at once when that is past),
	// unless FailingReason says they are failing: those stay as they are.
	ReadyDelay time.Duration
	// FailFraction is the fraction of created pods that fail (phase
	// Failed) at ReadyDelay instead of becoming Ready, drawn per pod from
	// Seed.
	FailFraction float64
	// GracePeriod is the time from a delete to the pod's removal; the pod
	// carries a deletionTimestamp meanwhile.
	GracePeriod time.Duration
	// Events change the cluster at given times after the start.
	Events []ClusterEvent
	// MaxSteps bounds the number of syncs: DefaultMaxSteps when 0.
	MaxSteps int
	// Check runs CheckPlan (with CheckOptions, its seed offset by the
	// step) on every plan instead of a bare Compute; the violations are in
	// the trace.
	Check        bool
	CheckOptions CheckOptions
	// OnStep, when set, is called after each sync with its trace and the
	// cluster as the plan left it (Now is the sync's time). The objects
	// are never modified afterwards and may be kept; the cluster's slices
	// change as the simulation goes on and must not be kept or modified.
	// It is how a caller records per-node state (a chart) without running
	// the simulation again.
	OnStep func(StepTrace, *Cluster)
}

// EventKind is the kind of a ClusterEvent.
type EventKind string

// The kinds of cluster events.
const (
	// NodeJoin adds ClusterEvent.Node (replacing a node of that name).
	NodeJoin EventKind = "NodeJoin"
	// NodeLeave removes the node NodeName; its pods are garbage-collected
	// at once, as the pod GC does for pods of deleted nodes. Pods bound to
	// it only by affinity stay.
	NodeLeave EventKind = "NodeLeave"
	// NodeNotReady turns the node NodeName NotReady, with the not-ready
	// NoSchedule and NoExecute taints; its pods stop being Ready.
	NodeNotReady EventKind = "NodeNotReady"
	// NodeReady turns the node NodeName Ready again; its running pods
	// become Ready.
	NodeReady EventKind = "NodeReady"
	// TemplateChange sets the image of the template's first container to
	// Image, as an update through the API server does (apply.Update): the
	// generation and the deprecated.daemonset.template.generation
	// annotation go up by one, so that pods labelled with the old
	// pod-template-generation are no longer updated.
	TemplateChange EventKind = "TemplateChange"
)

// ClusterEvent is a change the simulator makes to the cluster at a given
// time, outside the plans.
type ClusterEvent struct {
	// At is the time after the start of the simulation.
	At       time.Duration
	Kind     EventKind
	Node     *corev1.Node // NodeJoin
	NodeName string       // NodeLeave, NodeNotReady, NodeReady
	Image    string       // TemplateChange
}

// String describes the event for StepTrace.Events: its kind followed by the
// node's name (the Node's for NodeJoin, NodeName otherwise) or, for
// TemplateChange, the image.
func (e ClusterEvent) String() string {
	switch e.Kind {
	case NodeJoin:
		if e.Node != nil {
			return fmt.Sprintf("%s %s", e.Kind, e.Node.Name)
		}
	case TemplateChange:
		return fmt.Sprintf("%s %s", e.Kind, e.Image)
	}
	return fmt.Sprintf("%s %s", e.Kind, e.NodeName)
}

// Outcome is how a simulation ended.
type Outcome string

// The outcomes of a simulation.
const (
	// OutcomeConverged: the last plan was zero, nothing was left to happen,
	// and the cluster was converged (see Converged).
	OutcomeConverged Outcome = "Converged"
	// OutcomeStalled: the last plan was zero and nothing was left to
	// happen, but the cluster was not converged: a deadlock. A run also
	// ends Stalled, Reason "Compute panicked", at the first sync whose
	// Compute (or CheckPlan, with SimConfig.Check) panicked, the panic being
	// in that step's Violations (InvariantNoPanic); and, without any step,
	// when the cluster cannot be simulated (see Simulate).
	OutcomeStalled Outcome = "Stalled"
	// OutcomeStepLimit: MaxSteps syncs ran and the cluster was still
	// changing: a livelock, or a rollout too slow for the limit.
	OutcomeStepLimit Outcome = "StepLimit"
)

// StepTrace records one sync of a simulation.
type StepTrace struct {
	// Step counts from 0; At is the time since the start.
	Step int
	At   time.Duration
	// Hash is the plan's: the current revision's hash ("" when the sync
	// stopped before the revision history).
	Hash string
	// Events are the cluster events applied just before this sync.
	Events []string
	// Creates and Deletes are the plan's, DeferredCreates and
	// DeferredDeletes what its burst cap held back.
	Creates, Deletes                 int
	DeferredCreates, DeferredDeletes int
	// FailedDeletes are the nodes where the plan deleted a failed pod.
	FailedDeletes []string
	// CreateNodes and DeleteNodes are the nodes of the plan's creates and
	// deletes, in the plan's order (by node name; a node appears once per
	// pod deleted there). UpdateNodes are the nodes where the rolling
	// update starts replacing an old pod: deletes for RollingUpdate or
	// ReplaceUnavailable (maxSurge 0), creates for Surge or
	// SurgeForUnavailable; by node name, each once.
	CreateNodes, DeleteNodes, UpdateNodes []string
	// Desired, Available, Updated and Unavailable are the plan's status:
	// the state before the plan.
	Desired, Available, Updated, Unavailable int32
	// Down is the number of nodes that should run the pod and have no
	// available pod without a deletionTimestamp, and Surge the number of
	// nodes running more than one such pod (not terminal), both measured
	// after the plan was applied.
	Down, Surge int
	// Budgets are the rolling-update budgets scaled against the nodes that
	// should run the pod, after the plan.
	Budgets Budgets
	// ObservedGeneration is the stored status's, before the plan; it keys
	// the failed-pod backoff.
	ObservedGeneration int64
	RequeueAfter       time.Duration
	// Rolling is true when the plan's rolling step ran.
	Rolling bool
	// Err is the text of Compute's error without the DaemonSet, which the
	// simulation is of (daemon.Error.Message); "" when none.
	Err string
	// Violations are CheckPlan's findings (SimConfig.Check).
	Violations []Violation
}

// SimResult is the outcome of Simulate.
type SimResult struct {
	Outcome Outcome
	// Reason says why the cluster is not converged (Converged's error);
	// "" when it is.
	Reason string
	// StartDown and StartSurge are Down and Surge (see StepTrace) before
	// the first sync.
	StartDown, StartSurge int
	Steps                 []StepTrace
	// Final is the cluster after the last step; Hash the last plan's hash.
	Final *Cluster
	Hash  string
}

// ErrNotConverged is wrapped by SimResult.Err when the simulation stalled
// or hit the step limit.
var ErrNotConverged = errors.New("simulation did not converge")

// Err returns nil when the simulation converged and no plan violated an
// invariant. Otherwise it wraps ErrNotConverged (with the reason and the
// last steps), ErrViolation (with the first violations), or both.
func (r SimResult) Err() error {
	var errs []error
	if r.Outcome != OutcomeConverged {
		last := r.Steps[max(0, len(r.Steps)-3):]
		errs = append(errs, fmt.Errorf("%w: %s after %d steps (%s): %s; last steps: %+v",
			ErrNotConverged, r.Outcome, len(r.Steps), r.Duration(), r.Reason, last))
	}
	var vs []error
	for _, st := range r.Steps {
		for _, v := range st.Violations {
			if len(vs) < 5 {
				vs = append(vs, fmt.Errorf("step %d at %s: %w", st.Step, st.At, v))
			}
		}
	}
	if len(vs) > 0 {
		errs = append(errs, fmt.Errorf("%w: %w", ErrViolation, errors.Join(vs...)))
	}
	return errors.Join(errs...)
}

// Duration is the time of the last step.
func (r SimResult) Duration() time.Duration {
	if len(r.Steps) == 0 {
		return 0
	}
	return r.Steps[len(r.Steps)-1].At
}

// Simulate runs the DaemonSet controller on a copy of c: it computes a
// plan, applies it to the in-memory cluster, lets time pass and repeats,
// recording a StepTrace per sync. c is not modified.
//
// Applying a plan: created pods get the name generateName plus a counter,
// a UID, Pending phase and creation time Now, then are bound after
// BindDelay and run Ready (or fail) after ReadyDelay; deletions set a
// deletionTimestamp and remove the pod after GracePeriod; adoptions and
// releases add and remove the controller reference; the history changes
// are made (revisions created unless the name exists, updated, deleted,
// adopted, released; pods relabelled; the collision count written); the
// status is written when StatusChanged; the backoff is carried to the next
// sync. Removed pods leave the cluster's pod list, the others keeping
// their order; created pods are appended.
//
// The input as captured: a pod being deleted is removed GracePeriod after
// its deletionTimestamp; a pod that is not Ready is starting, and is bound
// BindDelay and Ready ReadyDelay after its own creation (at once when that
// is past, and once its node is Ready), unless FailingReason says it is
// failing (CrashLoopBackOff, restarts, an image that does not pull, not
// ready for StuckAfter on a Ready node, Failed): such a pod stays as it is.
//
// Time: after a plan that changes the cluster the next sync runs at the
// same instant (the changes are what the controller would be woken by);
// after a plan that changes nothing (a zero plan, or one that only deletes
// pods already being deleted, as upstream does with never-scheduled pods of
// missing nodes) the clock moves to Now+RequeueAfter or the next pod or
// cluster event, whichever is first. The simulation stops when a plan
// changes nothing and nothing is left to happen (Converged or Stalled), or
// after MaxSteps syncs (StepLimit). It is deterministic for a given c and
// cfg. A step costs one plan and a pass over the pods to measure it; pod
// transitions are queued in time, so that a settled pod costs nothing.
//
// A cluster that cannot be simulated (a nil c, a nil DaemonSet, or a nil
// node, pod or revision entry, which Compute refuses as invalid input) is
// not run: the result is OutcomeStalled with no steps, Reason naming the
// problem (the first nil entry), Final a copy of c (nil for a nil c), and
// Err non-nil. It does not panic on such a cluster.
func Simulate(c *Cluster, cfg SimConfig) SimResult {
	if err := simulable(c); err != nil {
		return SimResult{Outcome: OutcomeStalled, Reason: "cannot simulate: " + err.Error(), Final: c.DeepCopy()}
	}
	s := newSim(c, cfg)
	maxSteps := cfg.MaxSteps
	if maxSteps <= 0 {
		maxSteps = DefaultMaxSteps
	}
	var res SimResult
	res.StartDown, res.StartSurge, _ = s.measure()
	events := s.applyDue()
	var plan daemon.Plan
	for step := 0; ; step++ {
		if step == maxSteps {
			res.Outcome = OutcomeStepLimit
			res.Reason = "the step limit was reached"
			if err := s.converged(plan); err != nil {
				res.Reason += "; " + err.Error()
			}
			break
		}
		var tr StepTrace
		var changed bool
		tr, plan, changed = s.sync(step, events)
		res.Steps = append(res.Steps, tr)
		res.Hash = plan.Hash
		if cfg.OnStep != nil {
			cfg.OnStep(tr, s.c)
		}
		if tr.Violations != nil && slices.ContainsFunc(tr.Violations, func(v Violation) bool { return v.Invariant == InvariantNoPanic }) {
			res.Outcome, res.Reason = OutcomeStalled, "Compute panicked"
			break
		}
		if changed {
			events = s.applyDue()
			continue
		}
		next, ok := s.nextEvent()
		if plan.RequeueAfter > 0 && (!ok || s.c.Now.Add(plan.RequeueAfter).Before(next)) {
			next, ok = s.c.Now.Add(plan.RequeueAfter), true
		}
		if !ok {
			if err := s.converged(plan); err != nil {
				res.Outcome, res.Reason = OutcomeStalled, err.Error()
			} else {
				res.Outcome = OutcomeConverged
			}
			break
		}
		s.c.Now = next
		events = s.applyDue()
	}
	res.Final = s.c
	return res
}

// sim is the state of one simulation.
type sim struct {
	cfg     SimConfig
	c       *Cluster
	start   time.Time
	r       *rand.Rand
	planner *daemon.Planner
	// podAt and nodeAt index the cluster's pods (by namespace and name)
	// and nodes (by name). A removed pod leaves a nil entry in c.Pods until
	// compact runs; holes counts them.
	podAt  map[types.NamespacedName]int
	nodeAt map[string]int
	holes  int
	// timers hold the pending transitions of pods, by namespace and name;
	// queue orders them in time (see sim_timers.go); waitBind and waitNode
	// park pods whose bind waits for their node to exist, and whose
	// readiness for it to be Ready, by node name.
	timers             map[types.NamespacedName]*podTimer
	queue              timerQueue
	waitBind, waitNode map[string][]types.NamespacedName
	// unreadied are the pods a NodeNotReady event turned not Ready, by
	// node name: NodeReady makes them Ready again.
	unreadied map[string][]types.NamespacedName
	// shouldRun caches the placement of each node (by index in c.Nodes)
	// for measure; nil when a node or the template changed.
	shouldRun []bool
	// events are cfg.Events sorted by time; next is the first not applied.
	events []ClusterEvent
	next   int
	seq    int
	// changes counts the changes made to the cluster.
	changes int
}

func newSim(c *Cluster, cfg SimConfig) *sim {
	s := &sim{
		cfg:       cfg,
		c:         c.DeepCopy(),
		start:     c.Now,
		r:         rand.New(rand.NewPCG(cfg.Seed, 0x73696d)), // "sim"
		planner:   daemon.NewPlanner(),
		timers:    map[types.NamespacedName]*podTimer{},
		waitBind:  map[string][]types.NamespacedName{},
		waitNode:  map[string][]types.NamespacedName{},
		unreadied: map[string][]types.NamespacedName{},
		events:    slices.Clone(cfg.Events),
	}
	slices.SortStableFunc(s.events, func(a, b ClusterEvent) int { return cmp.Compare(a.At, b.At) })
	s.reindex()
	for _, p := range s.c.Pods {
		s.startPod(p)
	}
	return s
}

// startPod gives a pod of the input the timer its state calls for: a pod
// being deleted finishes its grace period; one that is not Ready and not
// failing (see FailingReason; pods on NotReady nodes are not judged by
// how long they have been waiting) is bound BindDelay and made Ready
// ReadyDelay after its creation, as if the simulator had created it.
func (s *sim) startPod(p *corev1.Pod) {
	name := podName(p)
	if p.DeletionTimestamp != nil {
		s.timers[name] = &podTimer{removing: true, removeAt: p.DeletionTimestamp.Add(s.cfg.GracePeriod)}
		s.schedule(name, toRemoved, s.timers[name].removeAt)
		return
	}
	if podReady(p) || isTerminal(p) {
		return
	}
	onReadyNode := p.Spec.NodeName != "" && s.nodeReady(p.Spec.NodeName)
	if onReadyNode || p.Spec.NodeName == "" {
		if FailingReason(p, s.c.Now) != "" {
			return
		}
	} else if r := FailingReason(p, s.c.Now); r != "" && !strings.HasPrefix(r, "not ready for") {
		return
	}
	created := p.CreationTimestamp.Time
	t := &podTimer{bindAt: created.Add(s.cfg.BindDelay), readyAt: created.Add(max(s.cfg.ReadyDelay, s.cfg.BindDelay))}
	s.timers[name] = t
	if p.Spec.NodeName == "" {
		s.schedule(name, toBound, later(t.bindAt, s.c.Now))
	} else {
		s.schedule(name, toReady, later(t.readyAt, s.c.Now))
	}
}

// sync computes and applies one plan.
func (s *sim) sync(step int, events []string) (StepTrace, daemon.Plan, bool) {
	in := s.c.Input()
	tr := StepTrace{Step: step, At: s.c.Now.Sub(s.start), Events: events,
		ObservedGeneration: s.c.DaemonSet.Status.ObservedGeneration}
	var plan daemon.Plan
	var err error
	if s.cfg.Check {
		opts := s.cfg.CheckOptions
		opts.Seed += uint64(step)
		rep := CheckPlan(in, opts)
		plan, err, tr.Violations = rep.Plan, rep.ComputeErr, rep.Violations
	} else {
		var panicked string
		if plan, err, panicked = computeSafely(s.planner, in); panicked != "" {
			tr.Violations = []Violation{{InvariantNoPanic, panicked}}
		}
	}
	var de *daemon.Error
	switch {
	case errors.As(err, &de):
		tr.Err = de.Message()
	case err != nil:
		tr.Err = err.Error()
	}
	tr.Hash = plan.Hash
	tr.Creates, tr.Deletes = len(plan.Creates), len(plan.Deletes)
	tr.DeferredCreates, tr.DeferredDeletes = plan.DeferredCreates, plan.DeferredDeletes
	for _, cr := range plan.Creates {
		tr.CreateNodes = append(tr.CreateNodes, cr.NodeName)
		if cr.Reason == daemon.ReasonSurge || cr.Reason == daemon.ReasonSurgeForUnavailable {
			tr.UpdateNodes = append(tr.UpdateNodes, cr.NodeName)
		}
	}
	for _, d := range plan.Deletes {
		tr.DeleteNodes = append(tr.DeleteNodes, d.NodeName)
		switch d.Reason {
		case daemon.ReasonPodFailed:
			tr.FailedDeletes = append(tr.FailedDeletes, d.NodeName)
		case daemon.ReasonRollingUpdate, daemon.ReasonReplaceUnavailable:
			tr.UpdateNodes = append(tr.UpdateNodes, d.NodeName)
		}
	}
	slices.Sort(tr.UpdateNodes)
	tr.UpdateNodes = slices.Compact(tr.UpdateNodes)
	st := plan.Status
	tr.Desired, tr.Available, tr.Updated, tr.Unavailable = st.DesiredNumberScheduled, st.NumberAvailable, st.UpdatedNumberScheduled, st.NumberUnavailable
	tr.RequeueAfter, tr.Rolling = plan.RequeueAfter, plan.Rolling != nil
	changed := s.apply(plan)
	tr.Down, tr.Surge, tr.Budgets = s.measure()
	return tr, plan, changed
}

// converged is Converged, or, under a non-zero Cluster.Rollout, the
// cluster's consistency and daemon.RolloutComplete: a rollout held at its
// partition or scope has converged, and one that has not says why in the
// policy's terms (RolloutReason: paused, the budget used up by unavailable
// nodes outside the scope, a wave baking, ...); a paused rollout says so
// whatever the reason.
func (s *sim) converged(last daemon.Plan) error {
	if s.c.Rollout.IsZero() {
		return Converged(s.c, last.Hash)
	}
	if err := clusterError(s.c); err != nil {
		return err
	}
	in := s.c.Input()
	ok, reason, err := rolloutComplete(in)
	switch {
	case err != nil:
		return err
	case !ok && s.c.Rollout.Paused && reason.Cause != causePaused:
		return errors.New("the rollout is paused; " + reason.String())
	case !ok:
		return errors.New(reason.String())
	}
	return nil
}
