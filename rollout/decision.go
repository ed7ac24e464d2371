package rollout

import corev1 "k8s.io/api/core/v1"

// Reason says why a pod is created or deleted. Its values complete the
// sentence "the pod is created/deleted because ...". The rolling-update
// step decides with the reasons below; package daemon adds those of its
// create/delete pass and uses this one type for every decision of a plan,
// so that a decision keeps its shape from where it is made to where it is
// carried out.
type Reason string

// The reasons of the rolling-update step's creates (maxSurge > 0).
const (
	// ReasonSurgeForUnavailable: a rolling update with maxSurge creates the
	// new pod at once beside an old pod that is not available.
	ReasonSurgeForUnavailable Reason = "SurgeForUnavailable"
	// ReasonSurge: a rolling update with maxSurge creates a new pod beside an
	// available old one, within maxSurge.
	ReasonSurge Reason = "Surge"
)

// The reasons of the rolling-update step's deletes.
const (
	// ReasonRollingUpdate: an old available pod is replaced within
	// maxUnavailable (maxSurge = 0); the next sync creates its successor.
	ReasonRollingUpdate Reason = "RollingUpdate"
	// ReasonReplaceUnavailable: an old pod that is not available is replaced
	// at once, outside the maxUnavailable budget (within it under a strict
	// Policy); the next sync creates its successor.
	ReasonReplaceUnavailable Reason = "ReplaceUnavailable"
	// ReasonSurgeReplaced: with surge, an old pod whose new pod on the same
	// node is available, or which is no longer ready beside a new pod.
	ReasonSurgeReplaced Reason = "SurgeReplaced"
	// ReasonIneligibleUnderSurge: with surge, an old pod on a node that may
	// no longer run it, deleted once enough pods elsewhere are available
	// (or at once when it is not available itself).
	ReasonIneligibleUnderSurge Reason = "IneligibleUnderSurge"
)

// Create asks for one daemon pod on one node.
type Create struct {
	// NodeName is the node the pod is bound to through its node affinity.
	NodeName string
	// Pod is the complete object to create. The rolling-update step
	// decides where, not what, and leaves it nil; daemon.Compute fills it
	// in for every Create of a plan (see daemon.Create).
	Pod    *corev1.Pod
	Reason Reason
}

// Delete asks for one pod to be deleted.
type Delete struct {
	// Pod is the caller's pod, unmodified.
	Pod *corev1.Pod
	// NodeName is the node the pod targets.
	NodeName string
	Reason   Reason
}
