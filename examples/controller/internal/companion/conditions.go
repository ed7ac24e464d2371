package companion

import (
	"encoding/json"
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
	// ReasonUpdating while pods are being replaced, ReasonWaitingForApproval
	// while it waits after a wave named in pause-after,
	// ReasonOutsideWindow while no maintenance window is open, or
	// ReasonComplete once the rollout is complete under the policy; False
	// while it is paused (ReasonPaused), stopped at its progress deadline
	// (ReasonProgressDeadlineExceeded) or by a health gate
	// (ReasonHealthGateFailed), while an annotation names nothing of the
	// cluster (ReasonUnresolvedReference), when the rollout annotations
	// cannot be planned (syncer.ReasonInvalidAnnotations,
	// syncer.ReasonSurgeUnsupported), or when they will not be carried out
	// (ReasonAnnotationsIgnored: the DaemonSet is not OnDelete). Its
	// message says where the rollout
	// is and ends with "(generation N)", the DaemonSet generation it
	// describes.
	ConditionProgressing appsv1.DaemonSetConditionType = "RolloutProgressing"
	// ConditionPaused is True while the rollout is paused, by the paused
	// annotation (ReasonPausedByAnnotation) or by itself (a latch: at its
	// progress deadline, ReasonProgressDeadlineExceeded, or on a failed
	// health gate, ReasonHealthGateFailed), and False otherwise. Waiting
	// for an approval or a window is not a pause.
	ConditionPaused appsv1.DaemonSetConditionType = "RolloutPaused"
	// ConditionBlocked is True from the moment the rollout stops itself
	// until it is resumed, and while an annotation names something the
	// cluster does not have (ReasonUnresolvedReference, until the
	// annotation or the cluster changes), and False otherwise. Its reason
	// is the cause:
	// ReasonHealthGateFailed (the message names the signals, pods and
	// nodes), or at the progress deadline where the nodes stand
	// (ReasonNewRevisionUnavailable, ReasonNodesNotReady,
	// ReasonPodsMissing, ReasonOldPodsUnavailable, ReasonNoProgress).
	ConditionBlocked appsv1.DaemonSetConditionType = "RolloutBlocked"

	// ConditionReconciling and ConditionStalled are the generic
	// conditions kstatus (sigs.k8s.io/cli-utils/pkg/kstatus) reads on any
	// kind, and with it Flux, kpt and Config Sync: Reconciling True while
	// a rollout is under way (RolloutProgressing True and not complete:
	// updating, or waiting for an approval or a window; its reason and
	// message are RolloutProgressing's), False otherwise; Stalled True
	// while the rollout is blocked (RolloutBlocked True, with its reason
	// and message) or its annotations are refused, False otherwise. A
	// blocked rollout is never Reconciling, so kstatus says Failed.
	ConditionReconciling appsv1.DaemonSetConditionType = "Reconciling"
	ConditionStalled     appsv1.DaemonSetConditionType = "Stalled"
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
	// The holds of progressive.Gates: a failed health gate (a latch),
	// an approval point, a closed maintenance window.
	ReasonHealthGateFailed   = string(progressive.HoldHealthGate)
	ReasonWaitingForApproval = string(progressive.HoldApproval)
	ReasonOutsideWindow      = string(progressive.HoldWindow)
	// ReasonAnnotationsIgnored is RolloutProgressing's (False), and the
	// Warning event's, on a DaemonSet whose rollout annotations are inert
	// (progressive.Inert: not OnDelete, so kube-controller-manager rolls it
	// out by itself).
	ReasonAnnotationsIgnored = "RolloutAnnotationsIgnored"
	// ReasonUnresolvedReference is RolloutBlocked's, Stalled's and
	// RolloutProgressing's (False) while an annotation names something the
	// cluster does not have (progressive.HoldUnresolved): the message
	// names the key, the value and what there is.
	ReasonUnresolvedReference = string(progressive.HoldUnresolved)
	// ReasonRollingBack is Reconciling's and Stalled's while on-failure
	// rollback writes the previous revision's template back: a rollout
	// under way again, not a stalled one.
	ReasonRollingBack = "RollingBack"
	// messageNotPaused and messageNotBlocked are the messages of
	// RolloutPaused and RolloutBlocked False: a condition's message
	// describes its current status.
	messageNotPaused  = "the rollout is not paused"
	messageNotBlocked = "the rollout is not stopped at a progress deadline or by a health gate"
	// Causes of a rollout blocked at its deadline, from where the
	// unavailable desired nodes in scope stand in the plan
	// (blockedCause), the first that applies.
	ReasonNewRevisionUnavailable = string(progressive.StopNewRevisionUnavailable)
	ReasonNodesNotReady          = string(progressive.StopNodesNotReady)
	ReasonPodsMissing            = string(progressive.StopPodsMissing)
	ReasonOldPodsUnavailable     = string(progressive.StopOldPodsUnavailable)
	ReasonNoProgress             = string(progressive.StopNoProgress)
)

var ownConditions = []appsv1.DaemonSetConditionType{ConditionProgressing, ConditionPaused, ConditionBlocked, ConditionReconciling, ConditionStalled}

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
// the one in have when neither the status nor the reason changed, now
// otherwise. A change of reason is a transition too: RolloutProgressing
// going from WaitingForApproval or OutsideWindow back to Updating starts
// the progress clock again (progressSince), and RolloutBlocked's time is
// when its cause began.
func conditionChanges(have, want []appsv1.DaemonSetCondition, now time.Time) []appsv1.DaemonSetCondition {
	var out []appsv1.DaemonSetCondition
	for _, w := range want {
		h := findCondition(have, w.Type)
		if h != nil && h.Status == w.Status && h.Reason == w.Reason && h.Message == w.Message {
			continue
		}
		w.LastTransitionTime = metav1.NewTime(now)
		if h != nil && h.Status == w.Status && h.Reason == w.Reason {
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

// blockedCause names the cause of a rollout stopped at its deadline from
// where its desired nodes in scope stand in the plan (ro, the plan's
// read-out): progressive.Stopped, the library's one classification, which
// dsplan's preview reports too.
func blockedCause(ro *daemon.ReadOut) (reason, message string) {
	cause, message := progressive.Stopped(ro)
	return string(cause), message
}
