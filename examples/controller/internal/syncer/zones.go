package syncer

import (
	"fmt"
	"sync"
	"time"
	// The maintenance windows' time zones resolve with time.LoadLocation
	// also where the image has no /usr/share/zoneinfo (a distroless
	// image): the zone database is embedded, for both modes.
	_ "time/tzdata"

	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/daemon/progressive/window"
)

// NewZoneCache returns load with the zones it resolved kept (at most the
// zone database's few hundred): time.LoadLocation reads and parses the
// database on every call, and a DaemonSet with windows is synced on every
// event of its pods. An unknown name is asked again each time. It is what
// both modes pass to progressive.Gates.Hold, with time.LoadLocation as
// load.
func NewZoneCache(load window.Zones) window.Zones {
	var mu sync.Mutex
	known := map[string]*time.Location{}
	return func(name string) (*time.Location, error) {
		mu.Lock()
		defer mu.Unlock()
		if loc, ok := known[name]; ok {
			return loc, nil
		}
		loc, err := load(name)
		if err == nil {
			known[name] = loc
		}
		return loc, err
	}
}

// HoldMessage says what holds the rollout of the DaemonSet key beyond its
// plan, as every program says it (progressive.Hold.String), and, for an
// approval point or a closed window, what a person can do or wait for:
// "waiting for approval after wave zone=a (kubectl dsplan rollout approve
// ns/ds)", "outside the maintenance windows until 2026-01-01T08:00:00Z
// (* 08:00-09:00 UTC)". windows are the rollout's (Gates.Windows).
func HoldMessage(key string, h progressive.Hold, windows window.Windows) string {
	switch h.Cause {
	case progressive.HoldApproval:
		return fmt.Sprintf("%s (kubectl dsplan rollout approve %s)", h, key)
	case progressive.HoldWindow:
		return fmt.Sprintf("%s (%s)", h, windows)
	}
	return h.String()
}
