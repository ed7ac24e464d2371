package controller

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// cached returns what a sync plans from, read from the informers' caches:
// every node, and the pods and ControllerRevisions of namespace ns.
func (c *Controller) cached(ns string) ([]*corev1.Node, []*corev1.Pod, []*appsv1.ControllerRevision, error) {
	nodes, err := c.nodes.List(labels.Everything())
	if err != nil {
		return nil, nil, nil, fmt.Errorf("list nodes: %w", err)
	}
	pods, err := c.pods.Pods(ns).List(labels.Everything())
	if err != nil {
		return nil, nil, nil, fmt.Errorf("list pods: %w", err)
	}
	revs, err := c.revs.ControllerRevisions(ns).List(labels.Everything())
	if err != nil {
		return nil, nil, nil, fmt.Errorf("list revisions: %w", err)
	}
	return nodes, pods, revs, nil
}
