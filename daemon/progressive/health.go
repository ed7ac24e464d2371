package progressive

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/rollout"
)

// HealthGates are the signals that stop a rollout at once: see
// HealthGates.Check.
type HealthGates struct {
	// On turns the gates on; off, Check finds nothing.
	On bool
	// MaxRestarts is the number of restarts a container of a new-revision
	// pod may have; one more is a signal (SignalRestarts).
	MaxRestarts int32
	// ReadyTimeout is how long a new-revision pod may go without becoming
	// Ready, from its creation or from when it was last Ready, before that
	// is a signal (SignalReadyTimeout); 0 or less: no such signal.
	ReadyTimeout time.Duration
}

// The health gates' defaults once a DaemonSet opts in: safe for a typical
// node agent, which starts in seconds and may restart once or twice while
// its node settles.
const (
	DefaultMaxRestarts  = 3
	DefaultReadyTimeout = 10 * time.Minute
)

// Signal names a health-gate signal of a new-revision pod.
type Signal string

// The health-gate signals, in the order they are looked for in a pod:
// Check looks for all but SignalRestartedDuringBake, which Gates.Hold
// looks for in the pods of the waves that bake.
const (
	// SignalCrashLoop: a container waits in CrashLoopBackOff.
	SignalCrashLoop Signal = "CrashLoopBackOff"
	// SignalOOMKilled: a container's last termination reason (or its
	// current one) is OOMKilled.
	SignalOOMKilled Signal = "OOMKilled"
	// SignalImagePull: a container waits because its image cannot be had:
	// ImagePullBackOff, ErrImagePull, ErrImageNeverPull or
	// InvalidImageName.
	SignalImagePull Signal = "ImagePullError"
	// SignalCreateError: the kubelet cannot create or start a container:
	// it waits in CreateContainerConfigError, CreateContainerError,
	// RunContainerError, PreCreateHookError or PreStartHookError.
	SignalCreateError Signal = "CreateContainerError"
	// SignalRestarts: a container restarted more than MaxRestarts times.
	SignalRestarts Signal = "TooManyRestarts"
	// SignalRestartedDuringBake: a pod of a finished wave restarted while
	// the wave baked.
	SignalRestartedDuringBake Signal = "RestartedDuringBake"
	// SignalReadyTimeout: the pod has not been Ready for ReadyTimeout,
	// counted from its creation or from when it was last Ready.
	SignalReadyTimeout Signal = "ReadyTimeout"
)

// WaitingSignal returns the signal a container waiting for reason (its
// status's state.waiting.reason) gives, and false for a reason that is no
// signal (ContainerCreating, PodInitializing: a container on its way).
// The signalling reasons are the kubelet's back-offs and its refusals to
// create or start a container: a pod waiting for one does not start
// without a change. This is the one list of them: dsplan's simulator
// counts a pod as failing by it too.
func WaitingSignal(reason string) (Signal, bool) {
	switch reason {
	case "CrashLoopBackOff":
		return SignalCrashLoop, true
	case "ImagePullBackOff", "ErrImagePull", "ErrImageNeverPull", "InvalidImageName":
		return SignalImagePull, true
	case "CreateContainerConfigError", "CreateContainerError", "RunContainerError", "PreCreateHookError", "PreStartHookError":
		return SignalCreateError, true
	}
	return "", false
}

// PodSignal is one new-revision pod's failing signal.
type PodSignal struct {
	// Pod and Node name the pod and its node.
	Pod, Node string
	// Signal is the first signal found.
	Signal Signal
	// Container names the container it concerns, "" for the pod.
	Container string
	// Detail says it for people: "5 restarts", "not Ready within 10m0s".
	Detail string
}

// String says s for people: "CrashLoopBackOff on pod agent-x (node n1,
// container agent: 5 restarts)".
func (s PodSignal) String() string {
	in := "node " + s.Node
	if s.Container != "" {
		in += ", container " + s.Container
	}
	if s.Detail != "" {
		in += ": " + s.Detail
	}
	return fmt.Sprintf("%s on pod %s (%s)", s.Signal, s.Pod, in)
}

// Check returns pod's first failing signal at now under g, or ok false.
// Only the pod's own status counts: its containers' and init containers'
// waiting reasons, last termination reasons and restart counts, its Ready
// condition and its creation time. It looks for the signals in their
// order (see Signal), each in the init containers and then the
// containers, in status order. On a Ready pod only containers that have
// restarted count: a Ready pod whose containers never restarted is
// healthy, whatever a stale waiting or termination state says. A pod with
// no creation time never times out. Off (On false), or for a nil pod, it
// finds nothing. It modifies nothing.
func (g HealthGates) Check(pod *corev1.Pod, now time.Time) (s PodSignal, failing bool) {
	s, failing, _ = g.check(pod, now)
	return s, failing
}

// check is Check, and pending is when a pod that is not Ready times out,
// when that is still ahead (zero otherwise): a moment the answer changes
// with the clock alone.
func (g HealthGates) check(pod *corev1.Pod, now time.Time) (s PodSignal, failing bool, pending time.Time) {
	if !g.On || pod == nil {
		return PodSignal{}, false, time.Time{}
	}
	ready := rollout.IsPodReady(pod)
	s = PodSignal{Pod: pod.Name, Node: pod.Spec.NodeName}
	lists := [2][]corev1.ContainerStatus{pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses}
	for _, look := range containerLooks {
		for _, list := range lists {
			for i := range list {
				cs := &list[i]
				if ready && cs.RestartCount == 0 {
					continue
				}
				if sig, detail, ok := look(g, cs); ok {
					s.Signal, s.Container, s.Detail = sig, cs.Name, detail
					return s, true, time.Time{}
				}
			}
		}
	}
	if ready || g.ReadyTimeout <= 0 {
		return PodSignal{}, false, time.Time{}
	}
	since := pod.CreationTimestamp.Time
	if since.IsZero() {
		return PodSignal{}, false, time.Time{}
	}
	if c := readyCondition(pod); c != nil && c.LastTransitionTime.After(since) {
		since = c.LastTransitionTime.Time
	}
	deadline := since.Add(g.ReadyTimeout)
	if now.Before(deadline) {
		return PodSignal{}, false, deadline
	}
	s.Signal, s.Detail = SignalReadyTimeout, "not Ready within "+g.ReadyTimeout.String()
	return s, true, time.Time{}
}

// containerLooks are the container signals in their order: each returns
// the signal a container status gives, with its detail.
var containerLooks = [...]func(g HealthGates, cs *corev1.ContainerStatus) (Signal, string, bool){
	func(_ HealthGates, cs *corev1.ContainerStatus) (Signal, string, bool) {
		return waitingIs(cs, SignalCrashLoop, restarts(cs.RestartCount))
	},
	func(_ HealthGates, cs *corev1.ContainerStatus) (Signal, string, bool) {
		for _, t := range []*corev1.ContainerStateTerminated{cs.LastTerminationState.Terminated, cs.State.Terminated} {
			if t != nil && t.Reason == "OOMKilled" {
				return SignalOOMKilled, restarts(cs.RestartCount), true
			}
		}
		return "", "", false
	},
	func(_ HealthGates, cs *corev1.ContainerStatus) (Signal, string, bool) {
		return waitingIs(cs, SignalImagePull, "")
	},
	func(_ HealthGates, cs *corev1.ContainerStatus) (Signal, string, bool) {
		return waitingIs(cs, SignalCreateError, "")
	},
	func(g HealthGates, cs *corev1.ContainerStatus) (Signal, string, bool) {
		if cs.RestartCount > g.MaxRestarts {
			return SignalRestarts, fmt.Sprintf("%s, more than %d", restarts(cs.RestartCount), g.MaxRestarts), true
		}
		return "", "", false
	},
}

// waitingIs reports whether cs waits for a reason that gives want; the
// detail is the reason, then extra when not "".
func waitingIs(cs *corev1.ContainerStatus, want Signal, extra string) (Signal, string, bool) {
	w := cs.State.Waiting
	if w == nil {
		return "", "", false
	}
	if sig, ok := WaitingSignal(w.Reason); !ok || sig != want {
		return "", "", false
	}
	var parts []string
	if w.Reason != string(want) {
		parts = append(parts, w.Reason)
	}
	if extra != "" {
		parts = append(parts, extra)
	}
	return want, strings.Join(parts, ", "), true
}

func restarts(n int32) string {
	if n == 1 {
		return "1 restart"
	}
	return fmt.Sprintf("%d restarts", n)
}

// readyCondition returns pod's first Ready condition, nil when it has
// none.
func readyCondition(pod *corev1.Pod) *corev1.PodCondition {
	for i := range pod.Status.Conditions {
		if c := &pod.Status.Conditions[i]; c.Type == corev1.PodReady {
			return c
		}
	}
	return nil
}
