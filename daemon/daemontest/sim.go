package daemontest

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
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
	// Ready waits for the node.
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
	// Image and raises the DaemonSet's generation.
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
	// Events are the cluster events applied just before this sync.
	Events []string
	// Creates and Deletes are the plan's, DeferredCreates and
	// DeferredDeletes what its burst cap held back.
	Creates, Deletes                 int
	DeferredCreates, DeferredDeletes int
	// FailedDeletes are the nodes where the plan deleted a failed pod.
	FailedDeletes []string
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
	// Err is the text of Compute's error; "" when none.
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
// sync.
//
// Time: after a plan that changes the cluster the next sync runs at the
// same instant (the changes are what the controller would be woken by);
// after a plan that changes nothing (a zero plan, or one that only deletes
// pods already being deleted, as upstream does with never-scheduled pods of
// missing nodes) the clock moves to Now+RequeueAfter or the next pod or
// cluster event, whichever is first. The simulation stops when a plan
// changes nothing and nothing is left to happen (Converged or Stalled), or
// after MaxSteps syncs (StepLimit). It is deterministic for a given c and
// cfg.
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
	for step := 0; ; step++ {
		if step == maxSteps {
			res.Outcome = OutcomeStepLimit
			res.Reason = "the step limit was reached"
			if err := s.converged(res.Hash); err != nil {
				res.Reason += "; " + err.Error()
			}
			break
		}
		tr, plan, changed := s.sync(step, events)
		res.Steps = append(res.Steps, tr)
		res.Hash = plan.Hash
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
			if err := s.converged(plan.Hash); err != nil {
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
	cfg   SimConfig
	c     *Cluster
	start time.Time
	r     *rand.Rand
	// timers hold the pending transitions of pods, by namespace and name.
	timers map[types.NamespacedName]*podTimer
	// events are cfg.Events sorted by time; next is the first not applied.
	events []ClusterEvent
	next   int
	seq    int
	// changes counts the changes made to the cluster.
	changes int
}

// podTimer is what will happen to a pod: bound at bindAt, running (or
// failed) at readyAt, removed at removeAt.
type podTimer struct {
	bindAt, readyAt, removeAt time.Time
	fails, removing           bool
}

func newSim(c *Cluster, cfg SimConfig) *sim {
	s := &sim{
		cfg:    cfg,
		c:      c.DeepCopy(),
		start:  c.Now,
		r:      rand.New(rand.NewPCG(cfg.Seed, 0x73696d)), // "sim"
		timers: map[types.NamespacedName]*podTimer{},
		events: slices.Clone(cfg.Events),
	}
	slices.SortStableFunc(s.events, func(a, b ClusterEvent) int { return cmp.Compare(a.At, b.At) })
	// Pods being deleted at the start finish their grace period.
	for _, p := range s.c.Pods {
		if p.DeletionTimestamp != nil {
			s.timers[podName(p)] = &podTimer{removing: true, removeAt: p.DeletionTimestamp.Add(cfg.GracePeriod)}
		}
	}
	return s
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
		if plan, err, panicked = computeSafely(in); panicked != "" {
			tr.Violations = []Violation{{InvariantNoPanic, panicked}}
		}
	}
	if err != nil {
		tr.Err = err.Error()
	}
	tr.Creates, tr.Deletes = len(plan.Creates), len(plan.Deletes)
	tr.DeferredCreates, tr.DeferredDeletes = plan.DeferredCreates, plan.DeferredDeletes
	for _, d := range plan.Deletes {
		if d.Reason == daemon.ReasonPodFailed {
			tr.FailedDeletes = append(tr.FailedDeletes, d.NodeName)
		}
	}
	st := plan.Status
	tr.Desired, tr.Available, tr.Updated, tr.Unavailable = st.DesiredNumberScheduled, st.NumberAvailable, st.UpdatedNumberScheduled, st.NumberUnavailable
	tr.RequeueAfter, tr.Rolling = plan.RequeueAfter, plan.Rolling != nil
	changed := s.apply(plan)
	tr.Down, tr.Surge, tr.Budgets = s.measure()
	return tr, plan, changed
}

// converged is Converged, or, under a non-zero Cluster.Rollout, the
// cluster's consistency and daemon.RolloutComplete: a rollout held at its
// partition or scope has converged.
func (s *sim) converged(hash string) error {
	if s.c.Rollout.IsZero() {
		return Converged(s.c, hash)
	}
	if err := clusterError(s.c); err != nil {
		return err
	}
	in := s.c.Input()
	ok, reason, err := daemon.RolloutComplete(in.DaemonSet, in.Nodes, in.Pods, in.Options)
	switch {
	case err != nil:
		return err
	case !ok && s.c.Rollout.Paused:
		return fmt.Errorf("the rollout is paused: %s", reason)
	case !ok:
		return errors.New(reason.String())
	}
	return nil
}
