package syncer

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/daemon/progressive/window"
)

// TestZoneCache: a zone is loaded once; an unknown one is asked again.
func TestZoneCache(t *testing.T) {
	loads := map[string]int{}
	zones := NewZoneCache(func(name string) (*time.Location, error) {
		loads[name]++
		return time.LoadLocation(name)
	})
	for range 3 {
		if loc, err := zones("Europe/Amsterdam"); err != nil || loc.String() != "Europe/Amsterdam" {
			t.Fatalf("Europe/Amsterdam: %v, %v", loc, err)
		}
		if _, err := zones("Mars/Olympus_Mons"); err == nil {
			t.Fatal("Mars/Olympus_Mons resolved")
		}
	}
	if diff := cmp.Diff(map[string]int{"Europe/Amsterdam": 1, "Mars/Olympus_Mons": 3}, loads); diff != "" {
		t.Errorf("loads (-want +got):\n%s", diff)
	}
}

// TestHoldMessage: the hold as Hold.String says it, and what a person can
// do about an approval point or a closed window.
func TestHoldMessage(t *testing.T) {
	windows, err := window.Parse("* 08:00-09:00 UTC")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		hold progressive.Hold
		want string
	}{
		{name: "approval", hold: progressive.Hold{Cause: progressive.HoldApproval, Wave: "zone=a"},
			want: "waiting for approval after wave zone=a (kubectl dsplan rollout approve ns/ds)"},
		{name: "window", hold: progressive.Hold{Cause: progressive.HoldWindow, Until: time.Date(2026, 1, 1, 8, 0, 0, 0, time.UTC)},
			want: "outside the maintenance windows until 2026-01-01T08:00:00Z (* 08:00-09:00 UTC)"},
		{name: "health gate", hold: progressive.Hold{Cause: progressive.HoldHealthGate, Signals: []progressive.PodSignal{{Node: "n1", Pod: "p", Signal: progressive.SignalCrashLoop}}},
			want: progressive.Hold{Cause: progressive.HoldHealthGate, Signals: []progressive.PodSignal{{Node: "n1", Pod: "p", Signal: progressive.SignalCrashLoop}}}.String()},
		{name: "not held", want: "not held"},
	} {
		if diff := cmp.Diff(tt.want, HoldMessage("ns/ds", tt.hold, windows)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}
