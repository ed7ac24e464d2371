package window

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// parseWindow parses one window of the annotation (see Parse).
func parseWindow(s string) (Window, error) {
	if i := strings.IndexAny(s, "\u2013\u2014"); i >= 0 {
		_, n := utf8.DecodeRuneInString(s[i:])
		return Window{}, fmt.Errorf("%q is a dash: write a hyphen, -", s[i:i+n])
	}
	f := strings.Fields(s)
	switch len(f) {
	case 0:
		return Window{}, errors.New(`empty: remove the extra ";"`)
	case 1:
		if strings.Contains(f[0], ":") {
			return Window{}, fmt.Errorf("no days before %q: want %s", f[0], windowSyntax)
		}
		return Window{}, fmt.Errorf("no times after %q: want %s", f[0], windowSyntax)
	}
	w := Window{Zone: "UTC"}
	var err error
	if w.Days, err = parseDays(f[0]); err != nil {
		return Window{}, err
	}
	if w.Start, w.End, err = parseTimes(f[1]); err != nil {
		return Window{}, err
	}
	if len(f) > 2 {
		if w.Zone, err = parseZone(f[2]); err != nil {
			return Window{}, err
		}
	}
	if len(f) > 3 {
		return Window{}, fmt.Errorf(`unexpected %q after the zone: a window is %s; separate windows with ";"`, f[3], windowSyntax)
	}
	return w, w.check()
}

// parseDays parses the days of a window: "*", or a comma list of days and
// ranges of days.
func parseDays(s string) ([7]bool, error) {
	var days [7]bool
	for _, item := range strings.Split(s, ",") {
		if item == "*" {
			days = [7]bool{true, true, true, true, true, true, true}
			continue
		}
		if item == "" {
			return days, fmt.Errorf("days %q: an empty day in the list", s)
		}
		a, b, isRange := strings.Cut(item, "-")
		if isRange && (a == "" || b == "" || strings.Contains(b, "-")) {
			return days, fmt.Errorf("days %q: a range is two days, such as Mon-Fri", item)
		}
		from, err := parseDay(a)
		if err != nil {
			return days, err
		}
		if !isRange {
			days[from] = true
			continue
		}
		to, err := parseDay(b)
		if err != nil {
			return days, err
		}
		if from == to {
			return days, fmt.Errorf("days %q: a range from a day to itself; write %s for the day, * for every day", item, dayNames[from])
		}
		for d := from; ; d = (d + 1) % 7 {
			days[d] = true
			if d == to {
				break
			}
		}
	}
	return days, nil
}

// parseDay parses one day name, in any case.
func parseDay(s string) (time.Weekday, error) {
	for d, name := range dayNames {
		if strings.EqualFold(s, name) {
			return time.Weekday(d), nil
		}
	}
	hint := ""
	if strings.Contains(s, ":") {
		hint = `: a window starts with its days, as in "Mon-Fri 08:00-17:00"`
	} else if want := meantDays(s); want != "" {
		hint = ": did you mean " + want + "?"
	}
	return 0, fmt.Errorf("day %q is not one of Mon Tue Wed Thu Fri Sat Sun (or * for every day)%s", s, hint)
}

// meantDays returns the days s, not a day name, probably means, or "": a
// day's full name or its prefix ("Tues", "Thursday"), a name one edit
// from a single day's ("Fry", "Sum"), or a word for several days
// ("weekdays").
func meantDays(s string) string {
	l := strings.ToLower(s)
	switch l {
	case "weekday", "weekdays", "workdays":
		return "Mon-Fri"
	case "weekend", "weekends":
		return "Sat-Sun"
	case "all", "any", "daily", "everyday", "every":
		return "*"
	}
	full := [7]string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"}
	if len(l) >= 2 {
		for d, f := range full {
			if strings.HasPrefix(f, l) {
				return dayNames[d]
			}
		}
	}
	want := ""
	for _, name := range dayNames {
		if withinOneEdit(l, strings.ToLower(name)) {
			if want != "" {
				return "" // two days as near: no guess
			}
			want = name
		}
	}
	return want
}

// parseTimes parses a window's "<start>-<end>".
func parseTimes(s string) (start, end time.Duration, err error) {
	a, b, ok := strings.Cut(s, "-")
	if !ok || a == "" || b == "" {
		return 0, 0, fmt.Errorf("times %q: want <start>-<end> without spaces, such as 08:00-17:00", s)
	}
	if start, err = parseClock(a); err != nil {
		return 0, 0, err
	}
	if start == 24*time.Hour {
		return 0, 0, fmt.Errorf("start %q: a window cannot open at 24:00; write 00:00 of the next day", a)
	}
	if end, err = parseClock(b); err != nil {
		return 0, 0, err
	}
	return start, end, nil
}

// parseClock parses a time of day, "H:MM", "HH:MM" or "HH:MM:SS", from
// 00:00 to 24:00.
func parseClock(s string) (time.Duration, error) {
	d, err := clock(s)
	if err == nil {
		return d, nil
	}
	hint := ""
	if want := meantClock(s); want != "" {
		hint = ": did you mean " + want + "?"
	}
	return 0, fmt.Errorf("time %q: %w%s", s, err, hint)
}

// clock parses a time of day as parseClock does, its error without s.
func clock(s string) (time.Duration, error) {
	hh, rest, _ := strings.Cut(s, ":")
	mm, ss, hasSeconds := strings.Cut(rest, ":")
	if !digits(hh, 1, 2) || !digits(mm, 2, 2) || hasSeconds && !digits(ss, 2, 2) {
		return 0, errors.New("want HH:MM or HH:MM:SS")
	}
	h, _ := strconv.Atoi(hh)
	m, _ := strconv.Atoi(mm)
	sec := 0
	if hasSeconds {
		sec, _ = strconv.Atoi(ss)
	}
	switch {
	case h > 24 || h == 24 && (m != 0 || sec != 0):
		return 0, errors.New("past 24:00")
	case m > 59:
		return 0, fmt.Errorf("minute %02d is past 59", m)
	case sec > 59:
		return 0, fmt.Errorf("second %02d is past 59", sec)
	}
	return time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(sec)*time.Second, nil
}

// meantClock returns the time of day s, which clock refuses, probably
// means ("08.00", "8h00", "0800" are 08:00), or "".
func meantClock(s string) string {
	try := strings.NewReplacer(".", ":", "h", ":", "H", ":").Replace(s)
	if digits(s, 3, 4) {
		try = s[:len(s)-2] + ":" + s[len(s)-2:]
	}
	d, err := clock(try)
	if err != nil {
		return ""
	}
	var b strings.Builder
	formatClock(&b, d)
	return b.String()
}

// digits reports whether s is lo to hi ASCII digits.
func digits(s string, lo, hi int) bool {
	if len(s) < lo || len(s) > hi {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// parseZone checks that s looks like an IANA time zone name: elements
// separated by "/", each a letter followed by letters, digits, "_", "-"
// or "+" ("America/Argentina/Buenos_Aires", "Etc/GMT+5", "UTC").
func parseZone(s string) (string, error) {
	switch {
	case s == "Local":
		return "", errors.New(`zone "Local" is the machine's zone: name one, such as Europe/Amsterdam or UTC`)
	case s != "UTC" && strings.EqualFold(s, "UTC"):
		return "", fmt.Errorf("zone %q: did you mean UTC?", s)
	}
	for _, e := range strings.Split(s, "/") {
		ok := e != "" && isLetter(e[0])
		for i := range len(e) {
			c := e[i]
			ok = ok && (isLetter(c) || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '+')
		}
		if !ok {
			return "", fmt.Errorf("zone %q is not a time zone name: want an IANA name such as Europe/Amsterdam, or UTC", s)
		}
	}
	return s, nil
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// withinOneEdit reports whether a and b are at most one byte insertion,
// deletion or substitution apart (a Levenshtein distance of 0 or 1): the
// package imports no other of this module, so it keeps this small check
// of its own for the day names' near misses.
func withinOneEdit(a, b string) bool {
	if len(a) < len(b) {
		a, b = b, a
	}
	switch len(a) - len(b) {
	case 0:
		diff := 0
		for i := range len(a) {
			if a[i] != b[i] {
				diff++
			}
		}
		return diff <= 1
	case 1:
		// b is a with one byte deleted: skip the first mismatch in a.
		i := 0
		for i < len(b) && a[i] == b[i] {
			i++
		}
		return a[i+1:] == b[i:]
	}
	return false
}
