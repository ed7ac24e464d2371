//go:build race

package cli

// raceEnabled is true under the race detector, which slows decoding and
// Compute down about eightfold: TestConformanceThroughJSON then judges a
// sample (the plain run judges every scenario).
const raceEnabled = true
