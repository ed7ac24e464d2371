package syncer

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestWriteThrottle(t *testing.T) {
	const interval = 500 * time.Millisecond
	th := NewKeyThrottle(interval)
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
		if got := th.Hold(st.key, st.minor, t0.Add(st.at)); got != st.want {
			t.Errorf("%s: hold = %s, want %s", st.name, got, st.want)
		}
	}
	th.Forget("ns/a")
	if got := th.Hold("ns/a", true, t0.Add(950*time.Millisecond)); got != 0 {
		t.Errorf("after forget: hold = %s, want 0", got)
	}
	for _, interval := range []time.Duration{0, -time.Second} {
		none := NewKeyThrottle(interval)
		none.Hold("ns/a", true, t0)
		if got := none.Hold("ns/a", true, t0); got != 0 {
			t.Errorf("interval %s: hold = %s, want 0 (holds nothing)", interval, got)
		}
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
		{name: "at most maxSyncSpacing", factor: 10, took: time.Second, at: 0, want: maxSyncSpacing},
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
	h.c.Sync = func(_ context.Context, key string) error {
		synced = append(synced, key)
		h.c.spacing.planned(key, h.Clock.Now(), planTook[key])
		return nil
	}
	ctx := context.Background()
	// next processes the key the queue hands out next, waiting for it if
	// the queue holds none yet (a delayed add becomes ready on the fake
	// clock's step, in the queue's own goroutine).
	next := func() {
		done := make(chan struct{})
		go func() {
			h.c.ProcessNextItem(ctx)
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatal("no key became ready")
		}
	}

	h.c.Queue.Add("ns/big")
	next()
	h.Clock.Step(30 * time.Millisecond)
	for range 3 { // a stream of pod events
		h.c.Queue.Add("ns/big")
	}
	next() // held: requeued for t0+100ms
	for range 2 {
		h.c.Queue.Add("ns/small")
		next()
		h.Clock.Step(time.Millisecond)
	}
	if d := cmp.Diff([]string{"ns/big", "ns/small", "ns/small"}, synced); d != "" {
		t.Fatalf("synced before ns/big's spacing ends (-want +got):\n%s", d)
	}
	h.Clock.Step(68 * time.Millisecond)
	next()
	if d := cmp.Diff([]string{"ns/big", "ns/small", "ns/small", "ns/big"}, synced); d != "" {
		t.Errorf("synced when the spacing ends (-want +got):\n%s", d)
	}
	if n := h.c.Queue.Len(); n != 0 {
		t.Errorf("%d keys left in the queue, want none: the events were answered by one sync", n)
	}
}
