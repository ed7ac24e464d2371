package controller

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"

	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
	"github.com/daemonplan/daemonplan/rollout"
)

func TestSyncCreatesOnceUntilObserved(t *testing.T) {
	ds := testDS("ns", "ds", func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.NodeSelector = map[string]string{"pool": "a"}
	})
	h := newHarness(t, syncer.Config{},
		ds,
		testNode("n1", map[string]string{"pool": "a"}),
		testNode("n2", map[string]string{"pool": "a"}),
		testNode("n3", map[string]string{"pool": "b"}),
	)
	ctx := context.Background()
	steps := []struct {
		name       string
		observe    bool
		wantWrites []string
		wantPods   int
	}{
		{
			name:       "first sync creates the revision, two pods and the status",
			wantWrites: []string{"create controllerrevisions", "create pods", "create pods", "update daemonsets/status"},
			wantPods:   2,
		},
		{
			// The cache has seen neither the pods nor the revision: the
			// revision create is repeated (AlreadyExists is success), the
			// pods are not.
			name:       "a sync on the stale cache creates no pod",
			wantWrites: []string{"create controllerrevisions", "update daemonsets/status"},
			wantPods:   2,
		},
		{
			name:     "once observed, nothing is left to do but the status",
			observe:  true,
			wantPods: 2,
		},
	}
	for _, s := range steps {
		if s.observe {
			h.Observe("ns")
		}
		if err := h.Mode.sync(ctx, "ns/ds"); err != nil {
			t.Fatalf("%s: sync: %v", s.name, err)
		}
		got := h.Writes()
		// The status is written while the cached DaemonSet keeps its
		// stale status; that is not what this test is about.
		got = without(got, "update daemonsets/status")
		want := without(s.wantWrites, "update daemonsets/status")
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: writes (-want,+got):\n%s", s.name, diff)
		}
		pods, _ := h.Client.CoreV1().Pods("ns").List(ctx, metav1.ListOptions{})
		if len(pods.Items) != s.wantPods {
			t.Errorf("%s: %d pods exist, want %d", s.name, len(pods.Items), s.wantPods)
		}
		h.Client.ClearActions()
	}

	// A restarted controller, its caches filled from the API server,
	// creates nothing.
	h2 := newHarness(t, syncer.Config{}, ds, testNode("n1", map[string]string{"pool": "a"}), testNode("n2", map[string]string{"pool": "a"}))
	pods, _ := h.Client.CoreV1().Pods("ns").List(ctx, metav1.ListOptions{})
	for i := range pods.Items {
		h2.Cache(&pods.Items[i])
	}
	revs, _ := h.Client.AppsV1().ControllerRevisions("ns").List(ctx, metav1.ListOptions{})
	for i := range revs.Items {
		h2.Cache(&revs.Items[i])
	}
	if err := h2.Mode.sync(ctx, "ns/ds"); err != nil {
		t.Fatal(err)
	}
	for _, w := range h2.Writes() {
		if strings.Contains(w, "pods") {
			t.Errorf("after a restart: %s", w)
		}
	}
}

func without(list []string, drop string) []string {
	out := []string{}
	for _, s := range list {
		if s != drop {
			out = append(out, s)
		}
	}
	return out
}

func TestSyncInvalidDaemonSetWarnsOnceAndIsNotRetried(t *testing.T) {
	ds := testDS("ns", "bad", func(ds *appsv1.DaemonSet) {
		ds.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "k", Operator: "Bogus"}}
	})
	h := newHarness(t, syncer.Config{}, ds, testNode("n1", nil))
	ctx := context.Background()
	for i := range 3 {
		if err := h.Mode.sync(ctx, "ns/bad"); err != nil {
			t.Fatalf("sync %d returned %v; an invalid DaemonSet must not be retried", i, err)
		}
	}
	events := h.Events()
	if len(events) != 1 {
		t.Fatalf("events = %q, want one warning", events)
	}
	if !strings.HasPrefix(events[0], "Warning InvalidSpec ") || !strings.Contains(events[0], "spec.selector") {
		t.Errorf("event %q does not name the field", events[0])
	}
	if strings.Contains(events[0], `daemonset "ns/bad"`) {
		t.Errorf("event %q repeats the DaemonSet it is recorded on", events[0])
	}
	for _, w := range h.Writes() {
		if strings.Contains(w, "pods") {
			t.Errorf("invalid DaemonSet: %s", w)
		}
	}

	// A new generation is reported again.
	ds2 := ds.DeepCopy()
	ds2.Generation = 2
	h.Cache(ds2)
	if err := h.Mode.sync(ctx, "ns/bad"); err != nil {
		t.Fatal(err)
	}
	if got := h.Events(); len(got) != 1 {
		t.Errorf("new generation: events = %q, want one", got)
	}
}

func TestSyncOneFailedDeleteDoesNotStopTheOthers(t *testing.T) {
	ds := testDS("ns", "ds", func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.NodeSelector = map[string]string{"pool": "a"}
	})
	objs := []runtime.Object{ds}
	for _, n := range []string{"n1", "n2", "n3"} {
		objs = append(objs, testNode(n, map[string]string{"pool": "b"}), ownedPod(ds, "pod-"+n, n))
	}
	h := newHarness(t, syncer.Config{}, objs...)
	h.Client.PrependReactor("delete", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.(k8stesting.DeleteAction).GetName() == "pod-n2" {
			return true, nil, apierrors.NewInternalError(errors.New("etcd is sad"))
		}
		return false, nil, nil
	})
	err := h.Mode.sync(context.Background(), "ns/ds")
	if err == nil || !strings.Contains(err.Error(), "pod-n2") {
		t.Fatalf("sync error = %v, want one naming pod-n2", err)
	}
	if strings.Count(err.Error(), `daemonset "ns/ds"`) != 1 {
		t.Errorf("error %q names the DaemonSet more than once", err)
	}
	pods, _ := h.Client.CoreV1().Pods("ns").List(context.Background(), metav1.ListOptions{})
	var left []string
	for _, p := range pods.Items {
		left = append(left, p.Name)
	}
	if diff := cmp.Diff([]string{"pod-n2"}, left); diff != "" {
		t.Errorf("pods left (-want,+got):\n%s", diff)
	}
	// The failed delete will never be observed: only the two others are
	// expected.
	if c, d := h.Mode.Expectations.Pending("ns/ds"); c != 0 || d != 2 {
		t.Errorf("pending = %d creates, %d deletes; want 0, 2", c, d)
	}
	if !hasEvent(h.Events(), "Warning FailedDelete") {
		t.Error("no FailedDelete event")
	}
}

func TestSyncFailedCreateStopsTheSlowStartAndReleasesExpectations(t *testing.T) {
	ds := testDS("ns", "ds")
	objs := []runtime.Object{ds}
	for _, n := range []string{"n1", "n2", "n3", "n4", "n5", "n6"} {
		objs = append(objs, testNode(n, nil))
	}
	h := newHarness(t, syncer.Config{}, objs...)
	creates := 0
	h.Client.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		creates++ // reactors run under the fake's lock
		if creates == 2 {
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("quota"))
		}
		return false, nil, nil
	})
	if err := h.Mode.sync(context.Background(), "ns/ds"); err == nil {
		t.Fatal("sync succeeded; want the create error")
	}
	// Batches 1 and 2: three calls, one failed; three never made.
	if creates != 3 {
		t.Errorf("%d create calls, want 3", creates)
	}
	if c, _ := h.Mode.Expectations.Pending("ns/ds"); c != 2 {
		t.Errorf("pending creates = %d, want 2 (the two that succeeded)", c)
	}
}

func TestSyncKeepsFailedPodBackoffBetweenSyncs(t *testing.T) {
	ds := testDS("ns", "ds")
	failed := ownedPod(ds, "pod-n1", "n1")
	failed.Status.Phase = corev1.PodFailed
	h := newHarness(t, syncer.Config{}, ds, testNode("n1", nil), failed)
	if err := h.Mode.sync(context.Background(), "ns/ds"); err != nil {
		t.Fatal(err)
	}
	if got := h.Mode.state.getBackoff("ns/ds").Len(); got != 1 {
		t.Fatalf("backoff entries after deleting a failed pod = %d, want 1", got)
	}
	if !hasEvent(h.Events(), "Warning FailedDaemonPod") {
		t.Error("no FailedDaemonPod event from the plan")
	}
	// The replacement fails too, within the backoff: not deleted, and the
	// key comes back when the backoff ends.
	h.Observe("ns")
	h.Mode.Expectations.Forget("ns/ds")
	again := ownedPod(ds, "pod-n1b", "n1")
	again.Status.Phase = corev1.PodFailed
	h.Cache(again)
	_ = h.Factory.Core().V1().Pods().Informer().GetIndexer().Delete(failed)
	h.Client.ClearActions()
	if err := h.Mode.sync(context.Background(), "ns/ds"); err != nil {
		t.Fatal(err)
	}
	for _, w := range h.Writes() {
		if w == "delete pods" {
			t.Error("a failed pod was deleted within its backoff")
		}
	}
}

func TestSyncGoneDaemonSetForgetsState(t *testing.T) {
	h := newHarness(t, syncer.Config{})
	h.Mode.Expectations.Expect("ns/gone", 3, nil)
	if err := h.Mode.sync(context.Background(), "ns/gone"); err != nil {
		t.Fatal(err)
	}
	if c, d := h.Mode.Expectations.Pending("ns/gone"); c != 0 || d != 0 {
		t.Errorf("expectations kept for a gone DaemonSet: %d, %d", c, d)
	}
}

func TestAdoptAndReleasePatches(t *testing.T) {
	ds := testDS("ns", "ds")
	orphan := ownedPod(ds, "orphan", "n1")
	orphan.OwnerReferences = nil
	stray := ownedPod(ds, "stray", "n2")
	stray.Labels = map[string]string{"app": "other"}
	h := newHarness(t, syncer.Config{}, ds, testNode("n1", nil), testNode("n2", nil), orphan, stray)
	_ = h.Mode.sync(context.Background(), "ns/ds")
	ctx := context.Background()
	got, _ := h.Client.CoreV1().Pods("ns").Get(ctx, "orphan", metav1.GetOptions{})
	if ref := metav1.GetControllerOf(got); ref == nil || ref.UID != ds.UID {
		t.Errorf("orphan not adopted: %v", got.OwnerReferences)
	}
	got, _ = h.Client.CoreV1().Pods("ns").Get(ctx, "stray", metav1.GetOptions{})
	if len(got.OwnerReferences) != 0 {
		t.Errorf("stray not released: %v", got.OwnerReferences)
	}
}

func TestSyncSelectingAllWarnsOnce(t *testing.T) {
	ds := testDS("ns", "all", func(ds *appsv1.DaemonSet) { ds.Spec.Selector = &metav1.LabelSelector{} })
	h := newHarness(t, syncer.Config{}, ds, testNode("n1", nil))
	for range 3 {
		if err := h.Mode.sync(context.Background(), "ns/all"); err != nil {
			t.Fatal(err)
		}
	}
	events := h.Events()
	if len(events) != 1 || !strings.HasPrefix(events[0], "Warning SelectingAll") {
		t.Errorf("events = %q, want one SelectingAll warning", events)
	}
	if w := h.Writes(); len(w) != 0 {
		t.Errorf("writes = %q, want none", w)
	}
}

func TestSyncInvalidPlanKeepsTheBackoff(t *testing.T) {
	ds := testDS("ns", "ds")
	failed := ownedPod(ds, "pod-n1", "n1")
	failed.Status.Phase = corev1.PodFailed
	h := newHarness(t, syncer.Config{}, ds, testNode("n1", nil), failed)
	if err := h.Mode.sync(context.Background(), "ns/ds"); err != nil {
		t.Fatal(err)
	}
	bad := ds.DeepCopy()
	bad.Generation = 2
	bad.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "k", Operator: "Bogus"}}
	h.Cache(bad)
	h.Mode.Expectations.Forget("ns/ds")
	if err := h.Mode.sync(context.Background(), "ns/ds"); err != nil {
		t.Fatal(err)
	}
	if got := h.Mode.state.getBackoff("ns/ds").Len(); got != 1 {
		t.Errorf("backoff entries after an invalid plan = %d, want 1 (kept)", got)
	}
}

func TestSyncAdoptsNothingForAReplacedDaemonSet(t *testing.T) {
	cached := testDS("ns", "ds")
	live := cached.DeepCopy()
	live.UID = "uid-recreated"
	orphan := ownedPod(cached, "orphan", "n1")
	orphan.OwnerReferences = nil
	h := newHarness(t, syncer.Config{}, live, testNode("n1", nil), orphan)
	h.Cache(cached) // the cache still has the old DaemonSet
	err := h.Mode.sync(context.Background(), "ns/ds")
	if err == nil || !strings.Contains(err.Error(), "replaced") {
		t.Fatalf("sync error = %v, want the recheck's", err)
	}
	got, _ := h.Client.CoreV1().Pods("ns").Get(context.Background(), "orphan", metav1.GetOptions{})
	if len(got.OwnerReferences) != 0 {
		t.Errorf("orphan adopted by a DaemonSet that no longer exists: %v", got.OwnerReferences)
	}
}

func TestSyncDeletesNoOrphanItFailedToAdopt(t *testing.T) {
	// The orphan runs on a node the DaemonSet may not use: the plan adopts
	// it and deletes it. When the adoption fails, the delete must not run.
	for _, adoptFails := range []bool{false, true} {
		t.Run(fmt.Sprintf("adoption fails %v", adoptFails), func(t *testing.T) {
			ds := testDS("ns", "ds", func(ds *appsv1.DaemonSet) {
				ds.Spec.Template.Spec.NodeSelector = map[string]string{"pool": "a"}
			})
			orphan := ownedPod(ds, "orphan", "n1")
			orphan.OwnerReferences = nil
			h := newHarness(t, syncer.Config{}, ds, testNode("n1", map[string]string{"pool": "b"}), orphan)
			if adoptFails {
				h.Client.PrependReactor("patch", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
					return true, nil, apierrors.NewConflict(schema.GroupResource{Resource: "pods"}, "orphan", errors.New("uid changed"))
				})
			}
			err := h.Mode.sync(context.Background(), "ns/ds")
			if (err != nil) != adoptFails {
				t.Fatalf("sync error = %v", err)
			}
			_, getErr := h.Client.CoreV1().Pods("ns").Get(context.Background(), "orphan", metav1.GetOptions{})
			if exists := getErr == nil; exists != adoptFails {
				t.Errorf("orphan exists = %v, want %v", exists, adoptFails)
			}
		})
	}
}

func TestSyncWritesTheBumpedCollisionCount(t *testing.T) {
	ds := testDS("ns", "ds")
	taken := &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "ns", Name: ds.Name + "-" + rollout.ComputeHash(&ds.Spec.Template, nil), UID: "uid-taken",
			Labels:          map[string]string{"app": "ds"},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(ds, appsv1.SchemeGroupVersion.WithKind("DaemonSet"))},
		},
		Data:     runtime.RawExtension{Raw: []byte(`{"spec":{"template":{"metadata":{"labels":{"app":"something-else"}}}}}`)},
		Revision: 1,
	}
	h := newHarness(t, syncer.Config{}, ds, testNode("n1", nil), taken)
	err := h.Mode.sync(context.Background(), "ns/ds")
	var collision *rollout.CollisionError
	if !errors.As(err, &collision) {
		t.Fatalf("sync error = %v, want a *rollout.CollisionError (requeued)", err)
	}
	if strings.Count(err.Error(), `daemonset "ns/ds"`) != 1 {
		t.Errorf("error %q names the DaemonSet more than once", err)
	}
	got, _ := h.Client.AppsV1().DaemonSets("ns").Get(context.Background(), "ds", metav1.GetOptions{})
	if got.Status.CollisionCount == nil || *got.Status.CollisionCount != 1 {
		t.Errorf("status.collisionCount = %v, want 1", got.Status.CollisionCount)
	}
	for _, w := range h.Writes() {
		if strings.Contains(w, "pods") {
			t.Errorf("a colliding sync touched pods: %s", w)
		}
	}
}
