package cli

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestREADME keeps the dsplan section of the repository's README.md what
// the command prints.
func TestREADME(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		// path is how README.md names the input file (from the root).
		path string
	}{
		{args: []string{"plan", "-f", "testdata/inputs/kubectl-capture.yaml"}, path: "examples/dsplan/"},
		{args: []string{"explain", "worker-09"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out bytes.Buffer
			if code := Run(tt.args, nil, &out, &out, Options{}); code != 0 {
				t.Fatalf("exit %d:\n%s", code, out.String())
			}
			want := strings.ReplaceAll(out.String(), "testdata/", tt.path+"testdata/")
			if !bytes.Contains(readme, []byte(want)) {
				t.Errorf("README.md does not show the output of dsplan %s; it is now:\n%s", strings.Join(tt.args, " "), want)
			}
		})
	}
}
