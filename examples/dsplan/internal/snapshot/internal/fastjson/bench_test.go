package fastjson_test

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot/internal/fastjson"
	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot/snapshottest"
)

// captureNodes is the size of the generated capture the benchmarks read:
// small by default (CI runs every benchmark once), 5000 for the figures
// in BENCHMARKS.md.
var captureNodes = flag.Int("capture-nodes", 100, "nodes of the generated capture the benchmarks read")

// valueImpls are the implementations of CompactValue, paired.
var valueImpls = []struct {
	name    string
	compact func(out, src []byte, depth int, drop, eof bool) ([]byte, int, fastjson.Status)
}{{"hand", fastjson.CompactValue}, {"jsontext", fastjson.CompactValueText}}

// itemTypeImpls are the implementations of ItemType, paired.
var itemTypeImpls = []struct {
	name     string
	itemType func(js []byte) (apiVersion, kind string, ok bool)
}{{"hand", fastjson.ItemType}, {"jsontext", fastjson.ItemTypeText}}

// captureJSON returns the JSON of the generated capture of -capture-nodes
// nodes, as kubectl prints it (drop) or with managedFields.
// Each is generated once per test binary.
func captureJSON(drop bool) []byte {
	if captures[drop] == nil {
		c := snapshottest.Generate(rand.New(rand.NewPCG(22, 4)), *captureNodes)
		if drop {
			c.DropManagedFields()
		}
		captures[drop] = c.JSON()
	}
	return captures[drop]
}

// captures are the captures captureJSON generated.
var captures = map[bool][]byte{}

// eachItem calls compact on each item of the kubectl List data in turn, as
// fastread's splitter does (the rest of the input at hand, not the end of
// it), and returns how many it read.
func eachItem(b *testing.B, data []byte, compact func(src []byte) (int, bool)) int {
	i := bytes.Index(data, []byte(`"items"`))
	i += bytes.IndexByte(data[i:], '[') + 1
	items := 0
	for {
		i += len(data[i:]) - len(bytes.TrimLeft(data[i:], " \t\r\n"))
		switch data[i] {
		case ',':
			i++
			continue
		case ']':
			return items
		}
		n, ok := compact(data[i:])
		if !ok {
			b.Fatalf("item %d declined", items)
		}
		i += n
		items++
	}
}

// BenchmarkCompactItems compacts, dropping fieldsV1, every item of the
// generated capture of -capture-nodes nodes as kubectl prints it in JSON
// (indented), without and with managedFields, by each implementation of
// CompactValue: the work of the fast path's JSON splitter. cpu-ns/op is
// the process's CPU time per operation, which the other jobs of a loaded
// machine move less than ns/op.
//
//	go test -run '^$' -bench BenchmarkCompactItems -capture-nodes 5000 -benchmem -count 5 ./internal/snapshot/internal/fastjson
func BenchmarkCompactItems(b *testing.B) {
	for _, variant := range []string{"kubectl", "managedFields"} {
		var data []byte
		for _, impl := range valueImpls {
			b.Run(fmt.Sprintf("%s/nodes=%d/impl=%s", variant, *captureNodes, impl.name), func(b *testing.B) {
				if data == nil {
					data = captureJSON(variant == "kubectl")
				}
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				var out []byte
				cpu := cpuTime(b)
				for b.Loop() {
					eachItem(b, data, func(src []byte) (int, bool) {
						var n int
						var st fastjson.Status
						out, n, st = impl.compact(out[:0], src, 2, true, false)
						return n, st == fastjson.Done
					})
				}
				b.ReportMetric(float64(cpuTime(b)-cpu)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// BenchmarkItemType reads the apiVersion and kind of every item of the
// generated capture of -capture-nodes nodes (as kubectl prints it,
// compacted) by each implementation of ItemType.
//
//	go test -run '^$' -bench BenchmarkItemType -capture-nodes 5000 -benchmem -count 5 ./internal/snapshot/internal/fastjson
func BenchmarkItemType(b *testing.B) {
	var items [][]byte
	for _, impl := range itemTypeImpls {
		b.Run(fmt.Sprintf("nodes=%d/impl=%s", *captureNodes, impl.name), func(b *testing.B) {
			if items == nil {
				eachItem(b, captureJSON(true), func(src []byte) (int, bool) {
					js, n, st := fastjson.CompactValue(nil, src, 2, true, false)
					items = append(items, js)
					return n, st == fastjson.Done
				})
			}
			b.ReportAllocs()
			cpu := cpuTime(b)
			for b.Loop() {
				for _, js := range items {
					if v, k, ok := impl.itemType(js); !ok || v == "" || k == "" {
						b.Fatalf("%s: %q %q %v", js, v, k, ok)
					}
				}
			}
			b.ReportMetric(float64(cpuTime(b)-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// cpuTime returns the user and system CPU time of the process so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
