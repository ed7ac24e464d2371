package window

import (
	"fmt"
	"time"
)

const (
	// windowLookAhead is how far At follows an opening that other
	// openings continue: windows open for longer count as never closing.
	windowLookAhead = 8 * 24 * time.Hour
	// windowSearchDays is how many days after now's date At looks for the
	// next opening: a week and a day, doubled for a week whose opening a
	// daylight-saving change swallowed.
	windowSearchDays = 15
)

// At says whether a window of ws is open at now, and when that changes,
// in now's location:
//   - when open, the end of the opening now is in, continued by every
//     opening that overlaps or touches it (Mon 20:00-24:00 and Tue
//     00:00-06:00 are open until Tue 06:00): when a rollout must stop.
//     It is zero when that is 8 days away or more, as for windows that
//     leave no gap ("* 00:00-24:00"), which never close;
//   - when closed, when the next window opens, within 15 days (every
//     window opens on some day of the week).
//
// A window opens on each of its days at Start and closes at End that day
// (the next day when End is not after Start), wall clock in its zone,
// read as Go's time.Date reads it. A wall time that a daylight-saving
// change skips is read with the offset of one side of the change:
// Europe/Amsterdam's 02:30 on 2026-03-29 is 03:30 CEST, America/New_York's
// on 2026-03-08 is 01:30 EST. A wall time that a change repeats is one of
// its two instants: Amsterdam's 02:30 on 2026-10-25 the second (CET), New
// York's 01:30 on 2026-11-01 the first (EDT). A window that so closes
// no later than it opens (Amsterdam's "Sun 02:30-03:00" on 2026-03-29)
// does not open that day.
//
// Empty ws are open and never change (zero change). Every zone but "UTC"
// is resolved with zones, once per name and call (zones may be nil when
// all are UTC). A zone it cannot resolve is an error naming the zone,
// and a window Parse would not give is an error saying why; with
// an error, open is false and change zero. It modifies nothing and, for
// up to 8 windows, allocates nothing beyond what zones does.
func (ws Windows) At(now time.Time, zones Zones) (open bool, change time.Time, err error) {
	if len(ws) == 0 {
		return true, time.Time{}, nil
	}
	var buf [8]*time.Location
	locs, err := ws.locations(buf[:0], zones)
	if err != nil {
		return false, time.Time{}, err
	}
	if until, ok := ws.openUntil(now, locs); ok {
		for horizon := now.Add(windowLookAhead); until.Before(horizon); {
			next, ok := ws.openUntil(until, locs)
			if !ok {
				return true, until.In(now.Location()), nil
			}
			until = next
		}
		return true, time.Time{}, nil
	}
	next, ok := ws.nextOpening(now, locs)
	if !ok {
		return false, time.Time{}, fmt.Errorf("no window opens within %d days of %s", windowSearchDays, now.Format(time.RFC3339))
	}
	return false, next.In(now.Location()), nil
}

// locations checks each window of ws and resolves its zone, appending the
// locations to locs, one per window; a name repeated is resolved once.
func (ws Windows) locations(locs []*time.Location, zones Zones) ([]*time.Location, error) {
	for i, w := range ws {
		if err := w.check(); err != nil {
			return nil, windowError(i, len(ws), err)
		}
		var loc *time.Location
		for j := range i {
			if ws[j].Zone == w.Zone {
				loc = locs[j]
				break
			}
		}
		switch {
		case loc != nil:
		case w.Zone == "UTC":
			loc = time.UTC
		case zones == nil:
			return nil, fmt.Errorf("zone %q: no time zone database to read it from", w.Zone)
		default:
			var err error
			if loc, err = zones(w.Zone); err != nil {
				return nil, fmt.Errorf("zone %q: %w", w.Zone, err)
			}
			if loc == nil {
				return nil, fmt.Errorf("zone %q: no location", w.Zone)
			}
		}
		locs = append(locs, loc)
	}
	return locs, nil
}

// opening returns the opening of w on date y-m-d in loc: [start, end),
// empty when a daylight-saving change makes end not after start.
func (w *Window) opening(y int, m time.Month, d int, loc *time.Location) (start, end time.Time) {
	start = time.Date(y, m, d, 0, 0, int(w.Start/time.Second), 0, loc)
	if w.End <= w.Start {
		d++
	}
	return start, time.Date(y, m, d, 0, 0, int(w.End/time.Second), 0, loc)
}

// openUntil returns the latest end of the openings of ws that t is in,
// and false when it is in none. An opening on date D ends on D+1, so
// the dates around t's are enough: two before and one after, as a change
// at midnight moves a wall time to the day before (America/Sao_Paulo's
// 2018-11-04 00:00 is 2018-11-03 23:00) or after (Africa/Algiers'
// 1971-04-25 23:30 is 1971-04-26 00:30).
func (ws Windows) openUntil(t time.Time, locs []*time.Location) (until time.Time, open bool) {
	for i := range ws {
		w := &ws[i]
		local := t.In(locs[i])
		y, m, d := local.Date()
		wd := int(local.Weekday())
		for k := -2; k <= 1; k++ {
			if !w.Days[(wd+k+7)%7] {
				continue
			}
			start, end := w.opening(y, m, d+k, locs[i])
			if !start.After(t) && t.Before(end) && (!open || end.After(until)) {
				until, open = end, true
			}
		}
	}
	return until, open
}

// nextOpening returns the earliest start of an opening of ws after t,
// and false when none starts within windowSearchDays of t's date.
func (ws Windows) nextOpening(t time.Time, locs []*time.Location) (next time.Time, found bool) {
	for i := range ws {
		w := &ws[i]
		local := t.In(locs[i])
		y, m, d := local.Date()
		wd := int(local.Weekday())
		// Openings start later day by day; a day past the first found
		// covers a change that moves a wall time over midnight.
		last := windowSearchDays
		for k := -2; k <= last; k++ {
			if !w.Days[(wd+k%7+7)%7] {
				continue
			}
			start, end := w.opening(y, m, d+k, locs[i])
			if !start.After(t) || !start.Before(end) {
				continue
			}
			if !found || start.Before(next) {
				next, found = start, true
			}
			last = min(last, k+1)
		}
	}
	return next, found
}
