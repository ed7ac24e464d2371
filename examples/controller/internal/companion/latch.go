package companion

import (
	"fmt"
	"regexp"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// latch is a rollout that stopped itself: at its progress deadline
// (ReasonProgressDeadlineExceeded) or on a failed health gate
// (ReasonHealthGateFailed). It holds until a person acts: a new template,
// or a change of the paused annotation ("kubectl dsplan rollout resume"
// makes one). Its state is kept at the end of the RolloutPaused
// condition's message, "[paused=<value> revision=<hash>]", so that it
// survives a restart of the companion: the revision it stopped at and
// the value of the paused annotation then ("unset" when absent).
type latch struct {
	// Reason is why it stopped, the RolloutPaused condition's reason.
	Reason string
	// Hash is the revision it stopped at, Paused the paused annotation's
	// value then.
	Hash, Paused string
}

// latchReasons are the RolloutPaused reasons of a latch.
var latchReasons = []string{ReasonProgressDeadlineExceeded, ReasonHealthGateFailed}

var latchState = regexp.MustCompile(`\[paused=(unset|true|false) revision=([^\]\s]*)\]$`)

// pausedValue is the paused annotation's value as a latch keeps it.
func pausedValue(ds *appsv1.DaemonSet) string {
	if v, ok := ds.Annotations[progressive.AnnotationPaused]; ok {
		return v
	}
	return "unset"
}

// readLatch returns the latch recorded in conds, if any: a RolloutPaused
// condition True with a latch's reason and state.
func readLatch(conds []appsv1.DaemonSetCondition) (latch, bool) {
	c := findCondition(conds, ConditionPaused)
	if c == nil || c.Status != corev1.ConditionTrue {
		return latch{}, false
	}
	known := false
	for _, r := range latchReasons {
		known = known || c.Reason == r
	}
	m := latchState.FindStringSubmatch(c.Message)
	if !known || m == nil {
		return latch{}, false
	}
	return latch{Reason: c.Reason, Paused: m[1], Hash: m[2]}, true
}

// holds reports whether l still holds the rollout of ds at revision hash:
// neither the template nor the paused annotation changed since it
// latched.
func (l latch) holds(ds *appsv1.DaemonSet, hash string) bool {
	return l.Hash == hash && l.Paused == pausedValue(ds)
}

// message is the RolloutPaused message of l: why it stopped, what else
// happened (note, "" for nothing), how to resume, and its state at the
// end. deadline is the progress deadline it stopped at.
func (l latch) message(deadline time.Duration, note string) string {
	why := fmt.Sprintf("no node became updated and available for %s", deadline)
	if l.Reason == ReasonHealthGateFailed {
		why = "a health gate failed on the new revision"
	}
	if note != "" {
		why += "; " + note
	}
	return fmt.Sprintf("paused itself: %s; change the template or the %s annotation to resume [paused=%s revision=%s]",
		why, progressive.AnnotationPaused, l.Paused, l.Hash)
}
