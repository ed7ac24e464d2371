package window_test

import (
	"errors"
	"slices"
	"testing"
	"time"
	_ "time/tzdata" // the zones, where the machine has no zoneinfo

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/daemon/progressive/window"
)

// at is the outcome of Windows.At, the change as RFC 3339 in now's
// location ("" when zero).
type at struct {
	Open   bool
	Change string
}

func rfc3339(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func format(c time.Time) string {
	if c.IsZero() {
		return ""
	}
	return c.Format(time.RFC3339Nano)
}

func TestWindowsAt(t *testing.T) {
	const (
		office = "Mon-Fri 08:00-17:00 Europe/Amsterdam"
		night  = "Fri 22:00-04:00 Europe/Amsterdam"
	)
	tests := []struct {
		name, windows, now string
		want               at
	}{
		// 2026-11-27 is a Friday; Amsterdam is on CET (+01:00).
		{"office hours: open until closing time", office, "2026-11-27T16:00:00+01:00", at{true, "2026-11-27T17:00:00+01:00"}},
		{"office hours: closed at closing time, until Monday", office, "2026-11-27T17:00:00+01:00", at{false, "2026-11-30T08:00:00+01:00"}},
		{"office hours: closed on Saturday", office, "2026-11-28T12:00:00+01:00", at{false, "2026-11-30T08:00:00+01:00"}},
		{"office hours: closed a nanosecond before opening", office, "2026-11-30T07:59:59.999999999+01:00", at{false, "2026-11-30T08:00:00+01:00"}},
		{"office hours: open at opening time", office, "2026-11-30T08:00:00+01:00", at{true, "2026-11-30T17:00:00+01:00"}},
		{"the change is in now's location", office, "2026-11-27T15:30:00Z", at{true, "2026-11-27T16:00:00Z"}},
		{"overnight: open the next morning", night, "2026-11-28T03:00:00+01:00", at{true, "2026-11-28T04:00:00+01:00"}},
		{"overnight: closed after, until next Friday", night, "2026-11-28T04:00:00+01:00", at{false, "2026-12-04T22:00:00+01:00"}},
		{"overnight: closed on Friday evening before", night, "2026-11-27T21:00:00+01:00", at{false, "2026-11-27T22:00:00+01:00"}},
		{"overnight into a new year", "Thu 23:00-01:00", "2026-12-31T23:30:00Z", at{true, "2027-01-01T01:00:00Z"}},
		{"overnight to midnight written 00:00", "Sat 20:00-00:00", "2026-11-28T23:59:59Z", at{true, "2026-11-29T00:00:00Z"}},
		{"24:00 touches the next day's 00:00: open until the later closes", "Sat 20:00-24:00; Sun 00:00-02:00", "2026-11-28T23:00:00Z", at{true, "2026-11-29T02:00:00Z"}},
		// A second's gap before the last window ends the opening.
		{"overlapping windows: open until the last of them closes", "Mon 08:00-12:00; Mon 10:00-14:00; Mon 14:00-15:00; Mon 15:00:01-16:00", "2026-11-30T09:00:00Z", at{true, "2026-11-30T15:00:00Z"}},
		{"a window within another", "Mon 08:00-18:00; Mon 09:00-10:00", "2026-11-30T09:30:00Z", at{true, "2026-11-30T18:00:00Z"}},
		{"the earliest of the next openings", "Wed 10:00-11:00; Tue 12:00-13:00; Tue 09:00-10:00 Europe/Amsterdam", "2026-11-30T12:00:00Z", at{false, "2026-12-01T08:00:00Z"}},
		// New York's 08:00 is 14:00 in Amsterdam: open until 17:00 there.
		{"two zones overlapping", office + "; Mon-Fri 08:00-17:00 America/New_York", "2026-11-30T16:00:00+01:00", at{true, "2026-11-30T23:00:00+01:00"}},
		{"open all day every day: never closes", "* 00:00-24:00 Europe/Amsterdam", "2026-11-28T12:00:00Z", at{true, ""}},
		{"open all week but an hour: closes within 8 days", "Mon-Sat 00:00-24:00; Sun 00:00-23:00", "2026-11-30T00:00:00Z", at{true, "2026-12-06T23:00:00Z"}},

		// Amsterdam: 2026-03-29 02:00 CET (01:00Z) is 03:00 CEST.
		{"Amsterdam spring: a skipped opening opens at time.Date's 03:30 CEST", "Sun 02:30-05:00 Europe/Amsterdam", "2026-03-28T12:00:00Z", at{false, "2026-03-29T01:30:00Z"}},
		{"Amsterdam spring: an overnight window is an hour shorter", "Sat 22:00-06:00 Europe/Amsterdam", "2026-03-28T21:00:00Z", at{true, "2026-03-29T04:00:00Z"}},
		{"Amsterdam spring: open at the change", "Sun 01:00-04:00 Europe/Amsterdam", "2026-03-29T01:00:00Z", at{true, "2026-03-29T02:00:00Z"}},
		{"Amsterdam spring: a window in the skipped hour does not open that night", "Sun 02:30-03:00 Europe/Amsterdam", "2026-03-28T12:00:00Z", at{false, "2026-04-05T00:30:00Z"}},
		// Amsterdam: 2026-10-25 03:00 CEST (01:00Z) is 02:00 CET.
		{"Amsterdam autumn: a repeated opening opens at the second 02:30", "Sun 02:30-04:00 Europe/Amsterdam", "2026-10-24T12:00:00Z", at{false, "2026-10-25T01:30:00Z"}},
		{"Amsterdam autumn: closed at the first 02:45", "Sun 02:30-04:00 Europe/Amsterdam", "2026-10-25T00:45:00Z", at{false, "2026-10-25T01:30:00Z"}},
		{"Amsterdam autumn: an overnight window is an hour longer", "Sat 22:00-06:00 Europe/Amsterdam", "2026-10-24T20:00:00Z", at{true, "2026-10-25T05:00:00Z"}},
		// New York: 2026-03-08 02:00 EST (07:00Z) is 03:00 EDT.
		{"New York spring: a skipped opening opens at time.Date's 01:30 EST", "Sun 02:30-05:00 America/New_York", "2026-03-07T12:00:00Z", at{false, "2026-03-08T06:30:00Z"}},
		{"New York spring: open across the change", "Sat 22:00-06:00 America/New_York", "2026-03-08T06:59:59Z", at{true, "2026-03-08T10:00:00Z"}},
		// New York: 2026-11-01 02:00 EDT (06:00Z) is 01:00 EST.
		{"New York autumn: a repeated opening opens at the first 01:30", "Sun 01:30-03:00 America/New_York", "2026-10-31T12:00:00Z", at{false, "2026-11-01T05:30:00Z"}},
		{"New York autumn: open at the second 01:15", "Sun 01:30-03:00 America/New_York", "2026-11-01T06:15:00Z", at{true, "2026-11-01T08:00:00Z"}},
		// Sao Paulo: 2018-11-04 00:00 -03 (03:00Z) was 01:00 -02; time.Date
		// reads Sunday's 00:00 as Saturday's 23:00 -03.
		{"a change at midnight: Sunday's window opens on Saturday evening", "Sun 00:00-02:00 America/Sao_Paulo", "2018-11-04T02:30:00Z", at{true, "2018-11-04T04:00:00Z"}},
		// Algiers: 1971-04-25 23:00 +00 (23:00Z) was 1971-04-26 00:00 +01;
		// time.Date reads Sunday's 23:30 as Monday's 00:30.
		{"a change before midnight: Saturday's overnight window closes on Monday", "Sat 23:45-23:30 Africa/Algiers", "1971-04-25T23:15:00Z", at{true, "1971-04-25T23:30:00Z"}},
		// Apia skipped Friday 2011-12-30: time.Date reads its 10:00 as
		// Saturday's (+14, 20:00Z on the 30th).
		{"a skipped day: Friday's window opens on Saturday", "Fri 10:00-12:00 Pacific/Apia", "2011-12-29T22:00:00Z", at{false, "2011-12-30T20:00:00Z"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, err := window.Parse(tt.windows)
			if err != nil {
				t.Fatal(err)
			}
			before := slices.Clone(ws)
			open, change, err := ws.At(rfc3339(t, tt.now), time.LoadLocation)
			if err != nil {
				t.Fatalf("At() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, at{open, format(change)}); diff != "" {
				t.Errorf("At(%s) mismatch (-want +got):\n%s", tt.now, diff)
			}
			if diff := cmp.Diff(before, ws); diff != "" {
				t.Errorf("At() modified the windows (-before +after):\n%s", diff)
			}
		})
	}
}

func TestWindowsAtNamedLocation(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	ws, err := window.Parse("Mon-Fri 08:00-17:00 Europe/Amsterdam")
	if err != nil {
		t.Fatal(err)
	}
	// Saturday 2026-11-28 06:00 in New York; Monday 08:00 in Amsterdam
	// is 02:00 in New York.
	open, change, err := ws.At(time.Date(2026, 11, 28, 6, 0, 0, 0, ny), time.LoadLocation)
	if err != nil {
		t.Fatal(err)
	}
	want := at{false, "2026-11-30T02:00:00-05:00 America/New_York"}
	if diff := cmp.Diff(want, at{open, format(change) + " " + change.Location().String()}); diff != "" {
		t.Errorf("At() mismatch (-want +got):\n%s", diff)
	}
}

func TestWindowsAtEmpty(t *testing.T) {
	for _, ws := range []window.Windows{nil, {}} {
		open, change, err := ws.At(time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC), nil)
		if diff := cmp.Diff(at{true, ""}, at{open, format(change)}); diff != "" || err != nil {
			t.Errorf("%#v.At() = %v, %v, want open, never changing (-want +got):\n%s", ws, err, open, diff)
		}
	}
}

func TestWindowsAtErrors(t *testing.T) {
	valid := window.Window{Days: weekdays, Start: 8 * time.Hour, End: 17 * time.Hour, Zone: "UTC"}
	with := func(f func(*window.Window)) window.Window {
		w := valid
		f(&w)
		return w
	}
	errNoZone := errors.New("no such zone")
	noZone := func(string) (*time.Location, error) { return nil, errNoZone }
	tests := []struct {
		name  string
		ws    window.Windows
		zones window.Zones
		want  string
		is    error
	}{
		{"an unknown zone is named", window.Windows{valid, with(func(w *window.Window) { w.Zone = "Mars/Olympus_Mons" })}, time.LoadLocation,
			`zone "Mars/Olympus_Mons": unknown time zone Mars/Olympus_Mons`, nil},
		{"the error of zones is wrapped", window.Windows{with(func(w *window.Window) { w.Zone = "Europe/Amsterdam" })}, noZone,
			`zone "Europe/Amsterdam": no such zone`, errNoZone},
		{"no zones for a zone but UTC", window.Windows{with(func(w *window.Window) { w.Zone = "Europe/Amsterdam" })}, nil,
			`zone "Europe/Amsterdam": no time zone database to read it from`, nil},
		{"zones gives no location", window.Windows{with(func(w *window.Window) { w.Zone = "Europe/Amsterdam" })}, func(string) (*time.Location, error) { return nil, nil },
			`zone "Europe/Amsterdam": no location`, nil},
		{"no day", window.Windows{with(func(w *window.Window) { w.Days = [7]bool{} })}, nil, "no day", nil},
		{"no zone, the second of two", window.Windows{valid, with(func(w *window.Window) { w.Zone = "" })}, nil, "window 2: no zone (write UTC)", nil},
		{"start at 24:00", window.Windows{with(func(w *window.Window) { w.Start = 24 * time.Hour })}, nil, "start 24h0m0s is not a whole second from 00:00 to 23:59:59", nil},
		{"a negative start", window.Windows{with(func(w *window.Window) { w.Start = -time.Second })}, nil, "start -1s is not a whole second from 00:00 to 23:59:59", nil},
		{"end past 24:00", window.Windows{with(func(w *window.Window) { w.End = 25 * time.Hour })}, nil, "end 25h0m0s is not a whole second from 00:00 to 24:00", nil},
		{"a fraction of a second", window.Windows{with(func(w *window.Window) { w.End += time.Millisecond })}, nil, "end 17h0m0.001s is not a whole second from 00:00 to 24:00", nil},
		{"an empty window", window.Windows{with(func(w *window.Window) { w.End = w.Start })}, nil, "empty window 08:00-08:00; for all day write 00:00-24:00", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := tt.ws.At(time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC), tt.zones)
			if err == nil {
				t.Fatalf("At() error = nil, want %q", tt.want)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("At() error mismatch (-want +got):\n%s", diff)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("At() error %v is not %v", err, tt.is)
			}
		})
	}
}

// cachedZones resolves zones with time.LoadLocation once each.
func cachedZones(names ...string) window.Zones {
	locs := map[string]*time.Location{}
	for _, n := range names {
		loc, err := time.LoadLocation(n)
		if err != nil {
			panic(err)
		}
		locs[n] = loc
	}
	return func(name string) (*time.Location, error) {
		if loc, ok := locs[name]; ok {
			return loc, nil
		}
		return time.LoadLocation(name)
	}
}

func TestWindowsAtAllocs(t *testing.T) {
	ws, err := window.Parse("Mon-Fri 08:00-17:00 Europe/Amsterdam; Sat-Sun 10:00-12:00 America/New_York; * 23:00-01:00 UTC")
	if err != nil {
		t.Fatal(err)
	}
	zones := cachedZones("Europe/Amsterdam", "America/New_York")
	now := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	allocs := testing.AllocsPerRun(100, func() {
		if _, _, err := ws.At(now, zones); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("At() allocates %v times, want 0", allocs)
	}
}
