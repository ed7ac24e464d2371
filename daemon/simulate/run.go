package simulate

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// Run runs the DaemonSet controller on a copy of c: it computes a
// plan, applies it to the in-memory cluster, lets time pass and repeats,
// recording a StepTrace per sync. c is not modified: the simulator never
// changes an object in place but replaces it with a changed copy, so the
// objects it did not change are c's own, shared with Result.Final and the
// clusters OnStep sees, which must be treated as read-only.
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
// changes nothing and nothing is left to happen (Converged, Stalled,
// or Blocked when trouble of the cluster holds it: see Result.Judgement
// and Result.Blocking), or
// after MaxSteps syncs, or when the next sync would be more than Horizon
// after the start (StepLimit). It is deterministic for a given c and
// cfg. A step costs one plan and a pass over the pods to measure it; pod
// transitions are queued in time, so that a settled pod costs nothing.
//
// Gates: under Cluster.Gates every sync is planned with its standing and
// judged (progressive.Judge), and (*progressive.Gates).Hold decides what
// it may do, with Config.Zones (UTC only when nil). An approval point is
// taken as approved at once (the run's copy of the gates gets the
// approval, the original is not changed) and recorded in Result.Waits; a
// closed window runs the sync's plan paused (RolloutPolicy.Paused: no old
// pod replaced), is recorded once in Result.Waits, and, while the rollout
// is not complete, the clock may move to the window's opening; a health
// gate, or gates naming what the cluster does not have
// (progressive.HoldUnresolved), run the sync paused and end the run
// OutcomeBlocked (Result.Gate, Reason its Hold.String).
// While nothing holds the rollout, the clock may also move to a new pod's
// ready timeout (the health gates' Hold.Next). The pods the simulator
// creates become Ready after ReadyDelay and never restart: the health
// gates fire on what the input shows (a new-revision pod crash-looping, a
// pod that does not start) and on pods that take longer than the ready
// timeout. A window whose time zone Zones does not resolve makes the
// cluster one that cannot be simulated; an error of Hold at a sync ends
// the run OutcomeStalled, Reason naming it.
//
// A cluster that cannot be simulated (a nil c, a nil DaemonSet, or a nil
// node, pod or revision entry, which Compute refuses as invalid input; a
// delay, event time, wave bake or ready timeout beyond Horizon) is
// not run: the result is OutcomeStalled with no steps, Reason naming the
// problem (the first nil entry), Final a copy of c (nil for a nil c), and
// Err non-nil. It does not panic on such a cluster.
func Run(c *Cluster, cfg Config) Result {
	if err := simulable(c); err != nil {
		return Result{Outcome: OutcomeStalled, Reason: "cannot simulate: " + err.Error(), Final: c.DeepCopy()}
	}
	if err := horizonError(c, cfg); err != nil {
		return Result{Outcome: OutcomeStalled, Reason: "cannot simulate: " + err.Error(), Final: c.DeepCopy()}
	}
	gates, err := newGateRun(c, cfg)
	if err != nil {
		return Result{Outcome: OutcomeStalled, Reason: "cannot simulate: " + err.Error(), Final: c.DeepCopy()}
	}
	s := newSim(c, cfg)
	s.gates = gates
	maxSteps := cfg.MaxSteps
	if maxSteps <= 0 {
		maxSteps = DefaultMaxSteps
	}
	var res Result
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
		var changed, panicked bool
		var gateErr error
		tr, plan, changed, panicked, gateErr = s.sync(step, events)
		res.Steps = append(res.Steps, tr)
		res.Hash = plan.Hash
		if cfg.OnStep != nil {
			cfg.OnStep(tr, s.c)
		}
		if panicked {
			res.Outcome, res.Reason = OutcomeStalled, "Compute panicked"
			break
		}
		if gateErr != nil {
			res.Outcome, res.Reason = OutcomeStalled, gateErr.Error()
			break
		}
		if s.gates != nil && s.gates.stop.Held() {
			res.Outcome, res.Reason, res.Gate = OutcomeBlocked, s.gates.stop.String(), s.gates.stop
			res.Judgement, res.Blocking, _ = s.judgeEnd()
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
		if g := s.gates; g != nil && g.next.After(s.c.Now) && (!ok || g.next.Before(next)) {
			next, ok = g.next, true
		}
		if !ok {
			if err := s.converged(plan); err != nil {
				res.Outcome, res.Reason = OutcomeStalled, err.Error()
			} else {
				res.Outcome = OutcomeConverged
			}
			var all bool
			res.Judgement, res.Blocking, all = s.judgeEnd()
			if res.Outcome == OutcomeConverged {
				res.Blocking = nil
			}
			if res.Outcome == OutcomeStalled && all {
				res.Outcome = OutcomeBlocked
			}
			break
		}
		if next.After(s.start.Add(Horizon)) {
			// Sub would saturate near 292 years: say it without it.
			res.Outcome = OutcomeStepLimit
			res.Reason = fmt.Sprintf("the next sync is past the simulated time limit of %s (Horizon) after the start", Horizon)
			break
		}
		s.c.Now = next
		events = s.applyDue()
	}
	if s.gates != nil {
		res.Waits = s.gates.waits
	}
	res.Final = s.c
	return res
}

// sim is the state of one simulation.
type sim struct {
	cfg     Config
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
	events []Event
	next   int
	seq    int
	// changes counts the changes made to the cluster.
	changes int
	// gates are Cluster.Gates at work, nil without them.
	gates *gateRun
}

func newSim(c *Cluster, cfg Config) *sim {
	s := &sim{
		cfg:       cfg,
		c:         c.shallowCopy(),
		start:     c.Now,
		r:         rand.New(rand.NewPCG(cfg.Seed, 0x73696d)), // "sim"
		planner:   daemon.NewPlanner(),
		timers:    map[types.NamespacedName]*podTimer{},
		waitBind:  map[string][]types.NamespacedName{},
		waitNode:  map[string][]types.NamespacedName{},
		unreadied: map[string][]types.NamespacedName{},
		events:    slices.Clone(cfg.Events),
	}
	slices.SortStableFunc(s.events, func(a, b Event) int { return cmp.Compare(a.At, b.At) })
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

// sync computes and applies one plan, paused when the gates hold it;
// panicked says that computing it panicked (and nothing was applied but
// the zero plan), gateErr that the gates could not be asked (nothing was
// applied).
func (s *sim) sync(step int, events []string) (tr StepTrace, plan daemon.Plan, changed, panicked bool, gateErr error) {
	tr = StepTrace{Step: step, At: s.c.Now.Sub(s.start), Events: events,
		ObservedGeneration: s.c.DaemonSet.Status.ObservedGeneration}
	in := s.c.Input()
	if s.gates != nil {
		in.Options.ReportStanding = true
	}
	got := s.compute(step, in)
	if s.gates != nil {
		var h progressive.Hold
		if got, h, gateErr = s.gate(step, in, got); gateErr != nil {
			return tr, got.Plan, false, got.Panicked, gateErr
		}
		tr.Held = h.Cause
	}
	plan, err := got.Plan, got.Err
	tr.Violations, panicked = got.Violations, got.Panicked
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
	changed = s.apply(plan)
	tr.Down, tr.Surge, tr.Budgets = s.measure()
	return tr, plan, changed, panicked, nil
}

// compute returns the plan of one sync: Config.Check's, or the planner's.
// A panic of either becomes a violation wrapping ErrComputePanicked, with
// a shortened stack.
func (s *sim) compute(step int, in Input) (out Checked) {
	defer func() {
		if r := recover(); r != nil {
			stack := string(debug.Stack())
			if len(stack) > 4000 {
				stack = stack[:4000] + "..."
			}
			out = Checked{Violations: []error{fmt.Errorf("%w: %v\n%s", ErrComputePanicked, r, stack)}, Panicked: true}
		}
	}()
	if s.cfg.Check != nil {
		return s.cfg.Check(step, in)
	}
	plan, err := s.planner.Compute(in.DaemonSet, in.Nodes, in.Pods, in.Options)
	return Checked{Plan: plan, Err: err}
}

// converged is Converged, or, under a non-zero Cluster.Rollout, the
// cluster's consistency and progressive.Judge: a rollout held at its
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
	case !ok && s.c.Rollout.Paused && reason.Cause != progressive.CausePaused:
		return errors.New("the rollout is paused; " + reason.String())
	case !ok:
		return errors.New(reason.String())
	}
	return nil
}
