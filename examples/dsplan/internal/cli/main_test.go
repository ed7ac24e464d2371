package cli

import (
	"fmt"
	"os"
	"testing"
)

// TestMain runs the tests from examples/dsplan, where the command's sample
// inputs (testdata/inputs, testdata/fleet-100.yaml, named so in README.md)
// and the golden files live, so that every path the tests print is the one
// a user of `kubectl dsplan` in examples/dsplan sees.
func TestMain(m *testing.M) {
	if err := os.Chdir("../.."); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}
