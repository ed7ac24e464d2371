package controller

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/cache"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// cachedDaemonSet returns the DaemonSet of key from the cache. It returns a
// nil DaemonSet when there is nothing to plan: with a nil error when the
// key names no DaemonSet (a malformed key, dropped with a log line, or a
// DaemonSet that is gone, whose state is all forgotten); with an error
// wrapping errCacheBehind when a cache has not yet seen the controller's
// own writes for it (the key is requeued with backoff); with the error of
// a cache that fails.
func (c *Controller) cachedDaemonSet(key string) (*appsv1.DaemonSet, error) {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		c.logger.Error(err, "Dropping malformed key", "daemonset", key)
		return nil, nil
	}
	// Read our own writes: plan nothing from caches that miss them.
	if err := c.fence.behind(key); err != nil {
		return nil, fmt.Errorf("daemonset %q: %w", key, err)
	}
	ds, err := c.dsLister.DaemonSets(ns).Get(name)
	if apierrors.IsNotFound(err) {
		c.expectations.Forget(key)
		c.state.forget(key)
		c.fence.forget(key)
		c.statusWrites.forget(key)
		c.spacing.forget(key)
		c.companion.forget(key)
		if c.rolloutMetrics != nil {
			c.rolloutMetrics.forget(key)
		}
		c.logger.V(2).Info("DaemonSet is gone, state forgotten", "daemonset", key)
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("daemonset %q: read from cache: %w", key, err)
	}
	return ds, nil
}

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
