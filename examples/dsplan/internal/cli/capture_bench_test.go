package cli

import (
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot/snapshottest"
)

// captureNodes is the size of the generated capture BenchmarkPlanCapture
// plans: small by default (CI runs every benchmark once), 5000 for the
// figures in BENCHMARKS.md.
var captureNodes = flag.Int("capture-nodes", 100, "nodes of the generated capture BenchmarkPlanCapture plans")

// BenchmarkPlanCapture is `dsplan plan -f capture` end to end (read,
// decode, plan every DaemonSet, print the text plan) on a generated kubectl
// capture of -capture-nodes nodes, as YAML and as JSON, as kubectl prints
// it by default and with --show-managed-fields.
func BenchmarkPlanCapture(b *testing.B) {
	for _, variant := range []string{"kubectl", "managedFields"} {
		var c *snapshottest.Capture // generated for the first benchmark that runs
		for _, format := range []string{"yaml", "json"} {
			b.Run(fmt.Sprintf("%s/%s/nodes=%d", format, variant, *captureNodes), func(b *testing.B) {
				if c == nil {
					c = snapshottest.Generate(rand.New(rand.NewPCG(22, 4)), *captureNodes)
					if variant == "kubectl" {
						c.DropManagedFields()
					}
				}
				file := filepath.Join(b.TempDir(), "capture."+format)
				f, err := os.Create(file)
				if err != nil {
					b.Fatal(err)
				}
				write := c.WriteYAML
				if format == "json" {
					write = c.WriteJSON
				}
				if err := write(f); err != nil {
					b.Fatal(err)
				}
				if err := f.Close(); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					if code := Run([]string{"plan", "-f", file}, nil, io.Discard, io.Discard, Options{}); code != exitOK {
						b.Fatalf("exit %d", code)
					}
				}
			})
		}
	}
}
