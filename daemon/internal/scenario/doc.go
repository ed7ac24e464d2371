// Package scenario loads the recorded conformance scenarios of
// daemon/testdata/conformance and judges a daemon.Plan against what the
// upstream DaemonSet controller did in the same situation. It is test
// support: it reads files, but only when asked to load them, and it keeps no
// state.
//
// # Scenarios
//
// A scenario file is one JSON object: the inputs of one sync (a DaemonSet,
// its nodes, pods and optionally ControllerRevisions, and the controller
// clock) and, under "expected", what kube-controller-manager v1.37.2 did when
// it ran that sync, possibly many times. The format and the judging rules are
// described in testdata/conformance/README.md; Load decodes a file into typed
// API objects and refuses keys it does not know, so that nothing recorded is
// silently ignored.
//
// # Judging
//
// Where upstream's choice was random, a scenario lists what every run did
// (X) and what only some runs did (XMay). Judge accepts a result R when, for
// every list, X ⊆ R ⊆ X ∪ XMay as multisets and the size of R is within the
// recorded bounds, when every scalar equals a recorded value, and when the
// error, status and created pods agree as that README describes. It returns
// one readable line per disagreement.
package scenario
