package daemon

import (
	"reflect"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon/backoff"
	"github.com/daemonplan/daemonplan/rollout"
)

// Reason says why a plan creates or deletes a pod. Its values complete the
// sentence "the pod is created/deleted because ...". It is rollout.Reason:
// a decision keeps one shape from the rolling-update step, or the
// create/delete pass, to the plan's Create or Delete. The rolling step's
// reasons are declared in package rollout and repeated here.
type Reason = rollout.Reason

// The reasons of creates.
const (
	// ReasonNodeNeedsPod: the node should run a daemon pod and has none.
	ReasonNodeNeedsPod Reason = "NodeNeedsPod"
	// ReasonSurgeForUnavailable: see rollout.ReasonSurgeForUnavailable.
	ReasonSurgeForUnavailable = rollout.ReasonSurgeForUnavailable
	// ReasonSurge: see rollout.ReasonSurge.
	ReasonSurge = rollout.ReasonSurge
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
	// ReasonSurgeReplaced: see rollout.ReasonSurgeReplaced; the create/delete
	// pass uses it too, for an old pod no longer ready beside a new one.
	ReasonSurgeReplaced = rollout.ReasonSurgeReplaced
	// ReasonRollingUpdate: see rollout.ReasonRollingUpdate.
	ReasonRollingUpdate = rollout.ReasonRollingUpdate
	// ReasonReplaceUnavailable: see rollout.ReasonReplaceUnavailable.
	ReasonReplaceUnavailable = rollout.ReasonReplaceUnavailable
	// ReasonIneligibleUnderSurge: see rollout.ReasonIneligibleUnderSurge.
	ReasonIneligibleUnderSurge = rollout.ReasonIneligibleUnderSurge
)

// Create asks for one daemon pod on one node: rollout.Create, whose Pod a
// plan always fills in. The Pod is the complete object to POST in the
// DaemonSet's namespace: generateName "<ds>-", template labels and
// annotations with the controller-revision-hash (and
// pod-template-generation) labels, the daemon tolerations, the affinity
// bound to NodeName and the controller reference. It is a new object owned
// by the plan.
type Create = rollout.Create

// Delete asks for one pod to be deleted: rollout.Delete. Its Pod is the
// caller's pod, unmodified.
type Delete = rollout.Delete

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

// SkipOf returns why a sync of ds does nothing by design, SkipNone when it
// plans: SkipSelectsAll when the selector is exactly {} (checked first, as
// upstream does), else SkipDeleting when ds has a deletionTimestamp. It is
// the one rule Compute and the what-if answers skip by. A nil
// ds gives SkipNone. It modifies nothing.
func SkipOf(ds *appsv1.DaemonSet) Skip {
	switch {
	case ds == nil:
		return SkipNone
	case reflect.DeepEqual(ds.Spec.Selector, &metav1.LabelSelector{}):
		return SkipSelectsAll
	case ds.DeletionTimestamp != nil:
		return SkipDeleting
	}
	return SkipNone
}

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
	// becomes available after minReadySeconds, a wave's bake ends); 0 when
	// none.
	RequeueAfter time.Duration
	// FailedPodBackoff is the backoff state to pass to the next Compute.
	FailedPodBackoff backoff.State
	// TemplateSkew, when non-nil, is why the plan asks for nothing: the
	// DaemonSet's newest ControllerRevision holds fields of the pod
	// template this build's k8s.io/api types do not know (the cluster is
	// newer than the build), so the template it decoded cannot be matched
	// to the revision kube-controller-manager recorded for it (see
	// rollout.TemplateSkewError for the identity rule). Compute returns
	// the same value as the cause of its *Error (StageHistory). A
	// controller holds the DaemonSet (deletes, creates and revision writes)
	// until it is upgraded; nothing else in the plan is set but Status (the
	// stored one) and FailedPodBackoff.
	TemplateSkew *rollout.TemplateSkewError
	// Standing says where each node stands: its pods judged, its hold and
	// its wave under the policy. nil unless Options.ReportStanding asks for it,
	// and when the plan is skipped or stops at an error before the pods
	// are judged.
	Standing *Standing
}

// IsZero reports whether the plan asks for nothing: no pod or revision
// changes, no status write and no requeue. Hash, Status, Rolling, Skip,
// Unplaced, Events and FailedPodBackoff are not considered.
func (p Plan) IsZero() bool {
	return len(p.Creates) == 0 && len(p.Deletes) == 0 && len(p.Adopt) == 0 &&
		len(p.Release) == 0 && p.History.IsZero() && !p.StatusChanged &&
		p.RequeueAfter == 0
}

// Standing is where each node stands in a plan: what the plan judged of
// every node and pod, said once so that no program has to walk the pods
// again. A plan carries one when Options.ReportStanding asks for it (see
// Plan.Standing). It belongs to the plan: later plans, of a Planner too,
// do not change it. Its pods and nodes are the caller's.
type Standing struct {
	// Nodes are the existing nodes in name order, then the missing nodes
	// (node names pods target that are not in the node list) in name
	// order.
	Nodes []NodeStanding
	// Waves are the names of the waves of the nodes that should run the
	// pod or have pods (NodeStanding.Wave), in the order the rollout starts
	// them: CanaryWave first, then the order-label groups in
	// RolloutPolicy.CompareNodes order (or RestWave); nil without
	// Options.Rollout.Order.Label and Canary.
	Waves []string
	// Paused is the rolling-update step Options.Rollout.Paused held back:
	// the step the plan would have run, and what it would have asked for,
	// had the rollout not been paused (nil when the plan is not paused, or
	// the step would not have run: the create/delete pass acted, or the
	// strategy is not RollingUpdate). PausedErr is that step's error (an
	// *Error of StageRollingUpdate: an invalid budget, a surge step over a
	// pod on a missing node), which the plan does not return while it is
	// paused.
	Paused    *RollingStep
	PausedErr error
	// BurstReplicas is the cap on creates, and on deletes, the plan
	// applied (Options.BurstReplicas, or DefaultBurstReplicas).
	BurstReplicas int
}

// NodeStanding is where one node stands in a plan.
type NodeStanding struct {
	// Name is the node's name; Node the caller's node, nil when Missing.
	Name string
	Node *corev1.Node
	// Missing: pods target the node but it is not in the node list.
	Missing bool
	// ShouldRun: a daemon pod should run on the node (a desired node,
	// counted in desiredNumberScheduled); never for a missing node.
	ShouldRun bool
	// Held says whether, and why, the policy keeps the node's pods as they
	// are (HeldNone when it does not); see KeepReason.
	Held KeepReason
	// Wave is the node's wave: CanaryWave for a node in the canary (see
	// RolloutPolicy.CanaryNodes), RolloutPolicy.WaveOf otherwise (its
	// order-label group, or RestWave); "" without Options.Rollout's
	// Order.Label and Canary.
	Wave string
	// Pods are the DaemonSet's pods targeting the node, sorted by name
	// (terminal pods being deleted left out), and States their judgement
	// against the current revision at Options.Now, index for index:
	// Updated (the current revision; old otherwise), Ready, Available,
	// Deleting.
	Pods   []*corev1.Pod
	States []rollout.PodState
	// Oldest is the index in Pods of the pod the status counts on the node
	// (scheduled first, then by creation time, then name); -1 without
	// pods.
	Oldest int
}

// KeepReason is why a policy keeps a node's pods as they are: the
// reason a node is held.
type KeepReason string

// The holds, for desired nodes (Held is HeldScope for any node outside the
// scope, desired or not).
const (
	// HeldNone: the policy does not hold the node.
	HeldNone KeepReason = ""
	// HeldScope: the node is outside RolloutPolicy.Scope (missing nodes
	// are outside any scope).
	HeldScope KeepReason = "Scope"
	// HeldPartition: the node runs only old pods and is among the last
	// ones in update order (unavailable old pods go first, then available
	// ones, each in the policy's order) that RolloutPolicy.Partition
	// keeps.
	HeldPartition KeepReason = "Partition"
	// HeldWave: the node runs only old pods, in a wave after the one the
	// wave barrier (RolloutPolicy.Waves, or Canary) has open.
	HeldWave KeepReason = "Wave"
	// HeldPaused: the node runs only old pods and RolloutPolicy.Paused
	// holds the rollout.
	HeldPaused KeepReason = "Paused"
)

// HasUpdated reports whether a live (not deleting) pod of n runs the
// current revision.
func (n *NodeStanding) HasUpdated() bool {
	return slices.ContainsFunc(n.States, func(s rollout.PodState) bool { return s.Updated && !s.Deleting })
}

// HasOld reports whether a live pod of n runs an old revision.
func (n *NodeStanding) HasOld() bool {
	return slices.ContainsFunc(n.States, func(s rollout.PodState) bool { return !s.Updated && !s.Deleting })
}

// HasAvailable reports whether a live pod of n is available.
func (n *NodeStanding) HasAvailable() bool {
	return slices.ContainsFunc(n.States, func(s rollout.PodState) bool { return s.Available && !s.Deleting })
}

// Live returns the number of n's pods that are not being deleted.
func (n *NodeStanding) Live() int {
	live := 0
	for _, s := range n.States {
		if !s.Deleting {
			live++
		}
	}
	return live
}
