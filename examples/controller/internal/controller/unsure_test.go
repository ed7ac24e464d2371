package controller

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"
)

// TestSyncAfterACreateOfUnknownOutcome: a pod create that fails with a
// server error may have been applied all the same (the e2e fault
// "etcd-restart" met it: etcd killed after it committed, kube-apiserver
// answering 500). Before the fix, the next sync, planning from a cache
// that had not seen the pod, created a second pod for the node. Now it
// waits until the cache agrees with the API server on the DaemonSet's
// pods; then the pod is there and nothing more is created.
func TestSyncAfterACreateOfUnknownOutcome(t *testing.T) {
	ds := testDS("ns", "ds")
	h := newHarness(t, Config{}, ds, testNode("n1", nil))
	podsGVR := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	failed := false
	h.client.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if failed {
			return false, nil, nil
		}
		failed = true
		pod := a.(k8stesting.CreateAction).GetObject().(*corev1.Pod).DeepCopy()
		pod.Name, pod.UID = pod.GenerateName+"applied", "uid-applied"
		if err := h.client.Tracker().Create(podsGVR, pod, pod.Namespace); err != nil {
			return true, nil, err
		}
		return true, nil, apierrors.NewInternalError(errors.New("rpc error: code = Unavailable desc = error reading from server: connection reset by peer"))
	})
	ctx := context.Background()
	for _, step := range []struct {
		name    string
		observe bool
		// wantErr is "" (none), "server" (the create's) or "behind"
		// (errCacheBehind).
		wantErr   string
		wantPodOp []string
	}{
		{name: "the create fails with a server error but is applied", wantErr: "server", wantPodOp: []string{"create pods"}},
		{name: "the cache has not seen the pod: the sync waits", wantErr: "behind"},
		{name: "the cache has the pod: nothing to create", observe: true},
	} {
		if step.observe {
			h.observeAll("ns")
		}
		err := h.c.sync(ctx, "ns/ds")
		var got string
		switch {
		case errors.Is(err, errCacheBehind):
			got = "behind"
		case apierrors.IsInternalError(err):
			got = "server"
		case err != nil:
			got = err.Error()
		}
		if got != step.wantErr {
			t.Errorf("%s: sync error %v, want %s", step.name, err, step.wantErr)
		}
		var podOps []string
		for _, w := range h.writes() {
			if w == "create pods" || w == "delete pods" {
				podOps = append(podOps, w)
			}
		}
		if d := cmp.Diff(step.wantPodOp, podOps, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("%s: pod writes (-want +got):\n%s", step.name, d)
		}
	}
	list, err := h.client.CoreV1().Pods("ns").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 {
		t.Errorf("%d pods exist for the one node, want 1", len(list.Items))
	}
}

// TestMayHaveApplied covers which failed writes leave their outcome
// unknown.
func TestMayHaveApplied(t *testing.T) {
	gr := schema.GroupResource{Resource: "pods"}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{name: "internal error (etcd failed after committing)", err: apierrors.NewInternalError(errors.New("etcdserver: leader changed")), want: true},
		{name: "gateway timeout", err: apierrors.NewTimeoutError("request timed out", 1), want: true},
		{name: "server timeout", err: apierrors.NewServerTimeout(gr, "create", 1), want: true},
		{name: "service unavailable", err: apierrors.NewServiceUnavailable("shutting down"), want: true},
		{name: "broken connection (no status)", err: fmt.Errorf("post pods: %w", &net.OpError{Op: "read", Err: errors.New("connection reset by peer")}), want: true},
		{name: "too many requests (rejected before it ran)", err: apierrors.NewTooManyRequests("throttled", 1), want: false},
		{name: "forbidden", err: apierrors.NewForbidden(gr, "p", errors.New("quota")), want: false},
		{name: "conflict", err: apierrors.NewConflict(gr, "p", errors.New("uid")), want: false},
		{name: "not found", err: apierrors.NewNotFound(gr, "p"), want: false},
		{name: "wrapped internal error", err: fmt.Errorf("create pod on node n1: %w", apierrors.NewInternalError(errors.New("x"))), want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := mayHaveApplied(tc.err); got != tc.want {
				t.Errorf("mayHaveApplied(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

// TestWriteFenceUnsure covers the mark of a pod write of unknown outcome:
// it holds until cleared, for its key only, and forgetting the key drops
// it.
func TestWriteFenceUnsure(t *testing.T) {
	f := newWriteFence(map[string]rvSource{fencePods: &fakeRV{"10"}, fenceDaemonSets: &fakeRV{"10"}})
	f.markUnsure("ns/a")
	if !f.isUnsure("ns/a") || f.isUnsure("ns/b") {
		t.Fatalf("isUnsure: a %v, b %v; want true, false", f.isUnsure("ns/a"), f.isUnsure("ns/b"))
	}
	f.clearUnsure("ns/a")
	if f.isUnsure("ns/a") {
		t.Error("still unsure after clearUnsure")
	}
	f.markUnsure("ns/a")
	f.forget("ns/a")
	if f.isUnsure("ns/a") {
		t.Error("still unsure after forget")
	}
}

// TestCacheAgreesWithoutSelector: a DaemonSet without a selector (the API
// server refuses one, a fake does not) agrees at once after a pod write of
// unknown outcome. Before the fix its selector became labels.Nothing, whose
// text "" lists every pod of the namespace from the API server and none
// from the cache: the key stayed behind for good, and its invalid spec was
// never reported.
func TestCacheAgreesWithoutSelector(t *testing.T) {
	ds := testDS("ns", "ds", func(ds *appsv1.DaemonSet) { ds.Spec.Selector = nil })
	other := testDS("ns", "other")
	h := newHarness(t, Config{}, ds, other, testNode("n1", nil), ownedPod(other, "p1", "n1"))
	h.c.fence.markUnsure("ns/ds")
	if err := h.c.cacheAgrees(context.Background(), ds); err != nil {
		t.Errorf("cacheAgrees: %v, want nil", err)
	}
	if err := h.c.sync(context.Background(), "ns/ds"); errors.Is(err, errCacheBehind) {
		t.Errorf("sync: %v, want no errCacheBehind", err)
	}
}
