package simulate

import (
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Assumptions are what a caller assumes about the trouble of a cluster
// (see OutcomeBlocked) to see the rollout that would follow once it is
// gone.
type Assumptions struct {
	// Ready names nodes assumed healthy from Cluster.Now: each turns Ready
	// (SetNodeReady) and its pods that are neither terminal nor being
	// deleted run and turn Ready (their containers running and ready,
	// init containers completed, restart counts kept).
	Ready []string
	// ExcludeNotReady removes the nodes that are NotReady after Ready is
	// applied, with the pods bound to them, as if they had left the
	// cluster.
	ExcludeNotReady bool
}

// Assume returns a copy of c with a applied, and the names of the nodes
// ExcludeNotReady removed (sorted). A name of Ready that is no node of c
// is an error naming it. c is not modified.
func Assume(c *Cluster, a Assumptions) (*Cluster, []string, error) {
	if c == nil {
		return nil, nil, errors.New("assume: no cluster")
	}
	out := c.DeepCopy()
	ready := map[string]bool{}
	for _, name := range a.Ready {
		i := slices.IndexFunc(out.Nodes, func(n *corev1.Node) bool { return n != nil && n.Name == name })
		if i < 0 {
			return nil, nil, fmt.Errorf("assume ready: node %q: not found in the cluster", name)
		}
		SetNodeReady(out.Nodes[i], true, out.Now)
		ready[name] = true
	}
	for _, p := range out.Pods {
		if p != nil && ready[p.Spec.NodeName] && p.DeletionTimestamp == nil && !isTerminal(p) {
			assumeRunning(p, out.Now)
		}
	}
	var excluded []string
	if a.ExcludeNotReady {
		out.Nodes = slices.DeleteFunc(out.Nodes, func(n *corev1.Node) bool {
			if n != nil && !nodeIsReady(n) {
				excluded = append(excluded, n.Name)
				return true
			}
			return false
		})
		slices.Sort(excluded)
		out.Pods = slices.DeleteFunc(out.Pods, func(p *corev1.Pod) bool {
			if p == nil || p.Spec.NodeName == "" {
				return false
			}
			_, gone := slices.BinarySearch(excluded, p.Spec.NodeName)
			return gone
		})
	}
	return out, excluded, nil
}

// assumeRunning makes p, a copy Assume owns, a running pod whose
// containers are running and ready, Ready from at.
func assumeRunning(p *corev1.Pod, at time.Time) {
	p.Status.Phase = corev1.PodRunning
	for i := range p.Status.InitContainerStatuses {
		cs := &p.Status.InitContainerStatuses[i]
		cs.Ready = true
		cs.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Completed", FinishedAt: metav1.Time{Time: at}}}
	}
	for i := range p.Status.ContainerStatuses {
		cs := &p.Status.ContainerStatuses[i]
		cs.Ready = true
		cs.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.Time{Time: at}}}
	}
	setPodReady(p, true, at)
}
