package yamljson_test

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot/internal/yamljson"
	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot/snapshottest"
)

// captureNodes sizes the capture BenchmarkItemToJSON converts: small by
// default (CI runs every benchmark once), 5000 for BENCHMARKS.md.
var captureNodes = flag.Int("capture-nodes", 100, "nodes of the generated capture BenchmarkItemToJSON converts")

// BenchmarkItemToJSON converts every item of a generated kubectl capture
// (managedFields dropped, as kubectl prints by default) from YAML to JSON
// on all cores, one item at a time as the fast path does: by ToJSON
// (fieldsV1 kept, so both give the same bytes; the few items it declines,
// such as revisions' data, by the oracle, as the fast path does) and by
// its oracle alone, sigs.k8s.io/yaml.YAMLToJSON. It is the paired measurement that decides
// whether the hand-written converter stays (it must buy 1.5x in time or
// memory).
//
//	go test -run '^$' -bench BenchmarkItemToJSON -benchmem -benchtime 3x ./internal/snapshot/internal/yamljson -capture-nodes 5000
func BenchmarkItemToJSON(b *testing.B) {
	c := snapshottest.Generate(rand.New(rand.NewPCG(22, 4)), *captureNodes)
	c.DropManagedFields()
	y := c.YAML()
	body := y[bytes.Index(y, []byte("\n- "))+3 : bytes.Index(y, []byte("\nkind: List"))+1]
	items := bytes.Split(body, []byte("\n- "))
	for i, item := range items {
		items[i] = bytes.ReplaceAll(item, []byte("\n  "), []byte("\n"))
	}
	for _, conv := range []struct {
		name string
		f    func([]byte) ([]byte, bool)
	}{
		{"yamljson", func(d []byte) ([]byte, bool) {
			if js, ok := yamljson.ToJSON(d, false); ok {
				return js, true
			}
			return viaYAML(d) // what the fast path does with an item it declines
		}},
		{"sigs.k8s.io-yaml", viaYAML},
	} {
		b.Run(fmt.Sprintf("%s/nodes=%d", conv.name, *captureNodes), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				var next, failed atomic.Int64
				var wg sync.WaitGroup
				for range runtime.GOMAXPROCS(0) {
					wg.Go(func() {
						for i := int(next.Add(1)) - 1; i < len(items); i = int(next.Add(1)) - 1 {
							if _, ok := conv.f(items[i]); !ok {
								failed.Add(1)
							}
						}
					})
				}
				wg.Wait()
				if failed.Load() > 0 {
					b.Fatalf("%d items did not convert", failed.Load())
				}
			}
		})
	}
}

// viaYAML converts one item by sigs.k8s.io/yaml.
func viaYAML(d []byte) ([]byte, bool) {
	js, err := yaml.YAMLToJSON(d)
	return js, err == nil
}
