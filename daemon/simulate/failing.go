package simulate

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// StuckAfter is how long a running pod may stay not Ready before
// FailingReason counts it as failing: far longer than agents take to
// start, so that a pod still starting in a capture is not mistaken for a
// broken one.
const StuckAfter = 10 * time.Minute

// FailingRestarts is the restart count from which a pod that is not Ready
// counts as failing.
const FailingRestarts = 3

// failingWait reports whether a container waiting for reason will not
// start without a change: the kubelet's back-offs and its refusals to
// create the container, the waiting reasons the health gates signal
// (progressive.WaitingSignal, the one list of them).
func failingWait(reason string) bool {
	_, ok := progressive.WaitingSignal(reason)
	return ok
}

// FailingReason says why p, as a capture shows it at now, is failing
// rather than starting, or returns "" when it is not failing. A pod is
// failing when:
//  1. its phase is Failed ("Failed") or Succeeded ("Succeeded");
//  2. a container or init container waits for one of the kubelet's
//     back-offs or refusals (CrashLoopBackOff, ImagePullBackOff,
//     ErrImagePull, ErrImageNeverPull, InvalidImageName,
//     CreateContainerConfigError, CreateContainerError,
//     RunContainerError, the hook errors): that reason, with the restart
//     count when it is not 0 ("CrashLoopBackOff, 12 restarts");
//  3. it is not Ready and a container has restarted FailingRestarts times
//     or more ("4 restarts");
//  4. the scheduler marked it unschedulable ("Unschedulable");
//  5. it is not Ready and has not been since StuckAfter before now,
//     counted from its Ready condition's last transition, or from its
//     creation without one ("not ready for 1h0m0s"). A pod on a NotReady
//     node is not ready because of its node: judge the node first.
//
// A Ready pod is never failing. The simulator keeps failing pods down
// (the controller deletes and replaces terminal ones); every other pod
// that is not Ready becomes Ready Config.ReadyDelay after its creation.
// It modifies nothing.
func FailingReason(p *corev1.Pod, now time.Time) string {
	switch p.Status.Phase {
	case corev1.PodFailed, corev1.PodSucceeded:
		return string(p.Status.Phase)
	}
	if podReady(p) {
		return ""
	}
	var waiting string
	var restarts int32
	for _, list := range [][]corev1.ContainerStatus{p.Status.InitContainerStatuses, p.Status.ContainerStatuses} {
		for _, cs := range list {
			restarts = max(restarts, cs.RestartCount)
			if w := cs.State.Waiting; w != nil && waiting == "" && failingWait(w.Reason) {
				waiting = w.Reason
			}
		}
	}
	var parts []string
	if waiting != "" {
		parts = append(parts, waiting)
	}
	if restarts > 0 && (waiting != "" || restarts >= FailingRestarts) {
		parts = append(parts, fmt.Sprintf("%d restarts", restarts))
	}
	if len(parts) > 0 {
		return strings.Join(parts, ", ")
	}
	since := p.CreationTimestamp.Time
	for _, c := range p.Status.Conditions {
		switch {
		case c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable:
			return corev1.PodReasonUnschedulable
		case c.Type == corev1.PodReady && !c.LastTransitionTime.IsZero():
			since = c.LastTransitionTime.Time
		}
	}
	if !since.IsZero() && now.Sub(since) > StuckAfter {
		return "not ready for " + now.Sub(since).Round(time.Second).String()
	}
	return ""
}
