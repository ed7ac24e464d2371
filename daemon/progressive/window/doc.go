// Package window decides when maintenance windows are open: it parses
// the window annotation of a progressive rollout ("Mon-Fri 08:00-17:00
// Europe/Amsterdam"; Parse, Windows.String) and says whether a set of
// windows is open at a moment and when that next changes (Windows.At).
//
// It imports no package of this module. It reads no zone database and no
// clock: time zones are resolved through the Zones a program passes
// (time.LoadLocation, with time/tzdata embedded where the image has no
// zone database), and times come in as values.
package window
