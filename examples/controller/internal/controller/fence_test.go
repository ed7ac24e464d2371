package controller

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// TestSyncWaitsForOwnWrites: while a cache is behind a write the
// controller made for the DaemonSet, a sync writes nothing and the key is
// requeued with backoff; once the cache catches up the sync runs.
func TestSyncWaitsForOwnWrites(t *testing.T) {
	h := newHarness(t, syncer.Config{}, testDS("ns", "ds"), testNode("n1", nil))
	pods, dss := &fakeRV{"5"}, &fakeRV{"5"}
	h.Mode.Fence = syncer.NewWriteFence(map[string]syncer.RVSource{syncer.FencePods: pods, syncer.FenceDaemonSets: dss})
	h.Mode.Fence.Wrote("ns/ds", syncer.FencePods, "9")
	ctx := context.Background()

	if err := h.Mode.sync(ctx, "ns/ds"); !errors.Is(err, syncer.ErrCacheBehind) {
		t.Fatalf("sync with the pod cache behind: got %v, want syncer.ErrCacheBehind", err)
	}
	if got := h.Writes(); len(got) != 0 {
		t.Errorf("sync with the pod cache behind wrote %v, want nothing", got)
	}
	h.Mode.Queue.Add("ns/ds")
	h.Mode.ProcessNextItem(ctx)
	if n := h.Mode.Queue.NumRequeues("ns/ds"); n != 1 {
		t.Errorf("requeues after a sync that waited: %d, want 1", n)
	}

	pods.rv = "9"
	if err := h.Mode.sync(ctx, "ns/ds"); err != nil {
		t.Fatalf("sync once caught up: %v", err)
	}
	if d := cmp.Diff([]string{"create controllerrevisions", "create pods", "update daemonsets/status"}, h.Writes()); d != "" {
		t.Errorf("writes once caught up (-want +got):\n%s", d)
	}
}

// fakeRV is an informer store that has applied up to rv.
type fakeRV struct{ rv string }

func (f *fakeRV) LastStoreSyncResourceVersion() string { return f.rv }
