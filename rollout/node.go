package rollout

import (
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Node is what the rolling-update step knows of one node: where it stands
// (Missing, ShouldRun), its pods, and what a Policy says of it (Frozen, Rank,
// Domain, Wave). The policy facts are the zero value under upstream's step.
type Node struct {
	Name string
	// Missing is true for a node name that pods target but that is not in
	// the node list. A missing node never counts as desired.
	Missing bool
	// ShouldRun is the placement verdict for a new daemon pod on the node
	// (ignored when Missing).
	ShouldRun bool
	// Frozen keeps the node's pods as they are, old or new, available or not
	// (a node outside a policy's scope): the step starts no replacement on
	// it. A held node still counts in the budgets as upstream counts it.
	Frozen bool
	// Rank orders the nodes for update, ascending, ties broken by node
	// name; all 0 (the default) is by name. Unavailable old pods are still
	// replaced before available ones, each kind in this order. (Rank,
	// Domain and Wave are int32 and Frozen sits beside ShouldRun, so that the
	// policy facts cost a Node 8 bytes.)
	Rank int32
	// Pods are the DaemonSet's pods targeting the node, terminal pods that
	// are being deleted excluded. Pods that are being deleted (but are not
	// terminal) may be present; the step ignores them, and nil entries.
	Pods []*corev1.Pod
	// States, when non-nil, holds StateOf for each of Pods (the same
	// length, index for index), judged with the hash, template generation,
	// minReadySeconds and now the step is given: a caller that judged the
	// pods already saves the step from judging them again, and from reading
	// them at all (the step then knows a pod is being deleted from its
	// state's Deleting). When nil, the step judges them itself.
	States []PodState
	// Domain identifies the node's failure domain for Policy's per-domain
	// budgets: nodes with equal Domain share one. It is ignored when the
	// Policy sets no per-domain budget.
	Domain int32
	// Wave is the node's wave under Policy.Waves: waves are started in
	// increasing order (see WaveBarrier). Ignored without a barrier.
	Wave int32
}

// PodState is what one sync needs to know of a pod's progress, judged once.
type PodState struct {
	// Updated: the pod runs the current template (IsPodUpdated).
	Updated bool
	// Ready: the pod's Ready condition is true (IsPodReady).
	Ready bool
	// Available: the pod is ready for at least minReadySeconds
	// (IsPodAvailable).
	Available bool
	// Deleting: the pod has a deletion timestamp. The step passes over such
	// pods; keeping the fact here spares it reading every pod again.
	Deleting bool
}

// StateOf judges pod against the current revision hash and template
// generation, and its availability at now with minReadySeconds. A nil pod
// has the zero state.
func StateOf(pod *corev1.Pod, hash string, generation *int64, minReadySeconds int32, now time.Time) PodState {
	if pod == nil {
		return PodState{}
	}
	st := PodState{Updated: IsPodUpdated(pod, hash, generation), Ready: IsPodReady(pod), Deleting: pod.DeletionTimestamp != nil}
	st.Available = st.Ready && IsPodAvailable(pod, minReadySeconds, now)
	return st
}
