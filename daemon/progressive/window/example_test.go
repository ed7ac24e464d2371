package window_test

import (
	"fmt"
	"time"

	"github.com/daemonplan/daemonplan/daemon/progressive/window"
)

// Office hours in Amsterdam: a rollout deletes old pods from Monday to
// Friday, 08:00 to 17:00 there. At says whether a window is open and
// when that changes; a controller stops deleting at the change, or
// looks again then.
func ExampleWindows_At() {
	ws, err := window.Parse("mon-fri 08:00-17:00 Europe/Amsterdam")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ws)
	amsterdam, err := time.LoadLocation("Europe/Amsterdam")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, now := range []time.Time{
		time.Date(2026, 11, 27, 16, 30, 0, 0, amsterdam), // a Friday afternoon
		time.Date(2026, 11, 27, 17, 0, 0, 0, amsterdam),
		time.Date(2026, 11, 30, 7, 0, 0, 0, time.UTC), // Monday 08:00 in Amsterdam
	} {
		open, change, err := ws.At(now, time.LoadLocation)
		switch {
		case err != nil:
			fmt.Println(err)
		case open:
			fmt.Printf("%s: open until %s\n", now.Format("Mon 15:04 MST"), change.Format("Mon 15:04 MST"))
		default:
			fmt.Printf("%s: closed until %s\n", now.Format("Mon 15:04 MST"), change.Format("Mon 15:04 MST"))
		}
	}
	// Output:
	// Mon-Fri 08:00-17:00 Europe/Amsterdam
	// Fri 16:30 CET: open until Fri 17:00 CET
	// Fri 17:00 CET: closed until Mon 08:00 CET
	// Mon 07:00 UTC: open until Mon 16:00 UTC
}

// Windows of several days, overnight and in several zones, as the
// window annotation writes them; String writes them in one form (days
// as runs from the first after a day off: Mon,Wed,Fri-Sun is Wed,Fri-Mon).
func ExampleParse() {
	for _, s := range []string{
		"Mon-Fri 08:00-17:00 Europe/Amsterdam",
		"Sat-Mon 22:00-04:00 America/New_York; * 12:00-12:30",
		"Mon,Wed,Fri-Sun 9:00-10:00:30 Asia/Tokyo",
		"Mon-Fry 08:00-17:00",
	} {
		ws, err := window.Parse(s)
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		fmt.Println(ws)
	}
	// Output:
	// Mon-Fri 08:00-17:00 Europe/Amsterdam
	// Sat-Mon 22:00-04:00 America/New_York; * 12:00-12:30 UTC
	// Wed,Fri-Mon 09:00-10:00:30 Asia/Tokyo
	// error: day "Fry" is not one of Mon Tue Wed Thu Fri Sat Sun (or * for every day): did you mean Fri?
}
