package window_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/daemon/progressive/window"
)

// days returns the days named, as Window.Days.
func days(ds ...time.Weekday) [7]bool {
	var out [7]bool
	for _, d := range ds {
		out[d] = true
	}
	return out
}

var (
	weekdays = days(time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday)
	everyDay = [7]bool{true, true, true, true, true, true, true}
)

func clockAt(h, m, s int) time.Duration {
	return time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(s)*time.Second
}

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want window.Windows
		// str is String of the result, in when empty.
		str string
	}{{
		name: "office hours in Amsterdam",
		in:   "Mon-Fri 08:00-17:00 Europe/Amsterdam",
		want: window.Windows{{Days: weekdays, Start: clockAt(8, 0, 0), End: clockAt(17, 0, 0), Zone: "Europe/Amsterdam"}},
	}, {
		name: "no zone is UTC, written out",
		in:   "Sat 22:00-04:00",
		want: window.Windows{{Days: days(time.Saturday), Start: clockAt(22, 0, 0), End: clockAt(4, 0, 0), Zone: "UTC"}},
		str:  "Sat 22:00-04:00 UTC",
	}, {
		name: "days in any case, a one-digit hour, spaces around the separator",
		in:   "  mon,WED 8:00-9:30:15 UTC ;sun 00:00-24:00 America/Argentina/Buenos_Aires  ",
		want: window.Windows{
			{Days: days(time.Monday, time.Wednesday), Start: clockAt(8, 0, 0), End: clockAt(9, 30, 15), Zone: "UTC"},
			{Days: days(time.Sunday), Start: 0, End: 24 * time.Hour, Zone: "America/Argentina/Buenos_Aires"},
		},
		str: "Mon,Wed 08:00-09:30:15 UTC; Sun 00:00-24:00 America/Argentina/Buenos_Aires",
	}, {
		name: "a range over the weekend wraps",
		in:   "Sat-Mon 01:00-02:00 Etc/GMT+5",
		want: window.Windows{{Days: days(time.Saturday, time.Sunday, time.Monday), Start: clockAt(1, 0, 0), End: clockAt(2, 0, 0), Zone: "Etc/GMT+5"}},
	}, {
		name: "lists and ranges merge into runs, written from Monday",
		in:   "Fri,Sun,Wed,Sat,Mon 10:00-11:00 UTC",
		want: window.Windows{{Days: days(time.Monday, time.Wednesday, time.Friday, time.Saturday, time.Sunday), Start: clockAt(10, 0, 0), End: clockAt(11, 0, 0), Zone: "UTC"}},
		str:  "Wed,Fri-Mon 10:00-11:00 UTC",
	}, {
		name: "two days in a row are a range",
		in:   "Tue,Wed 10:00-11:00 UTC",
		want: window.Windows{{Days: days(time.Tuesday, time.Wednesday), Start: clockAt(10, 0, 0), End: clockAt(11, 0, 0), Zone: "UTC"}},
		str:  "Tue-Wed 10:00-11:00 UTC",
	}, {
		name: "every day by name or star",
		in:   "Mon-Sun 06:00-07:00 UTC; * 23:00-00:00 UTC; Wed-Tue 01:00-01:00:01 UTC",
		want: window.Windows{
			{Days: everyDay, Start: clockAt(6, 0, 0), End: clockAt(7, 0, 0), Zone: "UTC"},
			{Days: everyDay, Start: clockAt(23, 0, 0), End: 0, Zone: "UTC"},
			{Days: everyDay, Start: clockAt(1, 0, 0), End: clockAt(1, 0, 1), Zone: "UTC"},
		},
		str: "* 06:00-07:00 UTC; * 23:00-00:00 UTC; * 01:00-01:00:01 UTC",
	}, {
		name: "a star in a list is every day",
		in:   "Mon,* 00:00:01-23:59:59 UTC",
		want: window.Windows{{Days: everyDay, Start: clockAt(0, 0, 1), End: clockAt(23, 59, 59), Zone: "UTC"}},
		str:  "* 00:00:01-23:59:59 UTC",
	}, {
		name: "24:00:00 is 24:00",
		in:   "Thu 12:00-24:00:00",
		want: window.Windows{{Days: days(time.Thursday), Start: clockAt(12, 0, 0), End: 24 * time.Hour, Zone: "UTC"}},
		str:  "Thu 12:00-24:00 UTC",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := window.Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q) error = %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
			str := tt.str
			if str == "" {
				str = tt.in
			}
			if diff := cmp.Diff(str, got.String()); diff != "" {
				t.Errorf("String() mismatch (-want +got):\n%s", diff)
			}
			back, err := window.Parse(got.String())
			if err != nil {
				t.Fatalf("Parse(String()) error = %v", err)
			}
			if diff := cmp.Diff(got, back); diff != "" {
				t.Errorf("Parse(String()) mismatch (-first +again):\n%s", diff)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", `no window: want "<days> <start>-<end> [<zone>]", such as "Mon-Fri 08:00-17:00 Europe/Amsterdam"`},
		{"blank", " \t", `no window: want "<days> <start>-<end> [<zone>]", such as "Mon-Fri 08:00-17:00 Europe/Amsterdam"`},
		{"a stray separator", "Mon 08:00-09:00;", `window 2: empty: remove the extra ";"`},
		{"days only", "Mon-Fri", `no times after "Mon-Fri": want "<days> <start>-<end> [<zone>]"`},
		{"times only", "08:00-17:00", `no days before "08:00-17:00": want "<days> <start>-<end> [<zone>]"`},
		{"times first", "08:00-17:00 Mon-Fri", `day "08:00" is not one of Mon Tue Wed Thu Fri Sat Sun (or * for every day): a window starts with its days, as in "Mon-Fri 08:00-17:00"`},
		{"a misspelt day in a range", "Mon-Fry 08:00-17:00", `day "Fry" is not one of Mon Tue Wed Thu Fri Sat Sun (or * for every day): did you mean Fri?`},
		{"a longer name", "Tues 08:00-17:00", `day "Tues" is not one of Mon Tue Wed Thu Fri Sat Sun (or * for every day): did you mean Tue?`},
		{"a full name", "monday,Thursday 08:00-17:00", `day "monday" is not one of Mon Tue Wed Thu Fri Sat Sun (or * for every day): did you mean Mon?`},
		{"a word for weekdays", "weekdays 08:00-17:00", `day "weekdays" is not one of Mon Tue Wed Thu Fri Sat Sun (or * for every day): did you mean Mon-Fri?`},
		// "Sut" is one edit from both Sat and Sun.
		{"no guess between two days", "Sut 08:00-17:00", `day "Sut" is not one of Mon Tue Wed Thu Fri Sat Sun (or * for every day)`},
		{"an empty list item", "Mon,,Tue 08:00-17:00", `days "Mon,,Tue": an empty day in the list`},
		{"a range of three", "Mon-Wed-Fri 08:00-17:00", `days "Mon-Wed-Fri": a range is two days, such as Mon-Fri`},
		{"a range with no end", "Mon- 08:00-17:00", `days "Mon-": a range is two days, such as Mon-Fri`},
		{"a range of one day", "Mon-mon 08:00-17:00", `days "Mon-mon": a range from a day to itself; write Mon for the day, * for every day`},
		{"a dash for a hyphen", "Mon\u2013Fri 08:00-17:00", "\"\u2013\" is a dash: write a hyphen, -"},
		{"spaces in the times", "Mon 08:00 - 17:00", `times "08:00": want <start>-<end> without spaces, such as 08:00-17:00`},
		{"a dot for a colon", "Mon 08.00-17:00", `time "08.00": want HH:MM or HH:MM:SS: did you mean 08:00?`},
		{"no colon", "Mon 0800-1700", `time "0800": want HH:MM or HH:MM:SS: did you mean 08:00?`},
		{"am and pm", "Mon 8am-5pm", `time "8am": want HH:MM or HH:MM:SS`},
		{"a one-digit minute", "Mon 08:0-17:00", `time "08:0": want HH:MM or HH:MM:SS`},
		{"hour 25", "Mon 08:00-25:00", `time "25:00": past 24:00`},
		{"past 24:00", "Mon 08:00-24:00:01", `time "24:00:01": past 24:00`},
		{"minute 60", "Mon 08:60-17:00", `time "08:60": minute 60 is past 59`},
		{"second 60", "Mon 08:00:60-17:00", `time "08:00:60": second 60 is past 59`},
		{"opening at 24:00", "Mon 24:00-02:00", `start "24:00": a window cannot open at 24:00; write 00:00 of the next day`},
		{"opening when it closes", "Mon 08:00-8:00", `empty window 08:00-08:00; for all day write 00:00-24:00`},
		{"midnight to midnight", "Mon 00:00-00:00", `empty window 00:00-00:00; for all day write 00:00-24:00`},
		{"an offset for a zone", "Mon 08:00-17:00 +01:00", `zone "+01:00" is not a time zone name: want an IANA name such as Europe/Amsterdam, or UTC`},
		{"a path for a zone", "Mon 08:00-17:00 ../etc/passwd", `zone "../etc/passwd" is not a time zone name: want an IANA name such as Europe/Amsterdam, or UTC`},
		{"an empty zone element", "Mon 08:00-17:00 Europe//Amsterdam", `zone "Europe//Amsterdam" is not a time zone name: want an IANA name such as Europe/Amsterdam, or UTC`},
		{"utc in lower case", "Mon 08:00-17:00 utc", `zone "utc": did you mean UTC?`},
		{"the machine's zone", "Mon 08:00-17:00 Local", `zone "Local" is the machine's zone: name one, such as Europe/Amsterdam or UTC`},
		{"windows on lines without separators", "Mon 08:00-17:00 UTC\nTue 08:00-17:00 UTC", `unexpected "Tue" after the zone: a window is "<days> <start>-<end> [<zone>]"; separate windows with ";"`},
		{"the second of two windows", "Mon 08:00-17:00; Tue 17:00-17:00", `window 2: empty window 17:00-17:00; for all day write 00:00-24:00`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := window.Parse(tt.in)
			if err == nil {
				t.Fatalf("Parse(%q) = %v, want error %q", tt.in, got, tt.want)
			}
			if got != nil {
				t.Errorf("Parse(%q) = %v with its error, want nil", tt.in, got)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("Parse(%q) error mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestWindowsString(t *testing.T) {
	tests := []struct {
		name string
		ws   window.Windows
		want string
	}{
		{"no windows", nil, ""},
		{"a run over the week's end is one range", window.Windows{{Days: days(time.Sunday, time.Monday, time.Wednesday), Start: clockAt(9, 0, 0), End: clockAt(9, 0, 1), Zone: "UTC"}}, "Wed,Sun-Mon 09:00-09:00:01 UTC"},
		{"every day but one", window.Windows{{Days: days(time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday, time.Saturday), Start: 0, End: 24 * time.Hour, Zone: "UTC"}}, "Mon-Sat 00:00-24:00 UTC"},
		{"every day but Monday", window.Windows{{Days: days(time.Tuesday, time.Wednesday, time.Thursday, time.Friday, time.Saturday, time.Sunday), Start: 0, End: 24 * time.Hour, Zone: "UTC"}}, "Tue-Sun 00:00-24:00 UTC"},
		{"every other day", window.Windows{{Days: days(time.Monday, time.Wednesday, time.Friday, time.Sunday), Start: 0, End: time.Hour, Zone: "UTC"}}, "Wed,Fri,Sun-Mon 00:00-01:00 UTC"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.ws.String()); diff != "" {
				t.Errorf("String() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
