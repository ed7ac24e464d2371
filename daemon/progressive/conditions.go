package progressive

import (
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
)

// The status conditions a controller of these rollouts writes to a
// DaemonSet (kube-controller-manager writes none, and keeps those it
// finds), read by every program that reports a rollout: one spelling,
// here. The example controller's companion mode writes them; "kubectl
// dsplan rollout status", its Argo CD health check and kstatus read them.
const (
	// ConditionProgressing says where the rollout is: True while pods are
	// replaced (ReasonUpdating), held by an approval point
	// (ReasonWaitingForApproval) or a closed window (ReasonOutsideWindow),
	// or complete (ReasonComplete, ReasonPodsFailing); False while paused
	// (ReasonPaused), stopped (ReasonProgressDeadlineExceeded,
	// ReasonHealthGateFailed), rolled back (ReasonRolledBack) or refused
	// (ReasonInvalidAnnotations, ReasonSurgeUnsupported,
	// ReasonTemplateSkew), held by an annotation naming nothing of the
	// cluster (ReasonUnresolvedReference) or inert
	// (ReasonAnnotationsIgnored). Its message ends with the generation it
	// describes: appsv1.DaemonSetCondition has no field for it, so
	// WithGeneration writes it and ConditionGeneration reads it, and no
	// program parses the message by hand.
	ConditionProgressing appsv1.DaemonSetConditionType = "RolloutProgressing"
	// ConditionPaused is True while the rollout is paused, by the paused
	// annotation (ReasonPausedByAnnotation) or by its controller
	// (ReasonProgressDeadlineExceeded, ReasonHealthGateFailed: an Outcome
	// that holds until a person acts), False otherwise (ReasonNotPaused).
	ConditionPaused appsv1.DaemonSetConditionType = "RolloutPaused"
	// ConditionBlocked is True from the moment the rollout stops itself
	// until a person acts, with the cause as its reason
	// (ReasonHealthGateFailed, or at the progress deadline a StopCause),
	// False otherwise (ReasonNotBlocked).
	ConditionBlocked appsv1.DaemonSetConditionType = "RolloutBlocked"
	// ConditionReconciling and ConditionStalled are the generic conditions
	// kstatus (sigs.k8s.io/cli-utils/pkg/kstatus) reads on any kind, and
	// with it Flux: Reconciling True while a rollout is under way, Stalled
	// True while it is blocked, rolled back (ReasonRolledBack) or refused,
	// so that kstatus says Failed. Never both True.
	ConditionReconciling appsv1.DaemonSetConditionType = "Reconciling"
	ConditionStalled     appsv1.DaemonSetConditionType = "Stalled"
)

// The reasons of those conditions.
const (
	ReasonUpdating                 = "Updating"
	ReasonComplete                 = "RolloutComplete"
	ReasonPaused                   = "Paused"
	ReasonPausedByAnnotation       = "PausedByAnnotation"
	ReasonProgressDeadlineExceeded = string(OutcomeProgressDeadlineExceeded)
	ReasonHealthGateFailed         = string(OutcomeHealthGateFailed)
	ReasonWaitingForApproval       = string(HoldApproval)
	ReasonOutsideWindow            = string(HoldWindow)
	ReasonNotPaused                = "NotPaused"
	ReasonNotBlocked               = "NotBlocked"
	// ReasonRolledBack: the template was written back to an earlier
	// revision, by on-failure: rollback or by "kubectl dsplan rollout
	// undo" (an Outcome of OutcomeRolledBack): a failed change until a
	// person acts.
	ReasonRolledBack = string(OutcomeRolledBack)
	// ReasonPodsFailing: the rollout of the current revision completed
	// before, and pods of that revision now fail a health gate: reported
	// (the message names the revision and the pods), not a stop; the
	// gates judge a rollout under way only.
	ReasonPodsFailing = "PodsFailing"
	// ReasonInvalidAnnotations: an annotation does not parse, or the
	// annotations contradict each other or the spec.
	ReasonInvalidAnnotations = "InvalidAnnotations"
	// ReasonSurgeUnsupported: an OnDelete DaemonSet asks for surge.
	ReasonSurgeUnsupported = "SurgeUnsupported"
	// ReasonAnnotationsIgnored: RolloutProgressing False on a DaemonSet
	// whose rollout annotations are inert (Inert: it is not OnDelete, so
	// kube-controller-manager rolls it out by itself).
	ReasonAnnotationsIgnored = "RolloutAnnotationsIgnored"
	// ReasonUnresolvedReference: RolloutBlocked, Stalled and
	// RolloutProgressing (False) while an annotation names something the
	// cluster does not have (HoldUnresolved); the message names the key,
	// the value and what there is.
	ReasonUnresolvedReference = string(HoldUnresolved)
	// ReasonTemplateSkew: RolloutProgressing False and RolloutBlocked
	// True while the DaemonSet's template has a field this build does not
	// know (daemon.Plan.TemplateSkew), so no pod of it can be judged old
	// or new.
	ReasonTemplateSkew = "TemplateSkew"
)

// The reasons of RolloutBlocked for a rollout stopped at its progress
// deadline: the StopCause, from where the unavailable desired nodes in
// scope stand in the plan.
const (
	ReasonNewRevisionUnavailable = string(StopNewRevisionUnavailable)
	ReasonNodesNotReady          = string(StopNodesNotReady)
	ReasonPodsMissing            = string(StopPodsMissing)
	ReasonOldPodsUnavailable     = string(StopOldPodsUnavailable)
	ReasonNoProgress             = string(StopNoProgress)
)

// WithGeneration returns message with the generation it describes at its
// end, " (generation N)", as ConditionGeneration reads it back.
func WithGeneration(message string, generation int64) string {
	return message + " (generation " + strconv.FormatInt(generation, 10) + ")"
}

// ConditionGeneration returns the DaemonSet generation c describes, read
// from the end of its message (WithGeneration); ok is false when the
// message does not end with one. A condition that describes an earlier
// generation speaks of an earlier template.
func ConditionGeneration(c *appsv1.DaemonSetCondition) (generation int64, ok bool) {
	if c == nil {
		return 0, false
	}
	rest, found := strings.CutSuffix(c.Message, ")")
	if !found {
		return 0, false
	}
	i := strings.LastIndex(rest, " (generation ")
	if i < 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(rest[i+len(" (generation "):], 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// FindCondition returns ds's condition of type t, nil when it has none
// (or ds is nil). The result points into ds.Status.Conditions.
func FindCondition(ds *appsv1.DaemonSet, t appsv1.DaemonSetConditionType) *appsv1.DaemonSetCondition {
	if ds == nil {
		return nil
	}
	for i := range ds.Status.Conditions {
		if ds.Status.Conditions[i].Type == t {
			return &ds.Status.Conditions[i]
		}
	}
	return nil
}
