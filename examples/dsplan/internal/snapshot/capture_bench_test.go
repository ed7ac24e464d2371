package snapshot_test

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot"
	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot/snapshottest"
)

// captureNodes is the size of the generated capture BenchmarkDecodeCapture
// reads: small by default (CI runs every benchmark once), 5000 for the
// figures in BENCHMARKS.md.
var captureNodes = flag.Int("capture-nodes", 100, "nodes of the generated capture BenchmarkDecodeCapture reads")

// captureVariants are the two captures of one generated cluster: as
// kubectl prints it by default (no managedFields), and with
// --show-managed-fields (twice the bytes).
var captureVariants = []struct {
	name string
	drop bool
}{{"kubectl", true}, {"managedFields", false}}

// BenchmarkDecodeCapture decodes a generated kubectl capture of
// -capture-nodes nodes (six DaemonSets, one pod of each per node, with
// status), from YAML and from JSON, without and with managedFields,
// through DecodeFrom as dsplan reads a file (a few megabytes at a time).
func BenchmarkDecodeCapture(b *testing.B) {
	for _, v := range captureVariants {
		var c *snapshottest.Capture // generated for the first benchmark that runs
		for _, format := range []string{"yaml", "json"} {
			b.Run(fmt.Sprintf("%s/%s/nodes=%d", format, v.name, *captureNodes), func(b *testing.B) {
				if c == nil {
					c = snapshottest.Generate(rand.New(rand.NewPCG(22, 4)), *captureNodes)
					if v.drop {
						c.DropManagedFields()
					}
				}
				data := c.YAML()
				if format == "json" {
					data = c.JSON()
				}
				b.ReportAllocs()
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					if _, err := snapshot.DecodeFrom("capture."+format, bytes.NewReader(data), int64(len(data))); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
