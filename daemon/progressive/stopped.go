package progressive

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/rollout"
)

// StopCause names what holds a rollout that made no progress for its
// progress deadline (see Judgement.Deadline): the reason of a companion's
// RolloutBlocked condition.
type StopCause string

// The causes of a rollout stopped at its progress deadline, in the order
// Stopped picks the first that applies.
const (
	// StopNewRevisionUnavailable: updated pods on Ready nodes do not
	// become available.
	StopNewRevisionUnavailable StopCause = "NewRevisionUnavailable"
	// StopNodesNotReady: desired nodes are NotReady.
	StopNodesNotReady StopCause = "NodesNotReady"
	// StopPodsMissing: desired nodes run no pod (or only one being
	// deleted).
	StopPodsMissing StopCause = "PodsMissing"
	// StopOldPodsUnavailable: old pods on Ready nodes are unavailable.
	StopOldPodsUnavailable StopCause = "OldPodsUnavailable"
	// StopNoProgress: no desired node in scope is unavailable, yet none
	// became updated and available.
	StopNoProgress StopCause = "NoProgress"
)

// Stopped names why a rollout stopped at its progress deadline, from
// where its desired nodes in scope stand in ro (a plan's standing): the
// cause (the first of new pods not becoming available on Ready nodes,
// nodes NotReady, nodes without a pod, old pods unavailable, else
// StopNoProgress) and a message naming up to MaxReasonNodes nodes of
// every cause found. A node is judged by the pod the status counts on it
// (NodeStanding.Oldest), as kube-controller-manager's numberUnavailable
// does. A nil ro gives StopNoProgress. It modifies nothing.
func Stopped(ro *daemon.Standing) (StopCause, string) {
	var newPods, notReady, missing, oldPods []string
	if ro != nil {
		for i := range ro.Nodes {
			n := &ro.Nodes[i]
			if !n.ShouldRun || n.Held == daemon.HeldScope {
				continue
			}
			var st rollout.PodState
			if n.Oldest >= 0 {
				st = n.States[n.Oldest]
			}
			switch {
			case n.Oldest >= 0 && st.Available:
			case n.Oldest < 0 || st.Deleting:
				missing = append(missing, n.Name)
			case !nodeIsReady(n.Node):
				notReady = append(notReady, n.Name)
			case st.Updated:
				newPods = append(newPods, n.Name)
			default:
				oldPods = append(oldPods, n.Name)
			}
		}
	}
	var parts []string
	for _, g := range []struct {
		nodes []string
		say   string
	}{
		{newPods, "the new revision is not becoming available on "},
		{notReady, "nodes NotReady: "},
		{missing, "no pod yet on "},
		{oldPods, "old pods unavailable on "},
	} {
		if len(g.nodes) > 0 {
			parts = append(parts, g.say+nodeList(g.nodes))
		}
	}
	switch {
	case len(newPods) > 0:
		return StopNewRevisionUnavailable, strings.Join(parts, "; ")
	case len(notReady) > 0:
		return StopNodesNotReady, strings.Join(parts, "; ")
	case len(missing) > 0:
		return StopPodsMissing, strings.Join(parts, "; ")
	case len(oldPods) > 0:
		return StopOldPodsUnavailable, strings.Join(parts, "; ")
	}
	return StopNoProgress, "no node is unavailable, yet none became updated and available"
}

// nodeList names up to MaxReasonNodes nodes, then how many more there are.
func nodeList(names []string) string {
	if len(names) <= MaxReasonNodes {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:MaxReasonNodes], ", "), len(names)-MaxReasonNodes)
}

// nodeIsReady reports whether node's Ready condition is True or absent; a
// nil node is not Ready.
func nodeIsReady(node *corev1.Node) bool {
	if node == nil {
		return false
	}
	for i := range node.Status.Conditions {
		if node.Status.Conditions[i].Type == corev1.NodeReady {
			return node.Status.Conditions[i].Status == corev1.ConditionTrue
		}
	}
	return true
}
