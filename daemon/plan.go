package daemon

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/rollout"
)

// Reason says why a plan creates or deletes a pod. Its values complete the
// sentence "the pod is created/deleted because ...".
type Reason string

// The reasons of creates.
const (
	// ReasonNodeNeedsPod: the node should run a daemon pod and has none.
	ReasonNodeNeedsPod Reason = "NodeNeedsPod"
	// ReasonSurgeForUnavailable: a rolling update with maxSurge creates the
	// new pod at once beside an old pod that is not available.
	ReasonSurgeForUnavailable Reason = "SurgeForUnavailable"
	// ReasonSurge: a rolling update with maxSurge creates a new pod beside an
	// available old one, within maxSurge.
	ReasonSurge Reason = "Surge"
)

// The reasons of deletes.
const (
	// ReasonPodFailed: the pod failed (one per node per sync, with backoff).
	ReasonPodFailed Reason = "PodFailed"
	// ReasonPodSucceeded: the pod ran to completion.
	ReasonPodSucceeded Reason = "PodSucceeded"
	// ReasonExcessPod: the node runs more daemon pods than allowed; all but
	// the one to keep are deleted (scheduled first, then oldest, then name).
	ReasonExcessPod Reason = "ExcessPod"
	// ReasonNodeIneligible: the node may no longer run the pod (selector,
	// affinity, nodeName or an untolerated NoExecute taint).
	ReasonNodeIneligible Reason = "NodeIneligible"
	// ReasonNodeMissing: the pod was never scheduled and targets a node that
	// does not exist.
	ReasonNodeMissing Reason = "NodeMissing"
	// ReasonSurgeReplaced: with surge, an old pod whose new pod on the same
	// node is available, or which is no longer ready beside a new pod.
	ReasonSurgeReplaced Reason = "SurgeReplaced"
	// ReasonRollingUpdate: an old available pod is replaced within
	// maxUnavailable (maxSurge = 0); the next sync creates its successor.
	ReasonRollingUpdate Reason = "RollingUpdate"
	// ReasonReplaceUnavailable: an old pod that is not available is replaced
	// at once, outside the maxUnavailable budget.
	ReasonReplaceUnavailable Reason = "ReplaceUnavailable"
	// ReasonIneligibleUnderSurge: with surge, an old pod on a node that may
	// no longer run it, deleted once enough pods elsewhere are available
	// (or at once when it is not available itself).
	ReasonIneligibleUnderSurge Reason = "IneligibleUnderSurge"
)

// Create asks for one daemon pod on one node.
type Create struct {
	// NodeName is the node the pod is bound to through its node affinity.
	NodeName string
	// Pod is the complete object to POST in the DaemonSet's namespace:
	// generateName "<ds>-", template labels and annotations with the
	// controller-revision-hash (and pod-template-generation) labels, the
	// daemon tolerations, the affinity bound to NodeName and the controller
	// reference. It is a new object owned by the plan.
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

// Skip says why a plan holds no actions at all.
type Skip string

// The reasons a sync does nothing by design.
const (
	// SkipNone: the sync ran.
	SkipNone Skip = ""
	// SkipSelectsAll: the selector is {} and would select every pod of the
	// namespace; upstream emits a SelectingAll warning and does nothing.
	SkipSelectsAll Skip = "SelectingAll"
	// SkipDeleting: the DaemonSet has a deletionTimestamp; upstream does
	// nothing, not even a status update.
	SkipDeleting Skip = "DaemonSetDeleting"
)

// Event is an event the upstream controller would record on the DaemonSet
// for a decision of this plan.
type Event struct {
	// Type is corev1.EventTypeNormal or corev1.EventTypeWarning.
	Type    string
	Reason  string
	Message string
}

// RollingStep is the rolling-update step of a plan: the budget arithmetic
// and what it chose. It is nil when the step did not run.
type RollingStep = rollout.Step

// Plan is what one sync must change. Its slices are sorted as documented
// on each field and never depend on the order of Compute's inputs.
type Plan struct {
	// Skip is set when the sync does nothing by design.
	Skip Skip
	// Hash is the controller-revision-hash of the current revision, read from
	// its label as upstream does; "" when the sync stops before the revision
	// history (Skip, or an error there), and also when the current revision is
	// an existing one without that label (an unowned revision of the same name
	// and data that the plan takes over): created pods then carry no hash
	// label, as upstream's do.
	Hash string
	// Creates are sorted by node name.
	Creates []Create
	// Deletes are sorted by node name, then pod name.
	Deletes []Delete
	// Adopt are orphan pods to adopt (add the controller reference); Release
	// are controlled pods whose labels no longer match (remove it). Sorted
	// by name; the caller's pointers.
	Adopt, Release []*corev1.Pod
	// DeferredCreates and DeferredDeletes count the creates and deletes the
	// burst cap (Options.BurstReplicas) held back; a later plan asks for
	// them again.
	DeferredCreates, DeferredDeletes int
	// Unplaced are controlled pods whose target node cannot be determined
	// (no nodeName and no metadata.name node affinity). Upstream ignores
	// them; so does the plan. Sorted by name.
	Unplaced []*corev1.Pod
	// History holds the ControllerRevision changes.
	History rollout.HistoryPlan
	// Rolling is the rolling-update step; nil when it did not run (the
	// create/delete pass acted, the strategy is OnDelete, or Skip).
	Rolling *RollingStep
	// Status is the status upstream computes in this sync, with
	// observedGeneration set to the DaemonSet's generation and the other
	// fields (collisionCount, conditions) carried over.
	Status appsv1.DaemonSetStatus
	// StatusChanged is true when upstream would write Status: a counter
	// differs from the stored status, or observedGeneration is behind.
	StatusChanged bool
	// Events are the events upstream records for the decisions of this
	// sync, in the order of the decisions.
	Events []Event
	// RequeueAfter is the earliest time from Options.Now at which the plan
	// can change with no new event (a failed-pod backoff ends, a ready pod
	// becomes available after minReadySeconds); 0 when none.
	RequeueAfter time.Duration
	// FailedPodBackoff is the backoff state to pass to the next Compute.
	FailedPodBackoff Backoff
}

// IsZero reports whether the plan asks for nothing: no pod or revision
// changes, no status write and no requeue. Hash, Status, Rolling, Skip,
// Unplaced, Events and FailedPodBackoff are not considered.
func (p Plan) IsZero() bool {
	return len(p.Creates) == 0 && len(p.Deletes) == 0 && len(p.Adopt) == 0 &&
		len(p.Release) == 0 && p.History.IsZero() && !p.StatusChanged &&
		p.RequeueAfter == 0
}
