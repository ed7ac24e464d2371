package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite testdata/quickstart.golden")

// TestQuickstartOutput keeps the program's output, which README.md shows,
// from drifting: refresh it with go test ./examples/quickstart -update and
// copy the new output into the README.
func TestQuickstartOutput(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out); err != nil {
		t.Fatalf("run() error = %v", err)
	}
	golden := filepath.Join("testdata", "quickstart.golden")
	if *update {
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), out.String()); diff != "" {
		t.Errorf("output mismatch (-want +got):\n%s", diff)
	}
}

// TestReadmeShowsOutput checks that README.md shows the program's output
// exactly: the first ```text block after "its output".
func TestReadmeShowsOutput(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out); err != nil {
		t.Fatalf("run() error = %v", err)
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	_, after, ok := strings.Cut(text, "its output")
	if !ok {
		t.Fatal(`README.md has no "its output" paragraph`)
	}
	_, block, ok := strings.Cut(after, "```text\n")
	if !ok {
		t.Fatal("README.md has no ```text block after its output paragraph")
	}
	block, _, _ = strings.Cut(block, "```\n")
	if diff := cmp.Diff(out.String(), block); diff != "" {
		t.Errorf("README.md's quickstart output is stale (-program +README):\n%s", diff)
	}
}
