package syncer

import (
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
		writes: []write{{FencePods, "12"}},
		podRV:  "11", dsRV: "20",
		want: "informer cache behind the controller's own writes: pods cache at resourceVersion 11, wrote 12",
	}, {
		name:   "DaemonSet cache behind a status write",
		writes: []write{{FenceDaemonSets, "30"}, {FencePods, "12"}},
		podRV:  "40", dsRV: "29",
		want: "informer cache behind the controller's own writes: daemonsets cache at resourceVersion 29, wrote 30",
	}, {
		name:   "the newest write counts, whatever the order",
		writes: []write{{FencePods, "15"}, {FencePods, "13"}},
		podRV:  "14", dsRV: "1",
		want: "informer cache behind the controller's own writes: pods cache at resourceVersion 14, wrote 15",
	}, {
		name:   "caught up",
		writes: []write{{FencePods, "12"}, {FenceDaemonSets, "13"}},
		podRV:  "12", dsRV: "14",
	}, {
		name:   "a cache that reports no version does not hold back",
		writes: []write{{FencePods, "12"}},
		podRV:  "", dsRV: "1",
	}, {
		name:   "versions that do not compare do not hold back",
		writes: []write{{FencePods, "12"}},
		podRV:  "x1", dsRV: "1",
	}, {
		name:   "an empty written version is ignored",
		writes: []write{{FencePods, ""}},
		podRV:  "1", dsRV: "1",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			pods, dss := &fakeRV{tc.podRV}, &fakeRV{tc.dsRV}
			f := NewWriteFence(map[string]RVSource{FencePods: pods, FenceDaemonSets: dss})
			for _, w := range tc.writes {
				f.Wrote("ns/ds", w.resource, w.rv)
			}
			err := f.behind("ns/ds")
			got := ""
			if err != nil {
				got = err.Error()
				if !errors.Is(err, ErrCacheBehind) {
					t.Errorf("behind: %v does not wrap ErrCacheBehind", err)
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
	f := NewWriteFence(map[string]RVSource{FencePods: &fakeRV{"1"}})
	f.Wrote("ns/ds", FencePods, "5")
	if f.behind("ns/ds") == nil {
		t.Fatalf("behind: want a wait before forget")
	}
	f.forget("ns/ds")
	if err := f.behind("ns/ds"); err != nil {
		t.Errorf("behind after forget: %v", err)
	}
}
