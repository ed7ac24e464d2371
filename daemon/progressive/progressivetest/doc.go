// Package progressivetest runs the bad-input corpus of the rollout
// annotations (package progressive's testdata/bad-inputs.json, whose
// "about" says what a row holds) on the library, for the tests of every
// layer that runs it: the library's, dsplan's and the end-to-end suite's,
// which count the three in one tally. It reads no file (a test reads the
// corpus and gives its bytes), performs no I/O and keeps no state.
package progressivetest
