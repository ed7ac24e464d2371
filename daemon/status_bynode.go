package daemon

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon/internal/readahead"
	"github.com/daemonplan/daemonplan/selector"
)

// StatusNode is one node as the status of a plan counts it: whether a
// daemon pod should run there, and the pod the status judges.
type StatusNode struct {
	// Node is the caller's node.
	Node *corev1.Node
	// ShouldRun: a daemon pod should run on the node (Eligibility.ShouldRun);
	// the node counts in desiredNumberScheduled.
	ShouldRun bool
	// Pod is the pod the status judges on the node: of the DaemonSet's pods
	// targeting it (terminal pods being deleted left out), the oldest:
	// scheduled first, then by creation time, then name. nil when the node
	// has none. The caller's pod.
	Pod *corev1.Pod
	// Ready and Available are Pod's readiness, and its availability after
	// minReadySeconds, at Options.Now; false without a Pod.
	Ready, Available bool
}

// StatusByNode returns the status Compute writes for the same input, node
// by node: every node, sorted by name, with the pod the status judges
// there. Counted, they give Plan.Status: desiredNumberScheduled is the
// nodes that ShouldRun; currentNumberScheduled those with a Pod;
// numberMisscheduled the nodes that should not run a pod but have one;
// numberReady and numberAvailable the desired nodes whose Pod is Ready,
// and Available; numberUnavailable the desired nodes without an Available
// Pod. updatedNumberScheduled has no part here: it needs the revision
// history, which StatusByNode does not build.
//
// Only opts.Now (the clock of availability) and
// opts.EnableTaintTolerationComparisonOperators play a part. A DaemonSet
// Compute skips (a {} selector, being deleted) gives nil: its plan writes
// no new status. Input errors are Compute's (an *Error of StageInput,
// matching ErrInvalidInput: an input Compute cannot plan from, an invalid
// selector), the revisions aside, which are not read. It modifies none of
// its arguments; the StatusNodes share the caller's nodes and pods. It
// costs what Compute's claim of the pods and join with the nodes cost, and
// one StatusNode per node.
func StatusByNode(ds *appsv1.DaemonSet, nodes []*corev1.Node, pods []*corev1.Pod, opts Options) ([]StatusNode, error) {
	if err := validateInput(ds, nodes, pods, nil); err != nil {
		return nil, err
	}
	if SkipOf(ds) != SkipNone {
		return nil, nil
	}
	sel, err := selector.ForDaemonSet(ds)
	if err != nil {
		return nil, NewError(ds, StageInput, err)
	}
	elig := NewEligibility(ds, opts.EnableTaintTolerationComparisonOperators)
	judge := podJudge{minReady: ds.Spec.MinReadySeconds, now: opts.Now}
	c := &cluster{}
	if err := c.build(nodes, pods, claimer{owner: selector.OwnerOf(ds), sel: sel}, elig, judge, readahead.LabelKey(&ds.Spec.Template.Spec)); err != nil {
		return nil, NewError(ds, StageInput, err)
	}
	out := make([]StatusNode, len(c.nodes))
	for i := range c.nodes {
		n := &c.nodes[i]
		out[i] = StatusNode{Node: c.info[i].node, ShouldRun: n.ShouldRun}
		if len(n.Pods) == 0 {
			continue
		}
		o := oldest(n.Pods)
		out[i].Pod, out[i].Ready, out[i].Available = n.Pods[o], n.States[o].Ready, n.States[o].Available
	}
	return out, nil
}
