package daemontest

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
	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/rollout"
)

// applyEvent makes one cluster event happen at Now.
func (s *sim) applyEvent(e ClusterEvent) {
	c, now := s.c, s.c.Now
	switch e.Kind {
	case NodeJoin:
		if e.Node == nil {
			return
		}
		n := e.Node.DeepCopy()
		if i := s.nodeIndex(n.Name); i >= 0 {
			c.Nodes[i] = n
		} else {
			c.Nodes = append(c.Nodes, n)
		}
	case NodeLeave:
		if i := s.nodeIndex(e.NodeName); i >= 0 {
			c.Nodes = slices.Delete(c.Nodes, i, i+1)
		}
		// removePod shifts c.Pods: iterate over a copy.
		for _, p := range slices.Clone(c.Pods) {
			if p.Spec.NodeName == e.NodeName {
				s.removePod(podName(p))
			}
		}
	case NodeNotReady, NodeReady:
		ready := e.Kind == NodeReady
		i := s.nodeIndex(e.NodeName)
		if i < 0 {
			return
		}
		n := c.Nodes[i].DeepCopy()
		setNodeReady(n, ready, now)
		c.Nodes[i] = n
		// updatePod replaces entries of c.Pods: iterate over a copy.
		for _, p := range slices.Clone(c.Pods) {
			if p.Spec.NodeName != e.NodeName || p.Status.Phase != corev1.PodRunning || p.DeletionTimestamp != nil {
				continue
			}
			status := corev1.ConditionFalse
			if ready {
				status = corev1.ConditionTrue
			}
			s.updatePod(podName(p), func(p *corev1.Pod) {
				p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: status, LastTransitionTime: metav1.Time{Time: now}}}
			})
		}
	case TemplateChange:
		ds := c.DaemonSet.DeepCopy()
		if len(ds.Spec.Template.Spec.Containers) > 0 {
			ds.Spec.Template.Spec.Containers[0].Image = e.Image
		}
		ds.Generation++
		c.DaemonSet = ds
	}
}

func (s *sim) nodeIndex(name string) int {
	return slices.IndexFunc(s.c.Nodes, func(n *corev1.Node) bool { return n.Name == name })
}

// nodeReady reports whether the node exists and is Ready.
func (s *sim) nodeReady(name string) bool {
	i := s.nodeIndex(name)
	if i < 0 {
		return false
	}
	for _, c := range s.c.Nodes[i].Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// measure returns Down and Surge (see StepTrace) and the budgets.
func (s *sim) measure() (down, surge int, b Budgets) {
	c := s.c
	ds := c.DaemonSet
	elig := daemon.NewEligibility(ds, c.EnableTaintTolerationComparisonOperators)
	byNode := daemonPodsByNode(c)
	desired := 0
	for _, n := range c.Nodes {
		run, _ := elig.ShouldRun(n)
		var liveAvailable, running int
		for _, p := range byNode[n.Name] {
			if p.DeletionTimestamp != nil {
				continue
			}
			if rollout.IsPodAvailable(p, ds.Spec.MinReadySeconds, c.Now) {
				liveAvailable++
			}
			if !isTerminal(p) {
				running++
			}
		}
		if run {
			desired++
			if liveAvailable == 0 {
				down++
			}
		}
		if running > 1 {
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
// with no target node are not judged. A nil c, a nil DaemonSet and a nil
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
	elig := daemon.NewEligibility(ds, c.EnableTaintTolerationComparisonOperators)
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

// simulable returns nil when Simulate can run c: clusterError, and no nil
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
