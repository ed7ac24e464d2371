package e2e

import (
	"fmt"
	"os"
	"testing"
	"time"
)

// TestMain prints the side-by-side table and the closing tally.
func TestMain(m *testing.M) {
	code := m.Run()
	if binErr == nil && binResult != nil {
		kind := "warm (cached)"
		if binCold {
			kind = "cold (built)"
		}
		fmt.Printf("e2e: control plane %s in %s\n", kind, binDuration.Round(time.Second))
	}
	printTable(os.Stdout)
	resultsMu.Lock()
	if skipped > 0 {
		fmt.Printf("e2e: %d skipped\n", skipped)
	}
	fmt.Printf("e2e: %d passed, %d failed\n", passed, failed)
	resultsMu.Unlock()
	os.Exit(code)
}
