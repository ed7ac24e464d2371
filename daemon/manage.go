package daemon

import (
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon/backoff"
	"github.com/daemonplan/daemonplan/rollout"
)

// manager runs upstream's create/delete pass (manage and
// podsShouldBeOnNode) over the cluster, in node name order.
type manager struct {
	hash       string
	surge      bool
	backoff    *backoff.Update
	backoffKey backoff.Key

	// creates and deletes are the decisions, in the plan's own shape (the
	// creates without their pods yet), up to burst of each: no plan carries
	// more. deferredCreates and deferredDeletes count the decisions past
	// burst, which are not kept: a fresh DaemonSet on 10,000 nodes decides
	// 10,000 creates, and keeping them grew slices of 1.7 MB a plan for the
	// 250 it carries (BENCHMARKS.md, 2026-11-27).
	creates         []Create
	deletes         []Delete
	burst           int
	deferredCreates int
	deferredDeletes int
	events          []Event
	// backoffWait is the shortest remaining failed-pod backoff that held a
	// deletion back; 0 when none did.
	backoffWait durationMin
}

func (m *manager) create(node string, r Reason) {
	if len(m.creates) >= m.burst {
		m.deferredCreates++
		return
	}
	m.creates = append(m.creates, Create{NodeName: node, Reason: r})
}

func (m *manager) delete(pod *corev1.Pod, node string, r Reason) {
	if len(m.deletes) >= m.burst {
		m.deferredDeletes++
		return
	}
	m.deletes = append(m.deletes, Delete{Pod: pod, NodeName: node, Reason: r})
}

// run decides every node, then the pods of missing nodes. Deletes of
// never-scheduled pods targeting missing nodes come after every node's
// deletes, as upstream appends them last (it matters under the burst cap).
func (m *manager) run(c *cluster) {
	for i := range c.nodes {
		m.node(&c.nodes[i], &c.info[i])
	}
	for _, g := range c.missing {
		for _, pod := range g.Pods {
			if pod.Spec.NodeName == "" {
				m.delete(pod, g.Name, ReasonNodeMissing)
			}
		}
	}
}

func (m *manager) node(n *rollout.Node, info *nodeInfo) {
	name := n.Name
	switch {
	case n.ShouldRun && len(n.Pods) == 0:
		m.create(name, ReasonNodeNeedsPod)
	case info.shouldContinue:
		m.keepOnNode(n, info)
	case len(n.Pods) > 0:
		for _, pod := range n.Pods {
			if pod.DeletionTimestamp == nil {
				m.delete(pod, name, ReasonNodeIneligible)
			}
		}
	}
}

// keepOnNode handles a node whose pods may stay: failed and succeeded pods
// go, and of the running ones only what the strategy allows remains.
func (m *manager) keepOnNode(n *rollout.Node, info *nodeInfo) {
	name := n.Name
	if !info.terminal && info.running <= 1 {
		// What the walk below would conclude, without reading the pods.
		if info.running == 0 && m.surge && n.ShouldRun {
			m.create(name, ReasonNodeNeedsPod)
		}
		return
	}
	// One pass decides failed and succeeded pods and counts the running
	// ones; their order is only needed when there are several.
	running := 0
	for _, pod := range n.Pods {
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
		if m.surge && n.ShouldRun {
			// Surging needs at least one live pod on the node.
			m.create(name, ReasonNodeNeedsPod)
		}
		return
	case running == 1:
		return
	}
	// Several running pods, oldest first (indices into n.Pods, so that their
	// judged states stay at hand), as upstream orders them.
	byAge := make([]int, 0, running)
	for i, pod := range n.Pods {
		if isRunning(pod) {
			byAge = append(byAge, i)
		}
	}
	slices.SortFunc(byAge, func(a, b int) int { return compareAge(n.Pods[a], n.Pods[b]) })
	if !m.surge {
		// Without surge, all but the oldest running pod go.
		for _, i := range byAge[1:] {
			m.delete(n.Pods[i], name, ReasonExcessPod)
		}
		return
	}
	// With surge, a node may run the oldest new pod beside the oldest old
	// pod; every other pod goes. The old one goes as well once it is not
	// ready, or once the new one is available. New means carrying the
	// current hash label, as upstream tells them apart here.
	oldestNew, oldestOld := -1, -1
	for _, i := range byAge {
		isNew := n.Pods[i].Labels[appsv1.ControllerRevisionHashLabelKey] == m.hash
		switch {
		case isNew && oldestNew < 0:
			oldestNew = i
		case !isNew && oldestOld < 0:
			oldestOld = i
		default:
			m.delete(n.Pods[i], name, ReasonExcessPod)
		}
	}
	if oldestNew >= 0 && oldestOld >= 0 && (!n.States[oldestOld].Ready || n.States[oldestNew].Available) {
		m.delete(n.Pods[oldestOld], name, ReasonSurgeReplaced)
	}
}

// failed deletes a failed pod unless the node's backoff holds it back; only
// the first failed pod of a node in one sync can pass, since passing raises
// the backoff.
func (m *manager) failed(pod *corev1.Pod, node string) {
	key := m.backoffKey
	key.NodeName = node
	if wait, held := m.backoff.Wait(key); held {
		m.backoffWait.add(wait)
		return
	}
	m.backoff.Raise(key)
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
