package cli

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot/snapshottest"
)

// TestCaptureFormatsAgree runs the commands on one generated capture as
// kubectl prints it in YAML and in JSON, with and without managedFields,
// read from a file (a few megabytes at a time) and from stdin (whole): the
// outputs, notes included, are byte for byte the same but for the input's
// name.
func TestCaptureFormatsAgree(t *testing.T) {
	dir := t.TempDir()
	var files []string
	var node string
	for _, drop := range []bool{false, true} {
		c := snapshottest.Generate(rand.New(rand.NewPCG(22, 4)), 60)
		node = c.Nodes[7].Name
		name := "managed"
		if drop {
			c.DropManagedFields()
			name = "kubectl"
		}
		for _, format := range []string{"yaml", "json"} {
			data := c.YAML()
			if format == "json" {
				data = c.JSON()
			}
			file := filepath.Join(dir, name+"."+format)
			if err := os.WriteFile(file, data, 0o600); err != nil {
				t.Fatal(err)
			}
			files = append(files, file)
		}
	}
	commands := [][]string{
		{"plan"},
		{"plan", "-o", "json"},
		{"explain", node},
		{"explain", node, "-o", "json"},
		{"simulate", "--daemonset", snapshottest.RollingDaemonSet},
		{"simulate", "--daemonset", snapshottest.RollingDaemonSet, "-o", "json"},
		{"simulate", "--daemonset", "kube-system/kube-proxy", "--image", "registry.k8s.io/kube-proxy:v1.36.4"},
	}
	for _, args := range commands {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var first string
			for _, file := range files {
				for _, stdin := range []bool{false, true} {
					var in []byte
					fileArg := file
					if stdin {
						var err error
						if in, err = os.ReadFile(file); err != nil {
							t.Fatal(err)
						}
						fileArg = "-"
					}
					var stdout, stderr bytes.Buffer
					code := Run(append(append([]string(nil), args...), "-f", fileArg), bytes.NewReader(in), &stdout, &stderr, Options{})
					// The clock comes from managedFields times too: both
					// variants of a capture have the same newest time.
					got := strings.ReplaceAll(fmt.Sprintf("exit %d\n%s%s", code, stdout.String(), stderr.String()), file, "FILE")
					got = strings.ReplaceAll(got, "(stdin)", "FILE")
					if first == "" {
						if code != exitOK || strings.Contains(got, "not found") {
							t.Fatalf("-f %s: exit %d:\n%s", fileArg, code, got)
						}
						first = got
						continue
					}
					if diff := cmp.Diff(first, got); diff != "" {
						t.Fatalf("-f %s (stdin %v) differs from -f %s (-first +got):\n%s", file, stdin, files[0], diff)
					}
				}
			}
		})
	}
}
