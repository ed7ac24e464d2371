package simulate

import (
	"errors"
	"fmt"
	"time"

	"github.com/daemonplan/daemonplan/daemon/progressive"
)

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
	// Compute (or Config.Check) panicked, the panic being in that step's
	// Violations; and, without any step, when the cluster cannot be
	// simulated (see Run).
	OutcomeStalled Outcome = "Stalled"
	// OutcomeBlocked: the run stalled (as OutcomeStalled: the last plan
	// was zero and nothing was left to happen) and every desired node
	// without an available pod is held by trouble the simulator does not
	// resolve: its node is NotReady, or its pod is failing (FailingReason:
	// CrashLoopBackOff, restarts, an image that does not pull, ...).
	// Result.Blocking names them. It says the cluster is broken, not the
	// rollout: Assume shows the rollout that would follow once the trouble
	// is gone.
	//
	// A run under Cluster.Gates also ends Blocked, at once, at the first
	// sync whose new-revision pods fail a health gate: Result.Gate names
	// the signals, pods and nodes (Result.Blocking, as above, the nodes
	// the cluster's trouble holds, if any). That is the rollout stopped,
	// as a controller would stop it, until a person acts. So does a run
	// whose gates name something the cluster does not have
	// (progressive.HoldUnresolved, Result.Gate), at its first sync.
	OutcomeBlocked Outcome = "Blocked"
	// OutcomeStepLimit: MaxSteps syncs ran and the cluster was still
	// changing: a livelock, or a rollout too slow for the limit; or the
	// next sync was more than Horizon after the start.
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
	// Held is what of Cluster.Gates held the sync, whose plan then ran
	// paused (no old pod replaced): progressive.HoldWindow, or
	// progressive.HoldHealthGate at the sync that ended the run;
	// progressive.HoldNone otherwise (an approval point, taken as approved
	// at once, holds nothing: see Result.Waits).
	Held progressive.HoldCause
	// Err is the text of Compute's error without the DaemonSet, which the
	// simulation is of (daemon.Error.Message); "" when none.
	Err string
	// Violations are Config.Check's findings, and the panic of Compute
	// when it panicked.
	Violations []error
}

// Result is the outcome of Run.
type Result struct {
	Outcome Outcome
	// Reason says why the cluster is not converged (Converged's error);
	// "" when it is.
	Reason string
	// StartDown and StartSurge are Down and Surge (see StepTrace) before
	// the first sync.
	StartDown, StartSurge int
	Steps                 []StepTrace
	// Judgement is progressive.Judge of the cluster where a run ended
	// Converged, Stalled or Blocked, computed with the standing (under
	// the zero policy too: the rollout of the DaemonSet's own strategy);
	// its Reason.Cause is the judge's cause, as data. Zero otherwise
	// (StepLimit, a panic, a cluster that cannot be simulated).
	Judgement progressive.Judgement
	// Blocking are the desired nodes held unavailable by trouble the
	// simulator does not resolve where the run ended Stalled or Blocked
	// (see OutcomeBlocked), sorted by node name; under OutcomeBlocked they
	// are every unavailable desired node, under OutcomeStalled some of
	// them (or none). Nil otherwise.
	Blocking []Blocker
	// Waits are the holds of Cluster.Gates the run went past, in order:
	// the approval points it reached, each taken as approved at once, and
	// the closed windows it waited out (the run's time counts them; it
	// counts no time for a person to approve). Nil without gates.
	Waits []Wait
	// Gate is the health-gate or unresolved-reference hold that stopped
	// the run (progressive.HoldHealthGate or HoldUnresolved,
	// OutcomeBlocked) at its last step, Reason
	// its Hold.String; the zero Hold otherwise.
	Gate progressive.Hold
	// Final is the cluster after the last step; Hash the last plan's hash.
	// Its slices are its own; the objects the simulation did not change
	// (the DaemonSet, nodes, pods and revisions) are the input's, not
	// copies: read-only.
	Final *Cluster
	Hash  string
}

// ErrNotConverged is wrapped by Result.Err when the simulation stalled
// or hit the step limit.
var ErrNotConverged = errors.New("simulation did not converge")

// ErrComputePanicked is wrapped by the violation a step records when
// Compute panicked on its input.
var ErrComputePanicked = errors.New("Compute panicked")

// Err returns nil when the simulation converged and no step recorded a
// violation. Otherwise it wraps ErrNotConverged (with the reason and the
// last steps), the first five violations (each as Config.Check gave it:
// daemontest's wrap daemontest.ErrViolation), or both.
func (r Result) Err() error {
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
		errs = append(errs, fmt.Errorf("plans broke invariants: %w", errors.Join(vs...)))
	}
	return errors.Join(errs...)
}

// Duration is the time of the last step.
func (r Result) Duration() time.Duration {
	if len(r.Steps) == 0 {
		return 0
	}
	return r.Steps[len(r.Steps)-1].At
}
