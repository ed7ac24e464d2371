package daemon

import (
	"cmp"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/affinity"
	"github.com/daemonplan/daemonplan/rollout"
)

// nodeState is what one plan knows of one existing node: its eligibility,
// evaluated once, and the DaemonSet's pods that target it.
type nodeState struct {
	node           *corev1.Node
	shouldRun      bool
	shouldContinue bool
	// pods target the node, terminal pods being deleted excluded; sorted by
	// pod name. A subslice of cluster.grouped.
	pods []*corev1.Pod
	// states[i] is the judged state of pods[i]. A subslice of
	// cluster.states.
	states []rollout.PodState
}

// podGroup is the pods that target a node that is not in the node list.
type podGroup struct {
	nodeName string
	pods     []*corev1.Pod
	states   []rollout.PodState
}

// cluster is the DaemonSet's view of the cluster, built once per plan: nodes
// sorted by name with their pods, pods grouped by target node in one sorted
// slice (no per-node allocation), and the pods that need special handling.
type cluster struct {
	nodes []nodeState
	// missing are the groups of pods targeting nodes not in the node list,
	// sorted by node name.
	missing []podGroup
	// unplaced are claimed pods with no resolvable target node.
	unplaced []*corev1.Pod
	// live are the claimed pods with a target node, terminal pods being
	// deleted included: their hashes keep revisions alive.
	live []*corev1.Pod
	// grouped holds the pods of every node, ordered by target node name
	// then pod name.
	grouped []*corev1.Pod
	// states[i] is the judged state of grouped[i]: each pod is judged once
	// per plan, and the create/delete pass, the rolling step, the status and
	// the requeue share the verdict.
	states []rollout.PodState
}

// podJudge judges pods against the current revision at the plan's clock.
type podJudge struct {
	hash       string
	generation *int64
	minReady   int32
	now        time.Time
}

func (j podJudge) state(pod *corev1.Pod) rollout.PodState {
	return rollout.StateOf(pod, j.hash, j.generation, j.minReady, j.now)
}

type placedPod struct {
	node string
	pod  *corev1.Pod
}

// newCluster groups claimed (sorted by name) by target node and joins the
// groups with nodes sorted by name, evaluating each node's eligibility and
// judging each pod once. It fails on duplicate node names and duplicate
// claimed pod names.
func newCluster(nodes []*corev1.Node, claimed []*corev1.Pod, elig *Eligibility, judge podJudge) (*cluster, error) {
	c := &cluster{}

	placed := make([]placedPod, 0, len(claimed))
	for i, pod := range claimed {
		if i > 0 && claimed[i-1].Name == pod.Name {
			return nil, field.Duplicate(field.NewPath("pods").Key(pod.Namespace+"/"+pod.Name), pod.Name)
		}
		target, err := affinity.GetTargetNodeName(pod)
		if err != nil {
			c.unplaced = append(c.unplaced, pod)
			continue
		}
		placed = append(placed, placedPod{node: target, pod: pod})
	}
	c.live = make([]*corev1.Pod, len(placed))
	for i := range placed {
		c.live[i] = placed[i].pod
	}
	// claimed is sorted by name, so a stable sort by node keeps name order
	// within a node.
	slices.SortStableFunc(placed, func(a, b placedPod) int { return cmp.Compare(a.node, b.node) })
	// Drop terminal pods that are being deleted: nothing is left to decide
	// about them. Compact placed in place, then mirror it in grouped.
	n := 0
	for _, p := range placed {
		if isTerminal(p.pod) && p.pod.DeletionTimestamp != nil {
			continue
		}
		placed[n] = p
		n++
	}
	nodeOf := placed[:n]
	c.grouped = make([]*corev1.Pod, n)
	c.states = make([]rollout.PodState, n)
	for i := range nodeOf {
		c.grouped[i] = nodeOf[i].pod
		c.states[i] = judge.state(nodeOf[i].pod)
	}

	order := make([]int, len(nodes))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(nodes[a].Name, nodes[b].Name), cmp.Compare(a, b))
	})
	c.nodes = make([]nodeState, len(nodes))
	g := 0 // cursor into grouped
	for k, i := range order {
		node := nodes[i]
		if k > 0 && nodes[order[k-1]].Name == node.Name {
			return nil, &DuplicateNodeError{Name: node.Name, First: order[k-1], Second: i}
		}
		for g < len(nodeOf) && nodeOf[g].node < node.Name {
			g = c.addMissing(nodeOf, g)
		}
		start := g
		for g < len(nodeOf) && nodeOf[g].node == node.Name {
			g++
		}
		run, keep := elig.ShouldRun(node)
		c.nodes[k] = nodeState{node: node, shouldRun: run, shouldContinue: keep,
			pods: c.grouped[start:g:g], states: c.states[start:g:g]}
	}
	for g < len(nodeOf) {
		g = c.addMissing(nodeOf, g)
	}
	return c, nil
}

// addMissing records the group of pods starting at g, whose node is not in
// the node list, and returns the index after it.
func (c *cluster) addMissing(nodeOf []placedPod, g int) int {
	start, name := g, nodeOf[g].node
	for g < len(nodeOf) && nodeOf[g].node == name {
		g++
	}
	c.missing = append(c.missing, podGroup{nodeName: name, pods: c.grouped[start:g:g], states: c.states[start:g:g]})
	return g
}

func isTerminal(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded
}

// compareAge orders pods the way upstream keeps the oldest one: scheduled
// pods first, then by creation time, then by name.
func compareAge(a, b *corev1.Pod) int {
	aScheduled, bScheduled := a.Spec.NodeName != "", b.Spec.NodeName != ""
	if aScheduled != bScheduled {
		if aScheduled {
			return -1
		}
		return 1
	}
	if c := a.CreationTimestamp.Time.Compare(b.CreationTimestamp.Time); c != 0 {
		return c
	}
	return cmp.Compare(a.Name, b.Name)
}

// oldest returns the index of the first pod of pods in compareAge order,
// without reordering pods. pods must not be empty.
func oldest(pods []*corev1.Pod) int {
	o := 0
	for i, p := range pods[1:] {
		if compareAge(p, pods[o]) < 0 {
			o = i + 1
		}
	}
	return o
}
