package e2e

import (
	"fmt"
	"io"
	"sync"
	"testing"
)

// The companion runs as the ServiceAccount of the shipped manifests
// (examples/controller/deploy), with only the roles they grant.
const (
	companionNamespace = "daemonplan-system"
	companionSA        = "daemonplan-controller"
	companionUser      = "system:serviceaccount:" + companionNamespace + ":" + companionSA
)

// passFailTally counts the tests of one kind that passed and that failed
// (a skipped test counts in neither).
type passFailTally struct {
	mu             sync.Mutex
	passed, failed int
}

// count adds t's result to the tally when t ends.
func (y *passFailTally) count(t *testing.T) {
	t.Cleanup(func() {
		y.mu.Lock()
		defer y.mu.Unlock()
		switch {
		case t.Failed():
			y.failed++
		case !t.Skipped():
			y.passed++
		}
	})
}

// counts returns how many tests passed and failed so far.
func (y *passFailTally) counts() (passed, failed int) {
	y.mu.Lock()
	defer y.mu.Unlock()
	return y.passed, y.failed
}

// rolloutTally is the tally the companion scenarios add to the suite's.
var rolloutTally passFailTally

// countRollout adds t's result to the rollout tally.
func countRollout(t *testing.T) { rolloutTally.count(t) }

// printRolloutTally prints "rollouts: N passed, M failed" when a companion
// scenario ran.
func printRolloutTally(w io.Writer) {
	if passed, failed := rolloutTally.counts(); passed+failed > 0 {
		fmt.Fprintf(w, "rollouts: %d passed, %d failed\n", passed, failed)
	}
}
