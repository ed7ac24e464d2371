package cli

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/daemon/progressive/window"
)

// TestOpening: a window's opening is written on the wall clock of the
// window that opens then, seconds only when not 0; UTC without windows.
func TestOpening(t *testing.T) {
	ws, err := window.Parse("Mon-Fri 08:00-17:00 Europe/Amsterdam; Sat 10:00:30-12:00 America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		ws   window.Windows
		at   time.Time
		want string
	}{
		{"Amsterdam, summer time", ws, time.Date(2025, 6, 2, 6, 0, 0, 0, time.UTC), "Mon 08:00 Europe/Amsterdam"},
		{"Amsterdam, winter time", ws, time.Date(2025, 12, 1, 7, 0, 0, 0, time.UTC), "Mon 08:00 Europe/Amsterdam"},
		{"New York, with seconds", ws, time.Date(2025, 6, 7, 14, 0, 30, 0, time.UTC), "Sat 10:00:30 America/New_York"},
		{"no window opens then: the first one's zone", ws, time.Date(2025, 6, 2, 9, 0, 0, 0, time.UTC), "Mon 11:00 Europe/Amsterdam"},
		{"no windows", nil, time.Date(2025, 6, 2, 6, 0, 0, 0, time.UTC), "Mon 06:00 UTC"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &simReport{}
			if tt.ws != nil {
				r.gates = &progressive.Gates{Windows: tt.ws}
			}
			if diff := cmp.Diff(tt.want, r.opening(tt.at)); diff != "" {
				t.Errorf("opening (-want +got):\n%s", diff)
			}
		})
	}
}
