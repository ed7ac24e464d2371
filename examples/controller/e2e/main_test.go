package e2e

import (
	"fmt"
	"os"
	"testing"
)

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
	printBadInputsTally(os.Stdout)
	printApplyDifferential(os.Stdout)
	kstatusLines.print(os.Stdout)
	printChartRBAC(os.Stdout)
	resultsMu.Unlock()
	os.Exit(code)
}
