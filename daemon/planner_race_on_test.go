//go:build race

package daemon_test

// raceEnabled is true under the race detector, which allocates on its own
// account: allocation caps are not checked then.
const raceEnabled = true
