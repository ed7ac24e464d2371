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

// The condition types the companion writes to a DaemonSet's status,
// spelt by the library (progressive.ConditionProgressing, ...), which
// says what each means; every program that reads them (kubectl dsplan
// rollout status, the Argo CD health check) reads the same constants.
// kube-controller-manager writes no condition of a DaemonSet, and keeps
// every condition it finds (it updates the status it read).
//
// How the companion sets them, by outcome (README, "Outcomes"):
//   - updating: RolloutProgressing True Updating, Reconciling True;
//   - waiting for an approval or outside a window: RolloutProgressing True
//     WaitingForApproval or OutsideWindow, Reconciling True;
//   - complete: RolloutProgressing True RolloutComplete; a pod of the
//     completed revision failing a health gate afterwards is reported
//     (PodsFailing, a Warning event), not a stop;
//   - paused by the annotation: RolloutProgressing False Paused,
//     RolloutPaused True PausedByAnnotation;
//   - stopped by itself (progress deadline, health gate; an Outcome in
//     rollout.daemonplan.io/outcome): RolloutProgressing False,
//     RolloutPaused and RolloutBlocked True, Stalled True;
//   - rolled back (on-failure: rollback, or rollout undo; an Outcome):
//     RolloutProgressing False RolledBack, Stalled True RolledBack;
//   - an annotation names nothing of the cluster (a typo of a wave, a
//     label key or value): RolloutProgressing False, RolloutBlocked and
//     Stalled True, all UnresolvedReference, until the annotation or the
//     cluster changes; nothing is deleted;
//   - annotations refused: RolloutProgressing False InvalidAnnotations
//     or SurgeUnsupported, Stalled True;
//   - annotations inert (the DaemonSet is not OnDelete): RolloutProgressing
//     False RolloutAnnotationsIgnored and a Warning event.
//
// Every RolloutProgressing message ends with the generation it describes
// (progressive.WithGeneration).
const (
	ConditionProgressing = progressive.ConditionProgressing
	ConditionPaused      = progressive.ConditionPaused
	ConditionBlocked     = progressive.ConditionBlocked
	ConditionReconciling = progressive.ConditionReconciling
	ConditionStalled     = progressive.ConditionStalled
)

// Condition reasons: the library's (progressive.Reason*), named here
// for the companion's code and the e2e suite; none is spelt here.
const (
	ReasonUpdating                 = progressive.ReasonUpdating
	ReasonComplete                 = progressive.ReasonComplete
	ReasonPaused                   = progressive.ReasonPaused
	ReasonPausedByAnnotation       = progressive.ReasonPausedByAnnotation
	ReasonProgressDeadlineExceeded = progressive.ReasonProgressDeadlineExceeded
	ReasonNotPaused                = progressive.ReasonNotPaused
	ReasonNotBlocked               = progressive.ReasonNotBlocked
	ReasonHealthGateFailed         = progressive.ReasonHealthGateFailed
	ReasonWaitingForApproval       = progressive.ReasonWaitingForApproval
	ReasonOutsideWindow            = progressive.ReasonOutsideWindow
	ReasonRolledBack               = progressive.ReasonRolledBack
	ReasonPodsFailing              = progressive.ReasonPodsFailing
	ReasonAnnotationsIgnored       = progressive.ReasonAnnotationsIgnored
	ReasonUnresolvedReference      = progressive.ReasonUnresolvedReference
	// messageNotPaused and messageNotBlocked are the messages of
	// RolloutPaused and RolloutBlocked False: a condition's message
	// describes its current status.
	messageNotPaused  = "the rollout is not paused"
	messageNotBlocked = "the rollout is not stopped at a progress deadline or by a health gate"
	// Causes of a rollout blocked at its deadline, from where the
	// unavailable desired nodes in scope stand in the plan
	// (blockedCause), the first that applies.
	ReasonNewRevisionUnavailable = progressive.ReasonNewRevisionUnavailable
	ReasonNodesNotReady          = progressive.ReasonNodesNotReady
	ReasonPodsMissing            = progressive.ReasonPodsMissing
	ReasonOldPodsUnavailable     = progressive.ReasonOldPodsUnavailable
	ReasonNoProgress             = progressive.ReasonNoProgress
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
// standing): progressive.Stopped, the library's one classification, which
// dsplan's preview reports too.
func blockedCause(ro *daemon.Standing) (reason, message string) {
	cause, message := progressive.Stopped(ro)
	return string(cause), message
}
