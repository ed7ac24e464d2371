package syncer

import (
	"context"
	"fmt"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon"
)

// DeletePods deletes the pods of deletes, each with a UID precondition,
// concurrently and at most the burst at once; one failure does not stop
// the others. The caller has raised the expectations of key by them. A
// delete that succeeds is counted in n and the metrics and passed to
// deleted (for its event); one that finds the pod gone, or its name taken
// by another pod, is observed (the pod meant is deleted either way); any
// other failure is observed too (it will never be seen), recorded as a
// FailedDelete event on ds and added to errs; one that may have been
// applied all the same marks key unsure (see writeFence).
func (s *Syncer) DeletePods(ctx context.Context, key string, ds *appsv1.DaemonSet, deletes []daemon.Delete, errs *ErrorList, deleted func(daemon.Delete)) (n int) {
	pods := s.Client.CoreV1().Pods(ds.Namespace)
	var mu sync.Mutex
	parallel(len(deletes), s.Config.BurstReplicas, func(i int) error {
		d := deletes[i]
		err := pods.Delete(ctx, d.Pod.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &d.Pod.UID}})
		switch {
		case err == nil:
			mu.Lock()
			n++
			mu.Unlock()
			s.Metrics.Actions.WithLabelValues("delete", string(d.Reason)).Inc()
			deleted(d)
			return nil
		case apierrors.IsNotFound(err), apierrors.IsConflict(err):
			s.Expectations.DeletionObserved(key, d.Pod.UID)
			return nil
		}
		s.Expectations.DeletionObserved(key, d.Pod.UID)
		if MayHaveApplied(err) {
			// The pod may be deleted all the same: the next sync waits
			// until the cache would show it.
			s.Fence.MarkUnsure(key)
		}
		s.Metrics.ActionErrors.WithLabelValues("delete").Inc()
		s.Recorder.Eventf(ds, corev1.EventTypeWarning, "FailedDelete", "Error deleting pod %s on node %s: %v", d.Pod.Name, d.NodeName, err)
		err = fmt.Errorf("delete pod %s/%s: %w", d.Pod.Namespace, d.Pod.Name, err)
		errs.Add(err)
		return err
	})
	return n
}
