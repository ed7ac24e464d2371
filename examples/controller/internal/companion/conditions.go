package companion

import (
	"encoding/json"
	"fmt"
	"regexp"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// The condition types the companion writes to a DaemonSet's status. They
// are its own: kube-controller-manager writes no condition of a DaemonSet,
// and keeps every condition it finds (it updates the status it read).
const (
	// ConditionProgressing says where the rollout is. True with reason
	// ReasonUpdating while pods are being replaced, or ReasonComplete once
	// the rollout is complete under the policy; False while it is paused
	// (ReasonPaused), stopped at its progress deadline
	// (ReasonProgressDeadlineExceeded), or when the rollout annotations
	// cannot be planned (syncer.ReasonInvalidAnnotations,
	// syncer.ReasonSurgeUnsupported). Its message says where the
	// rollout is and ends with "(generation N)", the DaemonSet generation
	// it describes.
	ConditionProgressing appsv1.DaemonSetConditionType = "RolloutProgressing"
	// ConditionPaused is True while the rollout is paused, by the paused
	// annotation (ReasonPausedByAnnotation) or by itself at its progress
	// deadline (ReasonProgressDeadlineExceeded), and False otherwise.
	ConditionPaused appsv1.DaemonSetConditionType = "RolloutPaused"
	// ConditionBlocked is True from the moment the rollout stops itself at
	// its progress deadline until it is resumed, with the cause as reason
	// (ReasonNewRevisionUnavailable, ReasonNodesNotReady,
	// ReasonPodsMissing, ReasonOldPodsUnavailable, ReasonNoProgress), and
	// False otherwise.
	ConditionBlocked appsv1.DaemonSetConditionType = "RolloutBlocked"
)

// Condition reasons.
const (
	ReasonUpdating                 = "Updating"
	ReasonComplete                 = "RolloutComplete"
	ReasonPaused                   = "Paused"
	ReasonPausedByAnnotation       = "PausedByAnnotation"
	ReasonProgressDeadlineExceeded = "ProgressDeadlineExceeded"
	ReasonNotPaused                = "NotPaused"
	ReasonNotBlocked               = "NotBlocked"
	// messageNotPaused and messageNotBlocked are the messages of
	// RolloutPaused and RolloutBlocked False: a condition's message
	// describes its current status.
	messageNotPaused  = "the rollout is not paused"
	messageNotBlocked = "the rollout is not stopped at a progress deadline"
	// Causes of a blocked rollout, from where the unavailable desired
	// nodes in scope stand in the plan (blockedCause), the first that
	// applies.
	ReasonNewRevisionUnavailable = string(progressive.StopNewRevisionUnavailable)
	ReasonNodesNotReady          = string(progressive.StopNodesNotReady)
	ReasonPodsMissing            = string(progressive.StopPodsMissing)
	ReasonOldPodsUnavailable     = string(progressive.StopOldPodsUnavailable)
	ReasonNoProgress             = string(progressive.StopNoProgress)
)

var ownConditions = []appsv1.DaemonSetConditionType{ConditionProgressing, ConditionPaused, ConditionBlocked}

// findCondition returns the condition of type t in conds, or nil.
func findCondition(conds []appsv1.DaemonSetCondition, t appsv1.DaemonSetConditionType) *appsv1.DaemonSetCondition {
	for i := range conds {
		if conds[i].Type == t {
			return &conds[i]
		}
	}
	return nil
}

func condition(t appsv1.DaemonSetConditionType, status bool, reason, message string) appsv1.DaemonSetCondition {
	s := corev1.ConditionFalse
	if status {
		s = corev1.ConditionTrue
	}
	return appsv1.DaemonSetCondition{Type: t, Status: s, Reason: reason, Message: message}
}

// conditionChanges returns the conditions of want that differ from those
// in have (status, reason or message), each with its lastTransitionTime:
// the one in have when the status did not change, now otherwise.
func conditionChanges(have, want []appsv1.DaemonSetCondition, now time.Time) []appsv1.DaemonSetCondition {
	var out []appsv1.DaemonSetCondition
	for _, w := range want {
		h := findCondition(have, w.Type)
		if h != nil && h.Status == w.Status && h.Reason == w.Reason && h.Message == w.Message {
			continue
		}
		w.LastTransitionTime = metav1.NewTime(now)
		if h != nil && h.Status == w.Status {
			w.LastTransitionTime = h.LastTransitionTime
		}
		out = append(out, w)
	}
	return out
}

// conditionsPatch is the strategic merge patch of the status subresource
// that sets the conditions set (each field, an empty message too) and
// removes the types in remove, and nothing else: status.conditions is a list merged by type, so the
// other conditions and every other status field are left as they are.
// metadata.uid makes the API server refuse the patch when the name now
// belongs to another DaemonSet.
func conditionsPatch(uid types.UID, set []appsv1.DaemonSetCondition, remove []appsv1.DaemonSetConditionType) ([]byte, error) {
	list := make([]any, 0, len(set)+len(remove))
	for _, c := range set {
		// Every field, message included: a condition's message is
		// omitempty, and a patch that omits it keeps the old one.
		list = append(list, map[string]any{
			"type": c.Type, "status": c.Status, "reason": c.Reason,
			"message": c.Message, "lastTransitionTime": c.LastTransitionTime,
		})
	}
	for _, t := range remove {
		list = append(list, map[string]any{"$patch": "delete", "type": t})
	}
	return json.Marshal(map[string]any{
		"metadata": map[string]any{"uid": uid},
		"status":   map[string]any{"conditions": list},
	})
}

// selfPause is the state of a rollout that paused itself at its progress
// deadline, kept in the RolloutPaused condition's message so that it
// survives a restart: the revision it paused at and the value of the paused
// annotation then ("unset" when absent). It stays paused while both are
// unchanged.
type selfPause struct {
	Hash, Paused string
}

var selfPauseState = regexp.MustCompile(`\[paused=(unset|true|false) revision=([^\]\s]*)\]$`)

// pausedValue is the paused annotation's value as selfPause keeps it.
func pausedValue(ds *appsv1.DaemonSet) string {
	if v, ok := ds.Annotations[progressive.AnnotationPaused]; ok {
		return v
	}
	return "unset"
}

// readSelfPause returns the self-pause recorded in conds, if any.
func readSelfPause(conds []appsv1.DaemonSetCondition) (selfPause, bool) {
	c := findCondition(conds, ConditionPaused)
	if c == nil || c.Status != corev1.ConditionTrue || c.Reason != ReasonProgressDeadlineExceeded {
		return selfPause{}, false
	}
	m := selfPauseState.FindStringSubmatch(c.Message)
	if m == nil {
		return selfPause{}, false
	}
	return selfPause{Paused: m[1], Hash: m[2]}, true
}

// message is the RolloutPaused message of a self-pause, its state at the
// end.
func (s selfPause) message(deadline time.Duration) string {
	return fmt.Sprintf("paused itself: no node became updated and available for %s; change the template or the %s annotation to resume [paused=%s revision=%s]",
		deadline, progressive.AnnotationPaused, s.Paused, s.Hash)
}

// blockedCause names the cause of a rollout stopped at its deadline from
// where its desired nodes in scope stand in the plan (ro, the plan's
// read-out): progressive.Stopped, the library's one classification, which
// dsplan's preview reports too.
func blockedCause(ro *daemon.ReadOut) (reason, message string) {
	cause, message := progressive.Stopped(ro)
	return string(cause), message
}
