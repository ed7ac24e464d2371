package controller

import (
	"context"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	corelisters "k8s.io/client-go/listers/core/v1"

	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// racingPods is a pod lister whose namespace listers run after, once the
// list is made: an informer event arriving between the sync's list and
// whatever the sync reads next.
type racingPods struct {
	corelisters.PodLister
	after func()
}

func (r racingPods) Pods(ns string) corelisters.PodNamespaceLister {
	return racingNamespacePods{r.PodLister.Pods(ns), r.after}
}

type racingNamespacePods struct {
	corelisters.PodNamespaceLister
	after func()
}

func (r racingNamespacePods) List(sel labels.Selector) ([]*corev1.Pod, error) {
	pods, err := r.PodNamespaceLister.List(sel)
	if r.after != nil {
		r.after()
	}
	return pods, err
}

// TestSyncReadsExpectationsBeforePods: the delete of an old pod is
// observed (its expectation satisfied) just after the sync listed the pods
// from a cache that still shows it alive. Reading the expectations after
// the list, the sync took them as satisfied and deleted the same pod a
// second time (96 duplicate deletes in a 2,000-node rollout); read before,
// it waits for the next sync.
func TestSyncReadsExpectationsBeforePods(t *testing.T) {
	one := intstr.FromInt32(1)
	ds := testDS("ns", "ds", func(ds *appsv1.DaemonSet) {
		ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &one}}
	})
	objs := []runtime.Object{ds}
	for _, n := range []string{"n1", "n2"} {
		p := ownedPod(ds, "old-"+n, n)
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
		objs = append(objs, testNode(n, nil), p)
	}
	h := newHarness(t, syncer.Config{}, objs...)
	ctx := context.Background()
	if err := h.Mode.sync(ctx, "ns/ds"); err != nil {
		t.Fatal(err)
	}
	if got := without(h.Writes(), "update daemonsets/status"); !slices.Contains(got, "delete pods") {
		t.Fatalf("first sync: writes %q, want a delete of an old pod", got)
	}
	stored, err := h.Client.AppsV1().DaemonSets("ns").Get(ctx, "ds", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h.Cache(stored)
	h.Observe("ns")

	// The cache still shows old-n1 alive; its delete is observed as soon
	// as the sync has listed the pods.
	h.Mode.Pods = racingPods{PodLister: h.Mode.Pods, after: func() { h.Mode.Expectations.DeletionObserved("ns/ds", "uid-old-n1") }}
	if err := h.Mode.sync(ctx, "ns/ds"); err != nil {
		t.Fatal(err)
	}
	if got := without(h.Writes(), "update daemonsets/status"); slices.Contains(got, "delete pods") {
		t.Errorf("second sync, from a list older than its expectations: writes %q, want no delete", got)
	}
}
