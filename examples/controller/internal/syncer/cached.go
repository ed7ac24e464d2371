package syncer

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/cache"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

// CachedDaemonSet returns the DaemonSet of key from the cache. It returns a
// nil DaemonSet when there is nothing to plan: with a nil error when the
// key names no DaemonSet (a malformed key, dropped with a log line, or a
// DaemonSet that is gone, whose state is all forgotten); with an error
// wrapping ErrCacheBehind when a cache has not yet seen the controller's
// own writes for it (the key is requeued with backoff), or, for a key with
// a pod write of unknown outcome (see writeFence), until its cached pods
// agree with the API server's; with the error of a cache that fails.
func (s *Syncer) CachedDaemonSet(ctx context.Context, key string) (*appsv1.DaemonSet, error) {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		s.Logger.Error(err, "Dropping malformed key", "daemonset", key)
		return nil, nil
	}
	// Read our own writes: plan nothing from caches that miss them.
	if err := s.Fence.behind(key); err != nil {
		return nil, fmt.Errorf("daemonset %q: %w", key, err)
	}
	ds, err := s.daemonSets.DaemonSets(ns).Get(name)
	if apierrors.IsNotFound(err) {
		s.Expectations.Forget(key)
		s.Fence.forget(key)
		s.spacing.forget(key)
		s.warnings.forget(key)
		if s.ForgetGone != nil {
			s.ForgetGone(key)
		}
		s.Logger.V(2).Info("DaemonSet is gone, state forgotten", "daemonset", key)
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("daemonset %q: read from cache: %w", key, err)
	}
	if s.Fence.isUnsure(key) {
		if err := s.cacheAgrees(ctx, ds); err != nil {
			return nil, fmt.Errorf("daemonset %q: %w", key, err)
		}
		s.Fence.clearUnsure(key)
	}
	return ds, nil
}

// cacheAgrees compares the pods of ds's selector in the cache with those
// the API server lists (a consistent read): the same pods (by UID), each
// terminating in both or in neither. Any difference, or a failed list, is
// an error wrapping ErrCacheBehind that names it. A DaemonSet without a
// selector, or whose selector does not parse, agrees (its plan is refused
// anyway; a nil selector selects nothing, but its text "" would list every
// pod of the namespace).
//
// It serves a DaemonSet with a pod write of unknown outcome: once they
// agree, whatever the write did is in the cache. It costs one List of the
// DaemonSet's pods per attempt, and only after such a write.
func (s *Syncer) cacheAgrees(ctx context.Context, ds *appsv1.DaemonSet) error {
	if ds.Spec.Selector == nil {
		return nil
	}
	sel, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector)
	if err != nil {
		return nil
	}
	live, err := s.Client.CoreV1().Pods(ds.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return fmt.Errorf("%w: a pod write may have been applied, and listing the pods failed: %w", ErrCacheBehind, err)
	}
	cached, err := s.Pods.Pods(ds.Namespace).List(sel)
	if err != nil {
		return fmt.Errorf("%w: a pod write may have been applied, and reading the cache failed: %w", ErrCacheBehind, err)
	}
	terminating := make(map[types.UID]bool, len(cached))
	for _, p := range cached {
		terminating[p.UID] = p.DeletionTimestamp != nil
	}
	for i := range live.Items {
		p := &live.Items[i]
		t, ok := terminating[p.UID]
		switch {
		case !ok:
			return fmt.Errorf("%w: pod %s is not in the cache yet", ErrCacheBehind, p.Name)
		case t != (p.DeletionTimestamp != nil):
			return fmt.Errorf("%w: the cache has not seen pod %s being deleted", ErrCacheBehind, p.Name)
		}
		delete(terminating, p.UID)
	}
	for _, p := range cached {
		if _, ok := terminating[p.UID]; ok {
			return fmt.Errorf("%w: the cache still has pod %s, which is gone", ErrCacheBehind, p.Name)
		}
	}
	return nil
}

// Cached returns what a sync plans from, read from the informers' caches:
// every node, and the pods and ControllerRevisions of namespace ns.
func (s *Syncer) Cached(ns string) ([]*corev1.Node, []*corev1.Pod, []*appsv1.ControllerRevision, error) {
	nodes, err := s.nodes.List(labels.Everything())
	if err != nil {
		return nil, nil, nil, fmt.Errorf("list nodes: %w", err)
	}
	pods, err := s.Pods.Pods(ns).List(labels.Everything())
	if err != nil {
		return nil, nil, nil, fmt.Errorf("list pods: %w", err)
	}
	revs, err := s.revisions.ControllerRevisions(ns).List(labels.Everything())
	if err != nil {
		return nil, nil, nil, fmt.Errorf("list revisions: %w", err)
	}
	return nodes, pods, revs, nil
}
