package controller

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakeRV is an informer store that has applied up to rv.
type fakeRV struct{ rv string }

func (f *fakeRV) LastStoreSyncResourceVersion() string { return f.rv }

// TestWriteFence covers when a sync waits for the caches to see the
// controller's own writes.
func TestWriteFence(t *testing.T) {
	type write struct{ resource, rv string }
	for _, tc := range []struct {
		name        string
		writes      []write
		podRV, dsRV string
		want        string // "" when the sync may run
	}{{
		name:  "nothing written",
		podRV: "10", dsRV: "10",
	}, {
		name:   "pods cache behind a create",
		writes: []write{{fencePods, "12"}},
		podRV:  "11", dsRV: "20",
		want: "informer cache behind the controller's own writes: pods cache at resourceVersion 11, wrote 12",
	}, {
		name:   "DaemonSet cache behind a status write",
		writes: []write{{fenceDaemonSets, "30"}, {fencePods, "12"}},
		podRV:  "40", dsRV: "29",
		want: "informer cache behind the controller's own writes: daemonsets cache at resourceVersion 29, wrote 30",
	}, {
		name:   "the newest write counts, whatever the order",
		writes: []write{{fencePods, "15"}, {fencePods, "13"}},
		podRV:  "14", dsRV: "1",
		want: "informer cache behind the controller's own writes: pods cache at resourceVersion 14, wrote 15",
	}, {
		name:   "caught up",
		writes: []write{{fencePods, "12"}, {fenceDaemonSets, "13"}},
		podRV:  "12", dsRV: "14",
	}, {
		name:   "a cache that reports no version does not hold back",
		writes: []write{{fencePods, "12"}},
		podRV:  "", dsRV: "1",
	}, {
		name:   "versions that do not compare do not hold back",
		writes: []write{{fencePods, "12"}},
		podRV:  "x1", dsRV: "1",
	}, {
		name:   "an empty written version is ignored",
		writes: []write{{fencePods, ""}},
		podRV:  "1", dsRV: "1",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			pods, dss := &fakeRV{tc.podRV}, &fakeRV{tc.dsRV}
			f := newWriteFence(map[string]rvSource{fencePods: pods, fenceDaemonSets: dss})
			for _, w := range tc.writes {
				f.wrote("ns/ds", w.resource, w.rv)
			}
			err := f.behind("ns/ds")
			got := ""
			if err != nil {
				got = err.Error()
				if !errors.Is(err, errCacheBehind) {
					t.Errorf("behind: %v does not wrap errCacheBehind", err)
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("behind (-want +got):\n%s", d)
			}
			if f.behind("other/ds") != nil {
				t.Errorf("behind: another DaemonSet is held back by ns/ds's writes")
			}
			// Once the caches reach every version, the record goes.
			pods.rv, dss.rv = "1000", "1000"
			if err := f.behind("ns/ds"); err != nil {
				t.Errorf("behind after catching up: %v", err)
			}
			pods.rv, dss.rv = "1", "1"
			if err := f.behind("ns/ds"); err != nil {
				t.Errorf("behind after the record was dropped: %v", err)
			}
		})
	}
}

// TestWriteFenceForget: a DaemonSet that is gone holds nothing back, even
// when a new one of the same name appears.
func TestWriteFenceForget(t *testing.T) {
	f := newWriteFence(map[string]rvSource{fencePods: &fakeRV{"1"}})
	f.wrote("ns/ds", fencePods, "5")
	if f.behind("ns/ds") == nil {
		t.Fatalf("behind: want a wait before forget")
	}
	f.forget("ns/ds")
	if err := f.behind("ns/ds"); err != nil {
		t.Errorf("behind after forget: %v", err)
	}
}

// TestSyncWaitsForOwnWrites: while a cache is behind a write the
// controller made for the DaemonSet, a sync writes nothing and the key is
// requeued with backoff; once the cache catches up the sync runs.
func TestSyncWaitsForOwnWrites(t *testing.T) {
	h := newHarness(t, Config{}, testDS("ns", "ds"), testNode("n1", nil))
	pods, dss := &fakeRV{"5"}, &fakeRV{"5"}
	h.c.fence = newWriteFence(map[string]rvSource{fencePods: pods, fenceDaemonSets: dss})
	h.c.fence.wrote("ns/ds", fencePods, "9")
	ctx := context.Background()

	if err := h.c.sync(ctx, "ns/ds"); !errors.Is(err, errCacheBehind) {
		t.Fatalf("sync with the pod cache behind: got %v, want errCacheBehind", err)
	}
	if got := h.writes(); len(got) != 0 {
		t.Errorf("sync with the pod cache behind wrote %v, want nothing", got)
	}
	h.c.queue.Add("ns/ds")
	h.c.processNextItem(ctx)
	if n := h.c.queue.NumRequeues("ns/ds"); n != 1 {
		t.Errorf("requeues after a sync that waited: %d, want 1", n)
	}

	pods.rv = "9"
	if err := h.c.sync(ctx, "ns/ds"); err != nil {
		t.Fatalf("sync once caught up: %v", err)
	}
	if d := cmp.Diff([]string{"create controllerrevisions", "create pods", "update daemonsets/status"}, h.writes()); d != "" {
		t.Errorf("writes once caught up (-want +got):\n%s", d)
	}
}
