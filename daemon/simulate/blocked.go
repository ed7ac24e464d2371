package simulate

import (
	"cmp"
	"errors"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/daemon/whatif"
)

// Blocker is a desired node kept unavailable by trouble the simulator
// does not resolve (see OutcomeBlocked): its node is NotReady, or its pod
// is failing as FailingReason judges it.
type Blocker struct {
	// Node is the node's name.
	Node string
	// Pod is the name of the pod the status counts on the node
	// (whatif.UnavailableNode.Pod); "" when the node runs none.
	Pod string
	// Cause is whatif's cause of the node's unavailability:
	// whatif.CauseNodeNotReady for a NotReady node, whatif.CauseNotReady or
	// whatif.CausePending for a failing pod on a Ready node.
	Cause whatif.UnavailableCause
	// Failing is FailingReason of the pod at the end of the run
	// ("CrashLoopBackOff, 12 restarts", "ImagePullBackOff"); "" when the
	// node is NotReady and its pod is not failing by itself.
	Failing string
	// Restarts is the highest restart count of the pod's containers and
	// init containers.
	Restarts int32
}

// judgeEnd judges the cluster where the run ended: progressive.Judge of a
// plan with its standing (under the zero policy too), and the desired
// nodes whose unavailability the simulator does not resolve, by node
// name (whatif.UnavailableIn of the same standing). all says that every
// unavailable desired node is such a Blocker. A cluster Compute refuses
// gives a zero Judgement and no Blocker.
func (s *sim) judgeEnd() (j progressive.Judgement, blockers []Blocker, all bool) {
	s.compact()
	in := s.c.Input()
	opts := in.Options
	opts.ReportStanding = true
	plan, err := daemon.Compute(in.DaemonSet, in.Nodes, in.Pods, opts)
	var de *daemon.Error
	if err != nil && (!errors.As(err, &de) || de.Stage != daemon.StageRollingUpdate) || plan.Standing == nil {
		return j, nil, false
	}
	if got, jerr := progressive.Judge(in.DaemonSet, &plan); jerr == nil {
		j = got
	}
	un := whatif.UnavailableIn(in.DaemonSet, plan.Standing)
	for _, n := range un.Nodes {
		b := Blocker{Node: n.NodeName, Cause: n.Cause}
		if n.Pod != nil {
			b.Pod, b.Failing, b.Restarts = n.Pod.Name, FailingReason(n.Pod, s.c.Now), restartsOf(n.Pod)
			// A pod on a NotReady node waits for its node: only its own
			// trouble counts.
			if b.Cause == whatif.CauseNodeNotReady && strings.HasPrefix(b.Failing, "not ready for") {
				b.Failing = ""
			}
		}
		if b.Cause == whatif.CauseNodeNotReady || b.Failing != "" {
			blockers = append(blockers, b)
		}
	}
	slices.SortFunc(blockers, func(a, b Blocker) int { return cmp.Compare(a.Node, b.Node) })
	return j, blockers, len(blockers) > 0 && len(blockers) == len(un.Nodes)
}

// restartsOf is the highest restart count of p's containers.
func restartsOf(p *corev1.Pod) int32 {
	var n int32
	for _, list := range [][]corev1.ContainerStatus{p.Status.InitContainerStatuses, p.Status.ContainerStatuses} {
		for _, cs := range list {
			n = max(n, cs.RestartCount)
		}
	}
	return n
}
