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

// The rollout tally the companion scenarios add to the suite's.
var (
	rolloutsMu                     sync.Mutex
	rolloutsPassed, rolloutsFailed int
)

// countRollout adds t's result to the rollout tally.
func countRollout(t *testing.T) {
	t.Cleanup(func() {
		rolloutsMu.Lock()
		defer rolloutsMu.Unlock()
		switch {
		case t.Failed():
			rolloutsFailed++
		case !t.Skipped():
			rolloutsPassed++
		}
	})
}

// printRolloutTally prints "rollouts: N passed, M failed" when a companion
// scenario ran.
func printRolloutTally(w io.Writer) {
	rolloutsMu.Lock()
	defer rolloutsMu.Unlock()
	if rolloutsPassed+rolloutsFailed > 0 {
		fmt.Fprintf(w, "rollouts: %d passed, %d failed\n", rolloutsPassed, rolloutsFailed)
	}
}
