package controller

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

func TestWriteThrottle(t *testing.T) {
	const interval = 500 * time.Millisecond
	th := newKeyThrottle(interval)
	steps := []struct {
		name  string
		key   string
		at    time.Duration
		minor bool
		want  time.Duration
	}{
		{name: "the first write goes at once, minor or not", key: "ns/a", at: 0, minor: true, want: 0},
		{name: "a minor write 100ms later waits for the rest", key: "ns/a", at: 100 * time.Millisecond, minor: true, want: 400 * time.Millisecond},
		{name: "again, less to wait (the held one did not count)", key: "ns/a", at: 300 * time.Millisecond, minor: true, want: 200 * time.Millisecond},
		{name: "another key is not held", key: "ns/b", at: 300 * time.Millisecond, minor: true, want: 0},
		{name: "a major write goes at once", key: "ns/a", at: 400 * time.Millisecond, minor: false, want: 0},
		{name: "and restarts the interval", key: "ns/a", at: 800 * time.Millisecond, minor: true, want: 100 * time.Millisecond},
		{name: "at the end of the interval it goes", key: "ns/a", at: 900 * time.Millisecond, minor: true, want: 0},
	}
	for _, st := range steps {
		if got := th.hold(st.key, st.minor, t0.Add(st.at)); got != st.want {
			t.Errorf("%s: hold = %s, want %s", st.name, got, st.want)
		}
	}
	th.forget("ns/a")
	if got := th.hold("ns/a", true, t0.Add(950*time.Millisecond)); got != 0 {
		t.Errorf("after forget: hold = %s, want 0", got)
	}
	for _, interval := range []time.Duration{0, -time.Second} {
		none := newKeyThrottle(interval)
		none.hold("ns/a", true, t0)
		if got := none.hold("ns/a", true, t0); got != 0 {
			t.Errorf("interval %s: hold = %s, want 0 (holds nothing)", interval, got)
		}
	}
}

func TestMinorStatusChange(t *testing.T) {
	moving := appsv1.DaemonSetStatus{ObservedGeneration: 2, DesiredNumberScheduled: 10, CurrentNumberScheduled: 10, UpdatedNumberScheduled: 4, NumberReady: 9, NumberAvailable: 9, NumberUnavailable: 1}
	settled := appsv1.DaemonSetStatus{ObservedGeneration: 2, DesiredNumberScheduled: 10, CurrentNumberScheduled: 10, UpdatedNumberScheduled: 10, NumberReady: 10, NumberAvailable: 10}
	with := func(s appsv1.DaemonSetStatus, f func(*appsv1.DaemonSetStatus)) appsv1.DaemonSetStatus {
		f(&s)
		return s
	}
	tests := []struct {
		name        string
		stored, new appsv1.DaemonSetStatus
		onDelete    bool
		want        bool
	}{
		{name: "counters move", stored: moving, new: with(moving, func(s *appsv1.DaemonSetStatus) { s.UpdatedNumberScheduled = 5 }), want: true},
		{name: "settled", stored: moving, new: settled},
		{name: "all available, old pods left", stored: moving, new: with(settled, func(s *appsv1.DaemonSetStatus) { s.UpdatedNumberScheduled = 7 }), want: true},
		{name: "all available, old pods left, OnDelete: settled", stored: moving, new: with(settled, func(s *appsv1.DaemonSetStatus) { s.UpdatedNumberScheduled = 7 }), onDelete: true},
		{name: "settled but one misscheduled", stored: moving, new: with(settled, func(s *appsv1.DaemonSetStatus) { s.NumberMisscheduled = 1 }), want: true},
		{name: "a new generation observed", stored: with(moving, func(s *appsv1.DaemonSetStatus) { s.ObservedGeneration = 1 }), new: moving},
		{name: "a collision counted", stored: moving, new: with(moving, func(s *appsv1.DaemonSetStatus) { s.CollisionCount = ptr.To[int32](1) })},
		{name: "conditions change", stored: moving, new: with(moving, func(s *appsv1.DaemonSetStatus) {
			s.Conditions = []appsv1.DaemonSetCondition{{Type: "X", Status: corev1.ConditionTrue}}
		})},
		{name: "empty and nil conditions are the same", stored: with(moving, func(s *appsv1.DaemonSetStatus) { s.Conditions = []appsv1.DaemonSetCondition{} }),
			new: with(moving, func(s *appsv1.DaemonSetStatus) { s.NumberReady = 8 }), want: true},
		{name: "nothing desired is settled", stored: moving, new: appsv1.DaemonSetStatus{ObservedGeneration: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := testDS("ns", "ds", func(ds *appsv1.DaemonSet) { ds.Status = tt.stored })
			if tt.onDelete {
				ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
			} else {
				ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType}
			}
			if got := minorStatusChange(ds, tt.new); got != tt.want {
				t.Errorf("minorStatusChange = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestSyncHoldsCounterOnlyStatus follows one placement on the fake clock:
// the first status (a new generation observed) is written at once; while
// the pods come up, a status that only moves counters is written at most
// once per interval, the syncs in between write nothing; the settled
// status is written at once, however recent the last write.
func TestSyncHoldsCounterOnlyStatus(t *testing.T) {
	const interval = 500 * time.Millisecond
	ds := testDS("ns", "ds")
	objs := []runtime.Object{ds}
	for _, n := range []string{"n1", "n2", "n3"} {
		objs = append(objs, testNode(n, nil))
	}
	h := newHarness(t, Config{StatusWriteInterval: interval}, objs...)
	ctx := context.Background()
	// readyPods marks the first n pods of the fake API server Running and
	// Ready in the cache.
	readyPods := func(n int) {
		pods, err := h.client.CoreV1().Pods("ns").List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range pods.Items[:n] {
			p := pods.Items[i].DeepCopy()
			p.ResourceVersion = "2"
			p.Spec.NodeName = p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchFields[0].Values[0]
			p.Status = corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}
			h.cache(p)
		}
	}
	steps := []struct {
		name       string
		at         time.Duration
		ready      int // pods Ready in the cache before the sync
		wantStatus bool
		wantStored appsv1.DaemonSetStatus
	}{
		{name: "first sync: a new generation, written at once", at: 0, wantStatus: true,
			wantStored: appsv1.DaemonSetStatus{ObservedGeneration: 1, DesiredNumberScheduled: 3, NumberUnavailable: 3}},
		{name: "pods seen, not Ready: counters only, held", at: 100 * time.Millisecond,
			wantStored: appsv1.DaemonSetStatus{ObservedGeneration: 1, DesiredNumberScheduled: 3, NumberUnavailable: 3}},
		{name: "one Ready: held again", at: 300 * time.Millisecond, ready: 1,
			wantStored: appsv1.DaemonSetStatus{ObservedGeneration: 1, DesiredNumberScheduled: 3, NumberUnavailable: 3}},
		{name: "the interval is over: the newest status is written", at: 500 * time.Millisecond, ready: 2, wantStatus: true,
			wantStored: appsv1.DaemonSetStatus{ObservedGeneration: 1, DesiredNumberScheduled: 3, CurrentNumberScheduled: 3, UpdatedNumberScheduled: 3, NumberReady: 2, NumberAvailable: 2, NumberUnavailable: 1}},
		{name: "settled 100ms later: written at once", at: 600 * time.Millisecond, ready: 3, wantStatus: true,
			wantStored: appsv1.DaemonSetStatus{ObservedGeneration: 1, DesiredNumberScheduled: 3, CurrentNumberScheduled: 3, UpdatedNumberScheduled: 3, NumberReady: 3, NumberAvailable: 3}},
		{name: "nothing changes: nothing written", at: 700 * time.Millisecond, ready: 3,
			wantStored: appsv1.DaemonSetStatus{ObservedGeneration: 1, DesiredNumberScheduled: 3, CurrentNumberScheduled: 3, UpdatedNumberScheduled: 3, NumberReady: 3, NumberAvailable: 3}},
	}
	for i, st := range steps {
		h.clock.SetTime(t0.Add(st.at))
		if i > 0 {
			h.observeAll("ns")
			readyPods(st.ready)
		}
		if err := h.c.sync(ctx, "ns/ds"); err != nil {
			t.Fatalf("%s: sync: %v", st.name, err)
		}
		wrote := false
		for _, w := range h.writes() {
			wrote = wrote || w == "update daemonsets/status"
		}
		if wrote != st.wantStatus {
			t.Errorf("%s: status written = %v, want %v", st.name, wrote, st.wantStatus)
		}
		stored, err := h.client.AppsV1().DaemonSets("ns").Get(ctx, "ds", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(st.wantStored, stored.Status); d != "" {
			t.Errorf("%s: stored status (-want +got):\n%s", st.name, d)
		}
		h.cache(stored) // the DaemonSet informer sees the write
	}
}

func TestSyncSpacer(t *testing.T) {
	tests := []struct {
		name   string
		factor int
		took   time.Duration
		at     time.Duration // after the plan started
		want   time.Duration
	}{
		{name: "within factor×took", factor: 10, took: 8 * time.Millisecond, at: 30 * time.Millisecond, want: 50 * time.Millisecond},
		{name: "after it", factor: 10, took: 8 * time.Millisecond, at: 80 * time.Millisecond, want: 0},
		{name: "a cheap plan spaces next to nothing", factor: 10, took: 5 * time.Microsecond, at: time.Millisecond, want: 0},
		{name: "at most MaxSyncSpacing", factor: 10, took: time.Second, at: 0, want: MaxSyncSpacing},
		{name: "factor 0 spaces nothing", factor: 0, took: time.Second, at: 0, want: 0},
		{name: "negative factor spaces nothing", factor: -1, took: time.Second, at: 0, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSyncSpacer(tt.factor)
			s.planned("ns/a", t0, tt.took)
			if got := s.wait("ns/a", t0.Add(tt.at)); got != tt.want {
				t.Errorf("wait = %s, want %s", got, tt.want)
			}
			if got := s.wait("ns/other", t0); got != 0 {
				t.Errorf("another key: wait = %s, want 0", got)
			}
			s.forget("ns/a")
			if got := s.wait("ns/a", t0); got != 0 {
				t.Errorf("after forget: wait = %s, want 0", got)
			}
		})
	}
}

// TestSyncSpacing: a key dequeued sooner than its last plan's cost allows
// (ten times the plan's duration) is not synced but requeued for that
// time, and then synced once for all the events in between; a key whose
// plans are cheap is synced on every event.
func TestSyncSpacing(t *testing.T) {
	h := newHarness(t, Config{SyncSpacing: 10})
	var synced []string
	planTook := map[string]time.Duration{"ns/big": 10 * time.Millisecond, "ns/small": 10 * time.Microsecond}
	h.c.syncFunc = func(_ context.Context, key string) error {
		synced = append(synced, key)
		h.c.spacing.planned(key, h.clock.Now(), planTook[key])
		return nil
	}
	ctx := context.Background()
	// next processes the key the queue hands out next, waiting for it if
	// the queue holds none yet (a delayed add becomes ready on the fake
	// clock's step, in the queue's own goroutine).
	next := func() {
		done := make(chan struct{})
		go func() {
			h.c.processNextItem(ctx)
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatal("no key became ready")
		}
	}

	h.c.queue.Add("ns/big")
	next()
	h.clock.Step(30 * time.Millisecond)
	for range 3 { // a stream of pod events
		h.c.queue.Add("ns/big")
	}
	next() // held: requeued for t0+100ms
	for range 2 {
		h.c.queue.Add("ns/small")
		next()
		h.clock.Step(time.Millisecond)
	}
	if d := cmp.Diff([]string{"ns/big", "ns/small", "ns/small"}, synced); d != "" {
		t.Fatalf("synced before ns/big's spacing ends (-want +got):\n%s", d)
	}
	h.clock.Step(68 * time.Millisecond)
	next()
	if d := cmp.Diff([]string{"ns/big", "ns/small", "ns/small", "ns/big"}, synced); d != "" {
		t.Errorf("synced when the spacing ends (-want +got):\n%s", d)
	}
	if n := h.c.queue.Len(); n != 0 {
		t.Errorf("%d keys left in the queue, want none: the events were answered by one sync", n)
	}
}
