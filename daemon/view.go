package daemon

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/rollout"
)

// nodeInfo is what one plan knows of one existing node beyond what the
// rolling-update step is given (its rollout.Node in cluster.nodes, at the
// same index).
type nodeInfo struct {
	node           *corev1.Node
	shouldContinue bool
	// terminal: a pod of the node is failed or succeeded and not being
	// deleted. running counts the pods neither being deleted nor terminal.
	// With both, the create/delete pass decides most nodes without
	// reading their pods again.
	terminal bool
	running  int32
}

// podKind is what the create/delete pass needs to know of a pod of a node.
type podKind uint8

const (
	podRunning  podKind = iota // neither being deleted nor failed or succeeded
	podTerminal                // failed or succeeded, not being deleted
	podDeleting                // being deleted
)

func kindOf(p *placedPod) podKind {
	switch {
	case p.state.Deleting:
		return podDeleting
	case p.terminal:
		return podTerminal
	}
	return podRunning
}

// view is what a cluster knows of one plan's input; build sets all of it.
type view struct {
	// nodes are the existing nodes in name order, each with its name, its
	// eligibility (ShouldRun) and the pods that target it (Pods, terminal
	// pods being deleted excluded, sorted by pod name, with their judged
	// States; subslices of grouped and states): the rolling-update step's
	// view, which it is given as is, with no copy. info[i] is the rest of
	// what the plan knows of nodes[i].
	nodes []rollout.Node
	info  []nodeInfo
	// missing are the groups of pods targeting nodes not in the node list,
	// sorted by node name, as Missing nodes.
	missing []rollout.Node
	// claimed are the pods the DaemonSet controls after the claim (adopted
	// ones included), sorted by name (names are unique: a name claimed
	// twice is an error); adopt and release are the claim's changes, sorted
	// by name, then UID.
	claimed, adopt, release []*corev1.Pod
	// unplaced are claimed pods with no resolvable target node.
	unplaced []*corev1.Pod
	// placed are the claimed pods with a target node, terminal pods being
	// deleted included, in the order of the caller's pods.
	placed []placedPod
	// grouped holds the pods of placed that are not terminal and being
	// deleted, ordered by target node name, then pod name: the pods every
	// node decision looks at.
	grouped []*corev1.Pod
	// states[i] is the judged state of grouped[i]: each pod is judged once
	// per plan, and the create/delete pass, the rolling step, the status and
	// the requeue share the verdict.
	states []rollout.PodState
}

// placedPod is a claimed pod with its target node and, unless it is
// terminal and being deleted (gone), its state.
type placedPod struct {
	node     string
	pod      *corev1.Pod
	gone     bool
	terminal bool // failed or succeeded
	state    rollout.PodState
}
