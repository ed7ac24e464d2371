package snapshot_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/daemonplan/daemonplan/daemon/snapshot"
	"github.com/daemonplan/daemonplan/daemon/snapshot/snapshottest"
)

// captureNodes is the size of the generated capture BenchmarkDecodeCapture
// reads: small by default (CI runs every benchmark once), 5000 for the
// figures in BENCHMARKS.md.
var captureNodes = flag.Int("capture-nodes", 100, "nodes of the generated capture BenchmarkDecodeCapture reads")

var (
	captureOnce              sync.Once
	captureYAML, captureJSON []byte
)

// captures returns the generated capture (seed 22, 4) as kubectl's YAML and
// JSON, built once per process.
func captures() (yaml, json []byte) {
	captureOnce.Do(func() {
		c := snapshottest.Generate(rand.New(rand.NewPCG(22, 4)), *captureNodes)
		captureYAML, captureJSON = c.YAML(), c.JSON()
	})
	return captureYAML, captureJSON
}

// BenchmarkDecodeCapture decodes a generated kubectl capture of
// -capture-nodes nodes (six DaemonSets, one pod of each per node, with
// managedFields and status), from YAML and from JSON.
func BenchmarkDecodeCapture(b *testing.B) {
	y, j := captures()
	for _, c := range []struct {
		format string
		data   []byte
	}{{"yaml", y}, {"json", j}} {
		b.Run(fmt.Sprintf("%s/nodes=%d", c.format, *captureNodes), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.data)))
			for b.Loop() {
				if _, err := snapshot.Decode("capture."+c.format, c.data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
