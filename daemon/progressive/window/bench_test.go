package window_test

import (
	"testing"
	"time"

	"github.com/daemonplan/daemonplan/daemon/progressive/window"
)

// BenchmarkWindowsAt times Windows.At, which a controller calls on every
// sync of every DaemonSet with windows: open and closed, one window and
// several zones, an opening continued for a week, and the same with
// time.LoadLocation as zones, which reads the zone database on each call
// (programs keep what they loaded).
func BenchmarkWindowsAt(b *testing.B) {
	zones := cachedZones("Europe/Amsterdam", "America/New_York", "Asia/Tokyo")
	friday := time.Date(2026, 11, 27, 15, 0, 0, 0, time.UTC)
	saturday := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	for _, bb := range []struct {
		name, windows string
		now           time.Time
		zones         window.Zones
	}{
		{"office hours/open", "Mon-Fri 08:00-17:00 Europe/Amsterdam", friday, zones},
		{"office hours/closed", "Mon-Fri 08:00-17:00 Europe/Amsterdam", saturday, zones},
		{"three zones/closed", "Mon-Fri 08:00-17:00 Europe/Amsterdam; Sat 22:00-04:00 America/New_York; Sun 01:00-03:00 Asia/Tokyo", saturday, zones},
		{"open all week", "Mon-Sat 00:00-24:00; Sun 00:00-23:00", friday, zones},
		{"office hours/open/time.LoadLocation", "Mon-Fri 08:00-17:00 Europe/Amsterdam", friday, time.LoadLocation},
	} {
		ws, err := window.Parse(bb.windows)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := ws.At(bb.now, bb.zones); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParse times Parse of three windows, as a
// controller parses the annotations on every sync.
func BenchmarkParse(b *testing.B) {
	const s = "Mon-Fri 08:00-17:00 Europe/Amsterdam; Sat-Mon 22:00-04:00 America/New_York; * 12:00:30-12:45"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := window.Parse(s); err != nil {
			b.Fatal(err)
		}
	}
}
