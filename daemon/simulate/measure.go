package simulate

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/affinity"
	"github.com/daemonplan/daemonplan/daemon/apply"
	"github.com/daemonplan/daemonplan/daemon/eligibility"
	"github.com/daemonplan/daemonplan/rollout"
)

// applyEvent makes one cluster event happen at Now and returns how
// StepTrace.Events names it.
func (s *sim) applyEvent(e Event) string {
	c, now := s.c, s.c.Now
	desc := e.String()
	switch e.Kind {
	case NodeJoin:
		if e.Node == nil {
			return desc
		}
		n := e.Node.DeepCopy()
		if i, ok := s.nodeAt[n.Name]; ok {
			c.Nodes[i] = n
		} else {
			c.Nodes = append(c.Nodes, n)
		}
		s.reindexNodes()
		s.release(n.Name)
	case NodeLeave:
		if i, ok := s.nodeAt[e.NodeName]; ok {
			c.Nodes = slices.Delete(c.Nodes, i, i+1)
			s.reindexNodes()
		}
		for _, p := range c.Pods {
			if p != nil && p.Spec.NodeName == e.NodeName {
				s.removePod(podName(p))
			}
		}
	case NodeNotReady, NodeReady:
		ready := e.Kind == NodeReady
		i, ok := s.nodeAt[e.NodeName]
		if !ok {
			return desc
		}
		n := c.Nodes[i].DeepCopy()
		SetNodeReady(n, ready, now)
		c.Nodes[i] = n
		s.shouldRun = nil
		if ready {
			for _, name := range s.unreadied[e.NodeName] {
				if p := s.pod(name); p != nil && p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
					s.updatePod(name, func(p *corev1.Pod) { setPodReady(p, true, now) })
				}
			}
			delete(s.unreadied, e.NodeName)
			s.release(e.NodeName)
			break
		}
		for _, p := range c.Pods {
			if p == nil || p.Spec.NodeName != e.NodeName || p.Status.Phase != corev1.PodRunning || p.DeletionTimestamp != nil || !podReady(p) {
				continue
			}
			name := podName(p)
			s.unreadied[e.NodeName] = append(s.unreadied[e.NodeName], name)
			s.updatePod(name, func(p *corev1.Pod) { setPodReady(p, false, now) })
		}
	case TemplateChange:
		changed := c.DaemonSet.DeepCopy()
		if len(changed.Spec.Template.Spec.Containers) > 0 {
			changed.Spec.Template.Spec.Containers[0].Image = e.Image
		}
		ds, _, err := apply.Update(c.DaemonSet, changed)
		if err != nil {
			return desc + " (refused: " + err.Error() + ")"
		}
		c.DaemonSet = ds
		s.shouldRun = nil
	}
	return desc
}

// nodeReady reports whether the node exists and is Ready.
func (s *sim) nodeReady(name string) bool {
	i, ok := s.nodeAt[name]
	return ok && nodeIsReady(s.c.Nodes[i])
}

func nodeIsReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// measure returns Down and Surge (see StepTrace) and the budgets. It reads
// every pod once and judges placement once per node and template.
func (s *sim) measure() (down, surge int, b Budgets) {
	c := s.c
	ds := c.DaemonSet
	if len(s.shouldRun) != len(c.Nodes) {
		elig := eligibility.New(ds, c.EnableTaintTolerationComparisonOperators)
		s.shouldRun = make([]bool, len(c.Nodes))
		for i, n := range c.Nodes {
			s.shouldRun[i], _ = elig.ShouldRun(n)
		}
	}
	liveAvailable := make([]bool, len(c.Nodes))
	running := make([]int32, len(c.Nodes))
	for _, p := range c.Pods {
		if p.Namespace != ds.Namespace || !ownsPod(ds, p) {
			continue
		}
		target := p.Spec.NodeName
		if target == "" {
			var err error
			if target, err = affinity.GetTargetNodeName(p); err != nil {
				continue
			}
		}
		i, ok := s.nodeAt[target]
		if !ok || p.DeletionTimestamp != nil {
			continue
		}
		if !liveAvailable[i] && rollout.IsPodAvailable(p, ds.Spec.MinReadySeconds, c.Now) {
			liveAvailable[i] = true
		}
		if !isTerminal(p) {
			running[i]++
		}
	}
	desired := 0
	for i := range c.Nodes {
		if s.shouldRun[i] {
			desired++
			if !liveAvailable[i] {
				down++
			}
		}
		if running[i] > 1 {
			surge++
		}
	}
	return down, surge, BudgetsOf(ds, desired)
}

// daemonPodsByNode groups the DaemonSet's pods (its namespace, a
// controller reference naming it: see ownsPod) by target node; pods with no
// target are left out. c's DaemonSet and pods must not be nil.
func daemonPodsByNode(c *Cluster) map[string][]*corev1.Pod {
	ds := c.DaemonSet
	out := map[string][]*corev1.Pod{}
	for _, p := range c.Pods {
		if p.Namespace != ds.Namespace || !ownsPod(ds, p) {
			continue
		}
		if target, err := affinity.GetTargetNodeName(p); err == nil {
			out[target] = append(out[target], p)
		}
	}
	return out
}

// Converged returns nil when c is where a rollout of its DaemonSet ends,
// and otherwise an error naming the first node (by name) that is not:
//  1. no pod of the DaemonSet is being deleted or targets a node that does
//     not exist;
//  2. every node where a new pod should run runs exactly one pod of the
//     DaemonSet, available at c.Now and, unless the strategy is OnDelete,
//     updated: rollout.IsPodUpdated with hash and the DaemonSet's template
//     generation (its hash label, or its pod-template-generation label,
//     says it runs the current template);
//  3. every other node runs none, except that a node that may keep a pod
//     (only an untolerated NoSchedule taint) may keep one updated pod
//     (upstream leaves it there), or any one under OnDelete.
//
// The DaemonSet's pods are those of its namespace whose controller
// reference names it by kind, name and UID, as Compute claims pods; pods
// with no target node are not judged. A pod that is not available is
// explained: its node is NotReady, or the pod is failing (FailingReason). A nil c, a nil DaemonSet and a nil
// node or pod entry are errors (the first nil entry is named). It modifies
// nothing.
func Converged(c *Cluster, hash string) error {
	if err := clusterError(c); err != nil {
		return err
	}
	ds := c.DaemonSet
	onDelete := ds.Spec.UpdateStrategy.Type == appsv1.OnDeleteDaemonSetStrategyType
	gen, _ := rollout.GetTemplateGeneration(ds)
	updated := func(p *corev1.Pod) bool { return onDelete || rollout.IsPodUpdated(p, hash, gen) }
	elig := eligibility.New(ds, c.EnableTaintTolerationComparisonOperators)
	byNode := daemonPodsByNode(c)
	exists := make(map[string]bool, len(c.Nodes))
	for _, n := range c.Nodes {
		exists[n.Name] = true
	}
	for _, name := range slices.Sorted(maps.Keys(byNode)) {
		for _, p := range byNode[name] {
			if p.DeletionTimestamp != nil {
				return fmt.Errorf("pod %s on node %q is still being deleted", p.Name, name)
			}
			if !exists[name] {
				return fmt.Errorf("pod %s targets node %q, which does not exist", p.Name, name)
			}
		}
	}
	nodes := slices.Clone(c.Nodes)
	slices.SortFunc(nodes, func(a, b *corev1.Node) int { return cmp.Compare(a.Name, b.Name) })
	for _, n := range nodes {
		pods := byNode[n.Name]
		run, keep := elig.ShouldRun(n)
		switch {
		case run && len(pods) != 1:
			return fmt.Errorf("node %q should run one pod and runs %d", n.Name, len(pods))
		case run && !rollout.IsPodAvailable(pods[0], ds.Spec.MinReadySeconds, c.Now):
			if !nodeIsReady(n) {
				return fmt.Errorf("node %q is NotReady: its pod %s cannot become available", n.Name, pods[0].Name)
			}
			if why := FailingReason(pods[0], c.Now); why != "" {
				return fmt.Errorf("node %q runs pod %s, which is not available (%s)", n.Name, pods[0].Name, why)
			}
			return fmt.Errorf("node %q runs pod %s, which is not available", n.Name, pods[0].Name)
		case run && !updated(pods[0]):
			return fmt.Errorf("node %q runs pod %s, which is not updated (revision %q, current %q)", n.Name, pods[0].Name, pods[0].Labels[appsv1.ControllerRevisionHashLabelKey], hash)
		case run:
		case len(pods) == 0:
		case !keep || len(pods) > 1:
			return fmt.Errorf("node %q may not run the pod and runs %d", n.Name, len(pods))
		case !updated(pods[0]):
			return fmt.Errorf("node %q may not get a new pod and keeps pod %s, which is not updated", n.Name, pods[0].Name)
		}
	}
	return nil
}

// clusterError returns nil when Converged can judge c, and otherwise an
// error for a nil c, a nil DaemonSet, or the first nil node or pod entry.
func clusterError(c *Cluster) error {
	switch {
	case c == nil:
		return errors.New("no cluster")
	case c.DaemonSet == nil:
		return errors.New("no DaemonSet")
	}
	if i := slices.Index(c.Nodes, nil); i >= 0 {
		return fmt.Errorf("nodes[%d] is nil", i)
	}
	if i := slices.Index(c.Pods, nil); i >= 0 {
		return fmt.Errorf("pods[%d] is nil", i)
	}
	return nil
}

// simulable returns nil when Run can simulate c: clusterError, and no nil
// revision entry either (Compute refuses all of them).
func simulable(c *Cluster) error {
	if err := clusterError(c); err != nil {
		return err
	}
	if i := slices.Index(c.Revisions, nil); i >= 0 {
		return fmt.Errorf("revisions[%d] is nil", i)
	}
	return nil
}

// ownsPod reports whether pod's controller reference (its first owner
// reference with controller set) names ds by kind, name and UID.
func ownsPod(ds *appsv1.DaemonSet, pod *corev1.Pod) bool {
	ref := metav1.GetControllerOfNoCopy(pod)
	return ref != nil && ref.Kind == "DaemonSet" && ref.Name == ds.Name && ref.UID == ds.UID
}

// isTerminal reports whether the pod has ended (Failed or Succeeded).
func isTerminal(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded
}
