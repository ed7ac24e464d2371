package window_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/daemon/progressive/window"
)

// fuzzZones are zones with daylight-saving changes of every kind: an
// hour either way, at midnight (Havana, Santiago, historical Sao Paulo
// and Algiers),
// half an hour (Lord Howe), two hours (Troll), a skipped day (Apia,
// 2011-12-30), several changes a year (Casablanca), none (Kolkata).
var fuzzZones = []string{
	"UTC", "Europe/Amsterdam", "America/New_York", "America/Havana", "America/Santiago",
	"America/Sao_Paulo", "Australia/Lord_Howe", "Antarctica/Troll", "Pacific/Apia",
	"Africa/Casablanca", "Africa/Algiers", "Asia/Kolkata", "Pacific/Chatham",
}

// loaded resolves zones with time.LoadLocation once each, errors too.
var loaded = struct {
	sync.Mutex
	locs map[string]*time.Location
	errs map[string]error
}{locs: map[string]*time.Location{}, errs: map[string]error{}}

func loadZone(name string) (*time.Location, error) {
	loaded.Lock()
	defer loaded.Unlock()
	if loc, ok := loaded.locs[name]; ok {
		return loc, loaded.errs[name]
	}
	loc, err := time.LoadLocation(name)
	loaded.locs[name], loaded.errs[name] = loc, err
	return loc, err
}

// span is one opening of a window, [start, end).
type span struct{ start, end time.Time }

// openingsNear lists the openings of ws on the dates from before days
// before t's to after days after it, each date's in its window's zone:
// the oracle, computed as the doc says without Windows.At's shortcuts.
func openingsNear(ws window.Windows, locs []*time.Location, t time.Time, before, after int) []span {
	var out []span
	for i, w := range ws {
		y, m, d := t.In(locs[i]).Date()
		for k := -before; k <= after; k++ {
			if !w.Days[time.Date(y, m, d+k, 12, 0, 0, 0, time.UTC).Weekday()] {
				continue
			}
			at := func(day int, c time.Duration) time.Time {
				s := int(c / time.Second)
				return time.Date(y, m, day, s/3600, s/60%60, s%60, 0, locs[i])
			}
			start, end := at(d+k, w.Start), at(d+k, w.End)
			if w.End <= w.Start {
				end = at(d+k+1, w.End)
			}
			if start.Before(end) {
				out = append(out, span{start, end})
			}
		}
	}
	return out
}

// openSlow reports whether an opening of ws holds t.
func openSlow(ws window.Windows, locs []*time.Location, t time.Time) bool {
	for _, s := range openingsNear(ws, locs, t, 3, 2) {
		if !t.Before(s.start) && t.Before(s.end) {
			return true
		}
	}
	return false
}

// FuzzWindows parses a window annotation and checks: Parse never
// panics and gives no windows with an error; String parses back to the
// same windows and writes them the same again; At fails only for a zone
// time.LoadLocation cannot load, and names it; At agrees with a slow
// oracle: open as an opening holds now; when open, open a nanosecond
// before the change and closed at it (the first closing: every opening
// that ends in between ends inside another), or, when the change is
// zero, no closing within 8 days; when closed, open at the change,
// closed a nanosecond before, and no opening starts in between; the
// change is in now's location.
func FuzzWindows(f *testing.F) {
	seeds := []string{
		"Mon-Fri 08:00-17:00 Europe/Amsterdam",
		"Fri 22:00-04:00 Europe/Amsterdam",
		"Sat 20:00-24:00; Sun 00:00-02:00",
		"Mon 08:00-12:00; Mon 10:00-14:00; Mon 14:00-15:00; Mon 15:00:01-16:00",
		"* 00:00-24:00 Europe/Amsterdam",
		"Mon-Sat 00:00-24:00 America/New_York; Sun 00:00-23:00 UTC",
		"Sun 02:30-03:00 Europe/Amsterdam",
		"Sat-Mon 23:30-00:30 America/Havana; Wed 0:00-1:00 America/Santiago",
		"* 00:00-02:30; * 03:00-24:00 Australia/Lord_Howe",
		"Thu,Fri 10:00-09:59:59 Pacific/Apia",
		"mon,WED 8:00-9:30:15 Africa/Casablanca ;sun 00:00-24:00 Antarctica/Troll",
		"* 12:00-12:00:01 Pacific/Chatham; Tue-Mon 23:59:59-00:00 Asia/Kolkata",
		"Mon-Fry 08:00-17:00",
		"Mon 08:00-17:00 Mars/Olympus_Mons",
		"Mon 0800-17.00 utc; ;",
	}
	for i, s := range seeds {
		f.Add(s, int64(i)*86_400_000_000_007, uint8(i))
	}
	base := time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	const years80 = 80 * 365 * 24 * time.Hour
	f.Fuzz(func(t *testing.T, s string, offset int64, zone uint8) {
		ws, err := window.Parse(s)
		if err != nil {
			if ws != nil {
				t.Fatalf("Parse(%q) = %v with error %v", s, ws, err)
			}
			return
		}
		str := ws.String()
		back, err := window.Parse(str)
		if err != nil {
			t.Fatalf("Parse(%q) of String() of Parse(%q): %v", str, s, err)
		}
		if diff := cmp.Diff(ws, back); diff != "" {
			t.Fatalf("Parse(String()) of %q mismatch (-first +again):\n%s", s, diff)
		}
		if again := back.String(); again != str {
			t.Fatalf("String() of %q is %q, then %q", s, str, again)
		}

		nowLoc, err := loadZone(fuzzZones[int(zone)%len(fuzzZones)])
		if err != nil {
			t.Fatal(err)
		}
		now := base.Add(time.Duration(uint64(offset) % uint64(years80))).In(nowLoc)
		open, change, err := ws.At(now, loadZone)
		locs := make([]*time.Location, len(ws))
		for i, w := range ws {
			loc, zerr := loadZone(w.Zone)
			if zerr != nil {
				if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", w.Zone)) {
					t.Fatalf("At() error = %v, want one naming zone %q", err, w.Zone)
				}
				return
			}
			locs[i] = loc
		}
		if err != nil {
			t.Fatalf("At(%v) error = %v", now, err)
		}
		if want := openSlow(ws, locs, now); open != want {
			t.Fatalf("%q at %v: At() open = %v, the oracle says %v", str, now, open, want)
		}
		if !change.IsZero() && change.Location() != now.Location() {
			t.Errorf("At() change %v is not in now's location %v", change, now.Location())
		}
		checkChange(t, ws, locs, str, now, open, change)
	})
}

// checkChange checks At's change against the oracle (see FuzzWindows).
func checkChange(t *testing.T, ws window.Windows, locs []*time.Location, str string, now time.Time, open bool, change time.Time) {
	if change.IsZero() {
		if !open {
			t.Fatalf("%q at %v: closed and never opens", str, now)
		}
		for _, s := range openingsNear(ws, locs, now, 3, 10) {
			if s.end.After(now) && s.end.Before(now.Add(8*24*time.Hour)) && !openSlow(ws, locs, s.end) {
				t.Fatalf("%q at %v: At() says open for 8 days, the oracle closes at %v", str, now, s.end)
			}
		}
		return
	}
	if !change.After(now) {
		t.Fatalf("%q at %v: change %v is not after now", str, now, change)
	}
	if got := openSlow(ws, locs, change.Add(-time.Nanosecond)); got != open {
		t.Fatalf("%q at %v: open %v, but %v a nanosecond before the change %v", str, now, open, got, change)
	}
	if got := openSlow(ws, locs, change); got == open {
		t.Fatalf("%q at %v: open %v, and still %v at the change %v", str, now, open, got, change)
	}
	days := int(change.Sub(now)/(24*time.Hour)) + 2
	for _, s := range openingsNear(ws, locs, now, 3, days) {
		if open && s.end.After(now) && s.end.Before(change) && !openSlow(ws, locs, s.end) {
			t.Fatalf("%q at %v: At() says open until %v, the oracle closes at %v", str, now, change, s.end)
		}
		if !open && s.start.After(now) && s.start.Before(change) {
			t.Fatalf("%q at %v: At() says closed until %v, the oracle opens at %v", str, now, change, s.start)
		}
	}
}

// TestWindowsAtOracle checks At against the oracle as FuzzWindows does,
// for windows of every shape in fuzzZones at random moments from 1970
// to 2050, half of them within three days of a zone's change.
func TestWindowsAtOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 3))
	base := time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	n := 20_000
	if testing.Short() {
		n = 2_000
	}
	for range n {
		ws := make(window.Windows, 1+r.IntN(3))
		locs := make([]*time.Location, len(ws))
		for i := range ws {
			w := &ws[i]
			for !slices.Contains(w.Days[:], true) {
				for d := range w.Days {
					w.Days[d] = r.IntN(3) == 0
				}
			}
			// Times on the hour or the half hour, as windows are written,
			// or any second.
			clock := func(limit int) time.Duration {
				if r.IntN(2) == 0 {
					return time.Duration(r.IntN(limit/1800)) * 30 * time.Minute
				}
				return time.Duration(r.IntN(limit)) * time.Second
			}
			for w.Start == w.End {
				w.Start, w.End = clock(86_400), clock(86_401)
			}
			w.Zone = fuzzZones[r.IntN(len(fuzzZones))]
			var err error
			if locs[i], err = loadZone(w.Zone); err != nil {
				t.Fatal(err)
			}
		}
		now := base.Add(time.Duration(r.Int64N(int64(80 * 365 * 24 * time.Hour))))
		if r.IntN(2) == 0 {
			if _, end := now.In(locs[0]).ZoneBounds(); !end.IsZero() {
				now = end.Add(time.Duration(r.Int64N(int64(6*24*time.Hour))) - 3*24*time.Hour)
			}
		}
		now = now.In(locs[r.IntN(len(locs))])
		str := ws.String()
		open, change, err := ws.At(now, loadZone)
		if err != nil {
			t.Fatalf("%q at %v: %v", str, now, err)
		}
		if want := openSlow(ws, locs, now); open != want {
			t.Fatalf("%q at %v: At() open = %v, the oracle says %v", str, now, open, want)
		}
		checkChange(t, ws, locs, str, now, open, change)
	}
}
