package daemon

import (
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// wantCreate and wantDelete are decisions before the burst cap.
type wantCreate struct {
	node   string
	reason Reason
}

type wantDelete struct {
	pod    *corev1.Pod
	node   string
	reason Reason
}

// manager runs upstream's create/delete pass (manage and
// podsShouldBeOnNode) over the cluster, in node name order.
type manager struct {
	hash       string
	surge      bool
	backoff    *backoffState
	backoffKey BackoffKey

	creates []wantCreate
	deletes []wantDelete
	events  []Event
	// backoffWait is the shortest remaining failed-pod backoff that held a
	// deletion back; 0 when none did.
	backoffWait durationMin
}

func (m *manager) create(node string, r Reason) {
	m.creates = append(m.creates, wantCreate{node: node, reason: r})
}

func (m *manager) delete(pod *corev1.Pod, node string, r Reason) {
	m.deletes = append(m.deletes, wantDelete{pod: pod, node: node, reason: r})
}

// run decides every node, then the pods of missing nodes. Deletes of
// never-scheduled pods targeting missing nodes come after every node's
// deletes, as upstream appends them last (it matters under the burst cap).
func (m *manager) run(c *cluster) {
	for i := range c.nodes {
		m.node(&c.nodes[i])
	}
	for _, g := range c.missing {
		for _, pod := range g.pods {
			if pod.Spec.NodeName == "" {
				m.delete(pod, g.nodeName, ReasonNodeMissing)
			}
		}
	}
}

func (m *manager) node(n *nodeState) {
	name := n.name
	switch {
	case n.shouldRun && len(n.pods) == 0:
		m.create(name, ReasonNodeNeedsPod)
	case n.shouldContinue:
		m.keepOnNode(n)
	case len(n.pods) > 0:
		for _, pod := range n.pods {
			if pod.DeletionTimestamp == nil {
				m.delete(pod, name, ReasonNodeIneligible)
			}
		}
	}
}

// keepOnNode handles a node whose pods may stay: failed and succeeded pods
// go, and of the running ones only what the strategy allows remains.
func (m *manager) keepOnNode(n *nodeState) {
	name := n.name
	if !n.terminal && n.running <= 1 {
		// What the walk below would conclude, without reading the pods.
		if n.running == 0 && m.surge && n.shouldRun {
			m.create(name, ReasonNodeNeedsPod)
		}
		return
	}
	// One pass decides failed and succeeded pods and counts the running
	// ones; their order is only needed when there are several.
	running := 0
	for _, pod := range n.pods {
		if pod.DeletionTimestamp != nil {
			continue
		}
		switch pod.Status.Phase {
		case corev1.PodFailed:
			m.failed(pod, name)
		case corev1.PodSucceeded:
			m.events = append(m.events, Event{
				Type:    corev1.EventTypeNormal,
				Reason:  "SucceededDaemonPod",
				Message: fmt.Sprintf("daemon pod %s/%s on node %s succeeded; deleting it", pod.Namespace, pod.Name, name),
			})
			m.delete(pod, name, ReasonPodSucceeded)
		default:
			running++
		}
	}
	switch {
	case running == 0:
		if m.surge && n.shouldRun {
			// Surging needs at least one live pod on the node.
			m.create(name, ReasonNodeNeedsPod)
		}
		return
	case running == 1:
		return
	}
	// Several running pods, oldest first (indices into n.pods, so that their
	// judged states stay at hand), as upstream orders them.
	byAge := make([]int, 0, running)
	for i, pod := range n.pods {
		if isRunning(pod) {
			byAge = append(byAge, i)
		}
	}
	slices.SortFunc(byAge, func(a, b int) int { return compareAge(n.pods[a], n.pods[b]) })
	if !m.surge {
		// Without surge, all but the oldest running pod go.
		for _, i := range byAge[1:] {
			m.delete(n.pods[i], name, ReasonExcessPod)
		}
		return
	}
	// With surge, a node may run the oldest new pod beside the oldest old
	// pod; every other pod goes. The old one goes as well once it is not
	// ready, or once the new one is available. New means carrying the
	// current hash label, as upstream tells them apart here.
	oldestNew, oldestOld := -1, -1
	for _, i := range byAge {
		isNew := n.pods[i].Labels[appsv1.ControllerRevisionHashLabelKey] == m.hash
		switch {
		case isNew && oldestNew < 0:
			oldestNew = i
		case !isNew && oldestOld < 0:
			oldestOld = i
		default:
			m.delete(n.pods[i], name, ReasonExcessPod)
		}
	}
	if oldestNew >= 0 && oldestOld >= 0 && (!n.states[oldestOld].Ready || n.states[oldestNew].Available) {
		m.delete(n.pods[oldestOld], name, ReasonSurgeReplaced)
	}
}

// failed deletes a failed pod unless the node's backoff holds it back; only
// the first failed pod of a node in one sync can pass, since passing raises
// the backoff.
func (m *manager) failed(pod *corev1.Pod, node string) {
	key := m.backoffKey
	key.NodeName = node
	if wait, held := m.backoff.inBackoff(key); held {
		m.backoffWait.add(wait)
		return
	}
	m.backoff.next(key)
	m.events = append(m.events, Event{
		Type:    corev1.EventTypeWarning,
		Reason:  "FailedDaemonPod",
		Message: fmt.Sprintf("daemon pod %s/%s on node %s failed; deleting it", pod.Namespace, pod.Name, node),
	})
	m.delete(pod, node, ReasonPodFailed)
}

// isRunning reports whether the create/delete pass counts pod as running: not
// being deleted, neither failed nor succeeded.
func isRunning(pod *corev1.Pod) bool {
	return pod.DeletionTimestamp == nil && !isTerminal(pod)
}
