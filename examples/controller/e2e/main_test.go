package e2e

import (
	"fmt"
	"io"
	"os"
	"testing"
)

// extraTallies print the tallies of scenarios kept behind a build tag
// (companion_badinputs_test.go: -tags e2e_badinputs), after the rollout
// tally.
var extraTallies []func(io.Writer)

// TestMain runs one control-plane component when the test binary was
// started as one (see roleEnv); otherwise it runs the tests and prints the
// side-by-side table, the scale table, the closing tallies and the
// companion scenarios' "kstatus: …" lines.
func TestMain(m *testing.M) {
	if code, ran := runRole(); ran {
		os.Exit(code)
	}
	code := m.Run()
	printTable(os.Stdout)
	printScaleTable(os.Stdout)
	resultsMu.Lock()
	if skipped > 0 {
		fmt.Printf("e2e: %d skipped\n", skipped)
	}
	printFaults(os.Stdout)
	fmt.Printf("e2e: %d passed, %d failed\n", passed, failed)
	printRolloutTally(os.Stdout)
	for _, print := range extraTallies {
		print(os.Stdout)
	}
	printApplyDifferential(os.Stdout)
	kstatusLines.print(os.Stdout)
	printChartRBAC(os.Stdout)
	resultsMu.Unlock()
	os.Exit(code)
}
