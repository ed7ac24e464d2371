package daemon

import (
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/rollout"
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
	ds         *appsv1.DaemonSet
	hash       string
	surge      bool
	minReady   int32
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
	name := n.node.Name
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
	name := n.node.Name
	// One pass decides failed and succeeded pods and counts the running
	// ones; a slice of them is only needed when there are several.
	var keep *corev1.Pod // the oldest running pod
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
			if keep == nil || compareAge(pod, keep) < 0 {
				keep = pod
			}
		}
	}
	if running == 0 {
		if m.surge && n.shouldRun {
			// Surging needs at least one live pod on the node.
			m.create(name, ReasonNodeNeedsPod)
		}
		return
	}
	if running == 1 {
		return
	}
	if !m.surge {
		// Without surge, all but the oldest running pod go.
		for _, pod := range n.pods {
			if pod != keep && isRunning(pod) {
				m.delete(pod, name, ReasonExcessPod)
			}
		}
		return
	}
	pods := make([]*corev1.Pod, 0, running)
	for _, pod := range n.pods {
		if isRunning(pod) {
			pods = append(pods, pod)
		}
	}
	// With surge, a node may run the oldest new pod beside the oldest old
	// pod; every other pod goes. The old one goes as well once it is not
	// ready, or once the new one is available.
	slices.SortFunc(pods, compareAge)
	var oldestNew, oldestOld *corev1.Pod
	for _, pod := range pods {
		isNew := pod.Labels[appsv1.ControllerRevisionHashLabelKey] == m.hash
		switch {
		case isNew && oldestNew == nil:
			oldestNew = pod
		case !isNew && oldestOld == nil:
			oldestOld = pod
		default:
			m.delete(pod, name, ReasonExcessPod)
		}
	}
	if oldestNew != nil && oldestOld != nil {
		if !rollout.IsPodReady(oldestOld) || rollout.IsPodAvailable(oldestNew, m.minReady, m.backoff.now) {
			m.delete(oldestOld, name, ReasonSurgeReplaced)
		}
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
