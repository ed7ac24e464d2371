package progressive

import (
	"time"
)

// Zones resolves a time zone name ("Europe/Amsterdam", "UTC") to a
// location; time.LoadLocation is one. The library reads no zone database
// itself: a program passes one (and embeds time/tzdata when its image has
// no /usr/share/zoneinfo).
type Zones func(name string) (*time.Location, error)

// Window is one maintenance window: the days it opens on, its opening and
// closing times of day, and its time zone. A window whose End is not
// after its Start closes the next day (22:00-04:00 opens on its days at
// 22:00 and closes the next morning).
type Window struct {
	// Days are the weekdays it opens on.
	Days [7]bool
	// Start and End are times of day since midnight, wall clock in Zone;
	// End may be 24h.
	Start, End time.Duration
	// Zone is the time zone name, "UTC" when the annotation names none.
	Zone string
}

// Windows are maintenance windows; a rollout deletes old pods only while
// one is open. Empty Windows are always open.
type Windows []Window

// ParseWindows parses the window annotation: windows separated by ";",
// each "<days> <start>-<end> [<zone>]". Days are weekday names of three
// letters (Mon ... Sun), ranges of them ("Mon-Fri", "Sat-Mon") and lists
// ("Mon,Wed,Fri-Sun"), or "*" for every day; times are "HH:MM" or
// "HH:MM:SS", End may be "24:00"; the zone is an IANA name, "UTC" when
// left out. It checks the syntax only: a zone is resolved when the
// windows are read (Windows.At). An empty string is an error.
func ParseWindows(s string) (Windows, error) {
	return nil, nil
}

// String writes ws back as ParseWindows reads it.
func (ws Windows) String() string { return "" }

// At says whether a window of ws is open at now, and when that changes:
// the closing time of the open window (of the latest closing among
// overlapping ones) when open, the next opening when closed. Wall-clock
// times that a daylight-saving change skips or repeats are resolved as
// Go's time.Date resolves them. Empty ws are open and never change (zero
// change). An unknown zone is an error naming it.
func (ws Windows) At(now time.Time, zones Zones) (open bool, change time.Time, err error) {
	return true, time.Time{}, nil
}
