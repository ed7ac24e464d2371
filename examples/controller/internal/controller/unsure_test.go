package controller

import (
	"context"
	"errors"
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

	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
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
	h := newHarness(t, syncer.Config{}, ds, testNode("n1", nil))
	podsGVR := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	failed := false
	h.Client.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if failed {
			return false, nil, nil
		}
		failed = true
		pod := a.(k8stesting.CreateAction).GetObject().(*corev1.Pod).DeepCopy()
		pod.Name, pod.UID = pod.GenerateName+"applied", "uid-applied"
		if err := h.Client.Tracker().Create(podsGVR, pod, pod.Namespace); err != nil {
			return true, nil, err
		}
		return true, nil, apierrors.NewInternalError(errors.New("rpc error: code = Unavailable desc = error reading from server: connection reset by peer"))
	})
	ctx := context.Background()
	for _, step := range []struct {
		name    string
		observe bool
		// wantErr is "" (none), "server" (the create's) or "behind"
		// (syncer.ErrCacheBehind).
		wantErr   string
		wantPodOp []string
	}{
		{name: "the create fails with a server error but is applied", wantErr: "server", wantPodOp: []string{"create pods"}},
		{name: "the cache has not seen the pod: the sync waits", wantErr: "behind"},
		{name: "the cache has the pod: nothing to create", observe: true},
	} {
		if step.observe {
			h.Observe("ns")
		}
		err := h.Mode.sync(ctx, "ns/ds")
		var got string
		switch {
		case errors.Is(err, syncer.ErrCacheBehind):
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
		for _, w := range h.Writes() {
			if w == "create pods" || w == "delete pods" {
				podOps = append(podOps, w)
			}
		}
		if d := cmp.Diff(step.wantPodOp, podOps, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("%s: pod writes (-want +got):\n%s", step.name, d)
		}
	}
	list, err := h.Client.CoreV1().Pods("ns").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 {
		t.Errorf("%d pods exist for the one node, want 1", len(list.Items))
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
	h := newHarness(t, syncer.Config{}, ds, other, testNode("n1", nil), ownedPod(other, "p1", "n1"))
	h.Mode.Fence.MarkUnsure("ns/ds")
	if _, err := h.Mode.CachedDaemonSet(context.Background(), "ns/ds"); err != nil {
		t.Errorf("CachedDaemonSet: %v, want nil", err)
	}
	if err := h.Mode.sync(context.Background(), "ns/ds"); errors.Is(err, syncer.ErrCacheBehind) {
		t.Errorf("sync: %v, want no syncer.ErrCacheBehind", err)
	}
}
