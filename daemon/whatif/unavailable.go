package whatif

import (
	"errors"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/rollout"
)

// UnavailableCause says why a node that should run a daemon pod counts in
// status.numberUnavailable.
type UnavailableCause string

// The causes, in the order they are tested: the first that applies wins.
const (
	// CauseNoPod: the node has no pod of the DaemonSet yet.
	CauseNoPod UnavailableCause = "NoPod"
	// CauseTerminating: the node's pod is being deleted.
	CauseTerminating UnavailableCause = "Terminating"
	// CauseNodeNotReady: the node has a Ready condition and it is not
	// True (a node without one is not blamed).
	CauseNodeNotReady UnavailableCause = "NodeNotReady"
	// CausePending: the pod is not bound to the node yet (no
	// spec.nodeName) or is in phase Pending.
	CausePending UnavailableCause = "Pending"
	// CauseNotReady: the pod runs but its Ready condition is not True.
	CauseNotReady UnavailableCause = "NotReady"
	// CauseMinReadySeconds: the pod is ready but has not yet been ready for
	// minReadySeconds.
	CauseMinReadySeconds UnavailableCause = "WithinMinReadySeconds"
)

// UnavailableNode is one node counted in status.numberUnavailable.
type UnavailableNode struct {
	NodeName string
	// Pod is the pod the status judges on the node (the oldest: scheduled
	// first, then by creation time, then name); nil for CauseNoPod.
	Pod   *corev1.Pod
	Cause UnavailableCause
	// AvailableAt is when the pod becomes available if it stays ready, for
	// CauseMinReadySeconds; zero otherwise.
	AvailableAt time.Time
}

// Unavailability breaks status.numberUnavailable down by cause.
type Unavailability struct {
	// Nodes are the nodes counted unavailable, sorted by name; there are
	// exactly status.numberUnavailable of them.
	Nodes []UnavailableNode
}

// Count returns how many nodes are unavailable for cause.
func (u Unavailability) Count(cause UnavailableCause) int {
	n := 0
	for i := range u.Nodes {
		if u.Nodes[i].Cause == cause {
			n++
		}
	}
	return n
}

// Unavailable attributes the unavailable count of the status daemon.Compute
// would write for the same input: every node that should run the pod and
// has no available one, with the cause. Compute's status counts the same
// nodes (len(Nodes) == Plan.Status.NumberUnavailable): the nodes and the
// pods judged are those of the plan's standing (daemon.Plan.Standing), the
// pod of a node being the one the status counts (NodeStanding.Oldest).
// opts.Now is the clock of availability and
// opts.EnableTaintTolerationComparisonOperators plays its part; the
// revisions, backoff, burst and rollout policy play none. A DaemonSet
// Compute skips (a {} selector, being deleted) gives the zero
// Unavailability. Input errors are Compute's (a *daemon.Error of
// daemon.StageInput, matching daemon.ErrInvalidInput: an input Compute
// cannot plan from, an invalid selector); an invalid rolling-update budget
// is not one, since no step is judged. It modifies none of its arguments;
// Nodes share the caller's pods.
func Unavailable(ds *appsv1.DaemonSet, nodes []*corev1.Node, pods []*corev1.Pod, opts daemon.Options) (Unavailability, error) {
	plan, err := daemon.Compute(ds, nodes, pods, daemon.Options{Now: opts.Now, ReportStanding: true,
		EnableTaintTolerationComparisonOperators: opts.EnableTaintTolerationComparisonOperators})
	if err != nil {
		var de *daemon.Error
		if !errors.As(err, &de) || de.Stage != daemon.StageRollingUpdate || plan.Standing == nil {
			return Unavailability{}, err
		}
	}
	return UnavailableIn(ds, plan.Standing), nil
}

// UnavailableIn is Unavailable of a plan already computed for ds, from its
// standing ro (daemon.Plan.Standing; nil, as a skipped plan's, gives the
// zero Unavailability): a caller that planned with Options.ReportStanding need
// not plan again. It modifies nothing.
func UnavailableIn(ds *appsv1.DaemonSet, ro *daemon.Standing) Unavailability {
	var u Unavailability
	if ro == nil {
		return u
	}
	for i := range ro.Nodes {
		n := &ro.Nodes[i]
		if !n.ShouldRun {
			continue
		}
		if n.Oldest < 0 {
			u.Nodes = append(u.Nodes, UnavailableNode{NodeName: n.Name, Cause: CauseNoPod})
			continue
		}
		pod, st := n.Pods[n.Oldest], n.States[n.Oldest]
		if st.Available {
			continue
		}
		un := UnavailableNode{NodeName: n.Name, Pod: pod, Cause: causeOf(n.Node, pod, st.Ready)}
		if un.Cause == CauseMinReadySeconds {
			un.AvailableAt, _ = rollout.AvailableAt(pod, ds.Spec.MinReadySeconds)
		}
		u.Nodes = append(u.Nodes, un)
	}
	return u
}

// causeOf is the cause of the unavailable pod on node; ready is its
// readiness as the plan judged it.
func causeOf(node *corev1.Node, pod *corev1.Pod, ready bool) UnavailableCause {
	switch {
	case pod.DeletionTimestamp != nil:
		return CauseTerminating
	case !nodeReady(node):
		return CauseNodeNotReady
	case pod.Spec.NodeName == "" || pod.Status.Phase == corev1.PodPending:
		return CausePending
	case !ready:
		return CauseNotReady
	default:
		return CauseMinReadySeconds
	}
}

// nodeReady reports whether node's Ready condition is True or absent.
func nodeReady(node *corev1.Node) bool {
	for i := range node.Status.Conditions {
		if node.Status.Conditions[i].Type == corev1.NodeReady {
			return node.Status.Conditions[i].Status == corev1.ConditionTrue
		}
	}
	return true
}
