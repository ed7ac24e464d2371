package backoff_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/daemon/backoff"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func TestEntriesRoundTrip(t *testing.T) {
	entries := []backoff.Entry{
		{Key: backoff.Key{UID: "b", NodeName: "n1"}, Delay: time.Second, LastUpdate: epoch},
		{Key: backoff.Key{UID: "a", ObservedGeneration: 2, NodeName: "n2"}, Delay: 4 * time.Second, LastUpdate: epoch},
		{Key: backoff.Key{UID: "a", ObservedGeneration: 1, NodeName: "n9"}, Delay: 2 * time.Second, LastUpdate: epoch},
	}
	b := backoff.New(entries...)
	want := []backoff.Entry{entries[2], entries[1], entries[0]}
	if diff := cmp.Diff(want, b.Entries()); diff != "" {
		t.Errorf("Entries() mismatch (-want +got):\n%s", diff)
	}
	if !backoff.New(b.Entries()...).Equal(b) {
		t.Errorf("New(Entries()) is not Equal to the original")
	}
}

// TestUpdate judges one key at one instant: Wait before Raise, then the
// entry Raise leaves.
func TestUpdate(t *testing.T) {
	key := backoff.Key{UID: "u", NodeName: "n1"}
	tests := []struct {
		name      string
		start     []backoff.Entry
		at        time.Duration
		wantWait  time.Duration
		wantHeld  bool
		wantDelay time.Duration
	}{
		{name: "no entry: not held, raised to Initial", wantDelay: backoff.Initial},
		{name: "inside the delay: held for the rest, doubled",
			start: []backoff.Entry{{Key: key, Delay: 4 * time.Second, LastUpdate: epoch}},
			at:    time.Second, wantWait: 3 * time.Second, wantHeld: true, wantDelay: 8 * time.Second},
		{name: "past the delay: not held, doubled",
			start: []backoff.Entry{{Key: key, Delay: 4 * time.Second, LastUpdate: epoch}},
			at:    5 * time.Second, wantDelay: 8 * time.Second},
		{name: "doubling stops at Max",
			start: []backoff.Entry{{Key: key, Delay: backoff.Max, LastUpdate: epoch}},
			at:    backoff.Max, wantDelay: backoff.Max},
		{name: "expired: forgotten, raised to Initial",
			start: []backoff.Entry{{Key: key, Delay: backoff.Max, LastUpdate: epoch}},
			at:    2*backoff.Max + time.Second, wantDelay: backoff.Initial},
		{name: "updated in the future: held for the whole delay at most",
			start:    []backoff.Entry{{Key: key, Delay: time.Second, LastUpdate: epoch.Add(time.Hour)}},
			wantWait: time.Second, wantHeld: true, wantDelay: 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := backoff.New(tt.start...)
			before := start.Entries()
			now := epoch.Add(tt.at)
			u := start.Start(now)
			wait, held := u.Wait(key)
			if wait != tt.wantWait || held != tt.wantHeld {
				t.Errorf("Wait() = %v, %v; want %v, %v", wait, held, tt.wantWait, tt.wantHeld)
			}
			u.Raise(key)
			got := u.State()
			want := []backoff.Entry{{Key: key, Delay: tt.wantDelay, LastUpdate: now}}
			if diff := cmp.Diff(want, got.Entries()); diff != "" {
				t.Errorf("State() after Raise (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, start.Entries()); diff != "" {
				t.Errorf("the starting State changed (-before +after):\n%s", diff)
			}
		})
	}
}

// TestUpdateWithoutRaiseAllocatesNothing: an Update that only reads
// shares the State's entries.
func TestUpdateWithoutRaiseAllocatesNothing(t *testing.T) {
	key := backoff.Key{UID: "u", NodeName: "n1"}
	s := backoff.New(backoff.Entry{Key: key, Delay: time.Second, LastUpdate: epoch})
	u := s.Start(epoch)
	if allocs := testing.AllocsPerRun(100, func() { u.Wait(key) }); allocs != 0 {
		t.Errorf("Wait allocates %v times, want 0", allocs)
	}
	if !u.State().Equal(s) {
		t.Errorf("State() of an Update that raised nothing differs from its start")
	}
}
