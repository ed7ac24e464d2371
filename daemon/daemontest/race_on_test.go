//go:build race

package daemontest_test

// raceEnabled is true under the race detector, which slows the simulator
// down about eightfold: the heavy tests then run a sample.
const raceEnabled = true
