package window

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Zones resolves a time zone name ("Europe/Amsterdam") to a location;
// time.LoadLocation is one. The library reads no zone database itself: a
// program passes one (and embeds time/tzdata when its image has no
// /usr/share/zoneinfo). Windows.At resolves "UTC" itself and calls Zones
// once per other zone name and call; time.LoadLocation reads the database
// on every call, so a program that calls At often passes a lookup that
// keeps what it loaded.
type Zones func(name string) (*time.Location, error)

// Window is one maintenance window: the days it opens on, its opening and
// closing times of day, and its time zone. A window whose End is not
// after its Start closes the next day (22:00-04:00 opens on its days at
// 22:00 and closes the next morning at 04:00; 22:00-00:00 closes at
// midnight, as 22:00-24:00 does).
type Window struct {
	// Days are the weekdays it opens on, indexed by time.Weekday
	// (Days[time.Sunday] is Sunday).
	Days [7]bool
	// Start and End are times of day since midnight, whole seconds of
	// wall clock in Zone: 0 <= Start < 24h, 0 <= End <= 24h, Start !=
	// End.
	Start, End time.Duration
	// Zone is the time zone name, "UTC" when the annotation names none.
	Zone string
}

// Windows are maintenance windows; a rollout deletes old pods only while
// one is open. Empty Windows are always open.
type Windows []Window

// Parse parses the window annotation: windows separated by ";"
// (with or without white space around it), each "<days> <start>-<end>
// [<zone>]", its fields separated by white space, and returns them in
// the order written:
//
//  1. Days are weekday names of three letters, in any case (Mon Tue Wed
//     Thu Fri Sat Sun), ranges of them ("Mon-Fri"; "Sat-Mon" wraps over
//     the weekend; a range names at least two days), comma lists of both
//     ("Mon,Wed,Fri-Sun"), or "*" for every day.
//  2. Times are "HH:MM" or "HH:MM:SS" from 00:00 to 23:59:59 (the hour
//     may have one digit: "8:00" is 08:00). End may be "24:00"; an End
//     before Start closes the next day ("22:00-04:00"); Start equal to
//     End is an error (an all-day window is "00:00-24:00").
//  3. The zone is an IANA name such as "Europe/Amsterdam",
//     "Etc/GMT+5" or "UTC", the default: names separated by "/", each a
//     letter and then letters, digits, "_", "-" or "+". "Local", the
//     machine's zone, is refused.
//
// It checks the syntax only: a zone is resolved when the windows are read
// (Windows.At). The error of a bad annotation, with nil windows, names
// the bad part (and which window, by its number from 1, when there are
// several) and, for a near miss such as "Fry", "Tues", "weekdays", "utc"
// or "0800", what was probably meant. An empty string is an error, and
// so is an empty window (a stray ";").
func Parse(s string) (Windows, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf(`no window: want %s, such as "Mon-Fri 08:00-17:00 Europe/Amsterdam"`, windowSyntax)
	}
	parts := strings.Split(s, ";")
	ws := make(Windows, 0, len(parts))
	for i, p := range parts {
		w, err := parseWindow(p)
		if err != nil {
			return nil, windowError(i, len(parts), err)
		}
		ws = append(ws, w)
	}
	return ws, nil
}

// windowError says err is about the i-th of n windows, naming it by its
// number from 1 when there are several.
func windowError(i, n int, err error) error {
	if n > 1 {
		return fmt.Errorf("window %d: %w", i+1, err)
	}
	return err
}

// windowSyntax is one window's syntax, for error messages.
const windowSyntax = `"<days> <start>-<end> [<zone>]"`

// String writes ws back as Parse reads it, in the order of ws:
// windows separated by "; "; days as "*" for every day, else as runs of
// consecutive days in the order of their first days from Monday, a run
// of two days or more as a range ("Wed,Fri-Mon" for Mon,Wed,Fri-Sun);
// times as HH:MM, HH:MM:SS when they have seconds; the zone always
// ("UTC" too). For windows Parse gave, Parse(ws.String())
// equals ws; String of other windows is for reading only.
func (ws Windows) String() string {
	var b strings.Builder
	for i, w := range ws {
		if i > 0 {
			b.WriteString("; ")
		}
		w.format(&b)
	}
	return b.String()
}

// format writes w as Parse reads it.
func (w Window) format(b *strings.Builder) {
	formatDays(b, w.Days)
	b.WriteByte(' ')
	formatClock(b, w.Start)
	b.WriteByte('-')
	formatClock(b, w.End)
	b.WriteByte(' ')
	b.WriteString(w.Zone)
}

// check returns why w is not a window Parse could give, or nil.
func (w Window) check() error {
	switch {
	case w.Days == [7]bool{}:
		return errors.New("no day")
	case w.Start < 0 || w.Start >= 24*time.Hour || w.Start%time.Second != 0:
		return fmt.Errorf("start %v is not a whole second from 00:00 to 23:59:59", w.Start)
	case w.End < 0 || w.End > 24*time.Hour || w.End%time.Second != 0:
		return fmt.Errorf("end %v is not a whole second from 00:00 to 24:00", w.End)
	case w.Start == w.End:
		var b strings.Builder
		formatClock(&b, w.Start)
		b.WriteByte('-')
		formatClock(&b, w.End)
		return fmt.Errorf("empty window %s; for all day write 00:00-24:00", b.String())
	case w.Zone == "":
		return errors.New("no zone (write UTC)")
	}
	return nil
}

// dayNames are the days as Parse reads them, by time.Weekday.
var dayNames = [7]string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}

// formatDays writes days as String says: "*" for all seven, else runs
// of consecutive days ("Sat-Mon" wraps) by their first days from Monday.
func formatDays(b *strings.Builder, days [7]bool) {
	on := func(i int) bool { return days[(i%7+7)%7] } // i counts from Monday = 1
	if days == [7]bool{true, true, true, true, true, true, true} {
		b.WriteByte('*')
		return
	}
	first := true
	for i := 1; i <= 7; i++ {
		if !on(i) || on(i-1) {
			continue // not the first day of a run
		}
		last := i
		for on(last + 1) {
			last++
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteString(dayNames[i%7])
		if last != i {
			b.WriteByte('-')
			b.WriteString(dayNames[last%7])
		}
	}
}

// formatClock writes d, a time of day, as HH:MM or HH:MM:SS.
func formatClock(b *strings.Builder, d time.Duration) {
	s := int64(d / time.Second)
	h, m, sec := s/3600, s/60%60, s%60
	fmt.Fprintf(b, "%02d:%02d", h, m)
	if sec != 0 {
		fmt.Fprintf(b, ":%02d", sec)
	}
}
