package progressive

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
)

// Gates are what holds a rollout beyond its plan: the health of the new
// revision's pods, the approval points a person must pass, and the
// maintenance windows outside which no old pod is deleted. The plan
// decides which old pods may be replaced now (budgets, waves, bake);
// Gates.Hold decides whether a controller may carry that out at all.
// The zero Gates hold nothing (the health gates are off in the zero
// value; ParseAnnotations turns them on by default).
type Gates struct {
	// Health are the health gates on the new revision's pods.
	Health HealthGates
	// PauseAfter are the approval points, as the pause-after annotation
	// writes them: "canary", "every-wave", or a value of the order label.
	// The rollout waits after each such wave until Approved names the
	// current revision and that wave or a later one.
	PauseAfter []string
	// Approved is the latest approval, nil when there is none.
	Approved *Approval
	// Windows are the maintenance windows; empty means always open.
	Windows Windows
}

// HealthGates are the signals that stop a rollout at once: see
// HealthGates.Check.
type HealthGates struct {
	// On turns the gates on.
	On bool
	// MaxRestarts is the number of restarts a container of a new-revision
	// pod may have; one more is a signal (SignalRestarts).
	MaxRestarts int32
	// ReadyTimeout is how long a new-revision pod may go from its creation
	// without becoming Ready before that is a signal (SignalReadyTimeout).
	ReadyTimeout time.Duration
}

// The health gates' defaults once a DaemonSet opts in: safe for a typical
// node agent, which starts in seconds and may restart once or twice while
// its node settles.
const (
	DefaultMaxRestarts  = 3
	DefaultReadyTimeout = 10 * time.Minute
)

// Approval is what "kubectl dsplan rollout approve" records: the revision
// (its pod-template-hash) and the wave after which the rollout may go on
// (a wave name, as daemon.RolloutPolicy.WaveOf names it, or
// daemon.CanaryWave).
type Approval struct {
	Hash, Wave string
}

// String is the annotation's value: "<hash>/<wave>".
func (a Approval) String() string { return a.Hash + "/" + a.Wave }

// OnFailure is what a controller does when a health gate fails.
type OnFailure string

// The on-failure values.
const (
	// OnFailurePause pauses the rollout until a person acts (the default).
	OnFailurePause OnFailure = "pause"
	// OnFailureRollback writes the previous revision's template back
	// (rollout.RollbackTo) and rolls it out under the same policy.
	OnFailureRollback OnFailure = "rollback"
)

// Signal names a health-gate signal of a new-revision pod.
type Signal string

// The health-gate signals, in the order Check reports the first of a pod.
const (
	// SignalCrashLoop: a container waits in CrashLoopBackOff.
	SignalCrashLoop Signal = "CrashLoopBackOff"
	// SignalOOMKilled: a container's last termination reason is OOMKilled.
	SignalOOMKilled Signal = "OOMKilled"
	// SignalImagePull: a container waits in ImagePullBackOff or
	// ErrImagePull.
	SignalImagePull Signal = "ImagePullError"
	// SignalCreateError: a container waits in CreateContainerConfigError
	// or CreateContainerError.
	SignalCreateError Signal = "CreateContainerError"
	// SignalRestarts: a container restarted more than MaxRestarts times.
	SignalRestarts Signal = "TooManyRestarts"
	// SignalRestartedDuringBake: a pod of a finished wave restarted while
	// the wave baked.
	SignalRestartedDuringBake Signal = "RestartedDuringBake"
	// SignalReadyTimeout: the pod has not become Ready ReadyTimeout after
	// its creation.
	SignalReadyTimeout Signal = "ReadyTimeout"
)

// PodSignal is one new-revision pod's failing signal.
type PodSignal struct {
	// Pod and Node name the pod and its node.
	Pod, Node string
	// Signal is the first signal Check found.
	Signal Signal
	// Container names the container it concerns, "" for the pod.
	Container string
	// Detail says it for people: "5 restarts", "not Ready after 10m0s".
	Detail string
}

// HoldCause names what holds a rollout (Hold.Cause).
type HoldCause string

// The hold causes, in the order Gates.Hold picks the first that applies.
const (
	// HoldNone: nothing holds the rollout.
	HoldNone HoldCause = ""
	// HoldHealthGate: a new-revision pod failed a health gate
	// (Hold.Signals).
	HoldHealthGate HoldCause = "HealthGateFailed"
	// HoldApproval: a wave named in pause-after is done and the rollout
	// waits for its approval (Hold.Wave).
	HoldApproval HoldCause = "WaitingForApproval"
	// HoldWindow: no maintenance window is open (Hold.Until).
	HoldWindow HoldCause = "OutsideWindow"
)

// Hold is what holds a rollout beyond its plan at one moment: while
// Cause is not HoldNone, a controller deletes no old pod (the plan's
// create/delete pass runs as ever).
type Hold struct {
	Cause HoldCause
	// Signals are the failing new-revision pods (HoldHealthGate), sorted
	// by node name.
	Signals []PodSignal
	// Wave is the wave after which the rollout waits (HoldApproval).
	Wave string
	// Until is when the next window opens (HoldWindow).
	Until time.Time
	// Next is the earliest moment at which the answer may change with
	// the clock alone (a window opens or closes, a new pod reaches its
	// ready timeout): when a controller should look again. Zero when
	// nothing changes with the clock.
	Next time.Time
}

// Held reports whether h holds the rollout.
func (h Hold) Held() bool { return h.Cause != HoldNone }

// Hold decides whether g holds the rollout of ds (Rollout.DaemonSet) at
// now, from its plan (computed with Options.ReadOut) and j, Judge of that
// plan: the health gates first (Signals of the new revision's pods,
// SignalRestartedDuringBake while a finished wave bakes), then the latest
// done wave named in PauseAfter that Approved does not cover, then the
// windows. zones resolves the windows' time zones (time.LoadLocation is
// one); an unknown zone is an error at the window annotation. It
// modifies nothing.
func (g *Gates) Hold(ds *appsv1.DaemonSet, plan *daemon.Plan, j Judgement, now time.Time, zones Zones) (Hold, error) {
	return Hold{}, nil
}

// Check returns pod's first failing signal at now under g, or ok false.
// Only the pod's own status counts: its containers' and init containers'
// waiting reasons, last termination reasons and restart counts, its Ready
// condition and its creation time. It modifies nothing.
func (g HealthGates) Check(pod *corev1.Pod, now time.Time) (s PodSignal, failing bool) {
	return PodSignal{}, false
}
