package snapshot

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot/internal/fastjson"
	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot/internal/share"
	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot/snapshottest"
)

// sharers are the ways of sharing the strings of decoded pods and nodes,
// paired: none, share.Sharer (the like object decoded before) and
// share.Uniquer (unique.Make).
var sharers = []struct {
	name string
	new  func() (pod func(*corev1.Pod), node func(*corev1.Node))
}{
	{"none", func() (func(*corev1.Pod), func(*corev1.Node)) {
		return func(*corev1.Pod) {}, func(*corev1.Node) {}
	}},
	{"hand", func() (func(*corev1.Pod), func(*corev1.Node)) {
		s := share.New()
		return s.Pod, s.Node
	}},
	{"unique", func() (func(*corev1.Pod), func(*corev1.Node)) {
		u := share.NewUniquer()
		return u.Pod, u.Node
	}},
}

// BenchmarkShareStrings decodes every item of the generated capture of
// -capture-nodes nodes (as kubectl prints it; compact JSON, cut outside the
// timed loop) on one worker, sharing the strings of its pods and nodes each
// way, and reports the heap the decoded objects hold (live-B/op, after a
// collection, outside the timing) and the process's CPU time per
// operation (cpu-ns/op, the timed part's).
//
//	go test -run '^$' -bench BenchmarkShareStrings -capture-nodes 5000 -benchmem -count 5 ./internal/snapshot
func BenchmarkShareStrings(b *testing.B) {
	type item struct {
		js []byte
		tm typeMeta
	}
	// -capture-nodes is BenchmarkDecodeCapture's flag (package snapshot_test).
	nodes, err := strconv.Atoi(flag.Lookup("capture-nodes").Value.String())
	if err != nil {
		b.Fatal(err)
	}
	var items []item
	for _, sh := range sharers {
		b.Run(fmt.Sprintf("nodes=%d/impl=%s", nodes, sh.name), func(b *testing.B) {
			if items == nil {
				c := snapshottest.Generate(rand.New(rand.NewPCG(22, 4)), nodes)
				data := c.DropManagedFields().JSON()
				i := bytes.Index(data, []byte(`"items"`))
				i += bytes.IndexByte(data[i:], '[') + 1
				for {
					i += len(data[i:]) - len(bytes.TrimLeft(data[i:], " \t\r\n,"))
					if data[i] == ']' {
						break
					}
					js, n, st := fastjson.CompactValue(nil, data[i:], 2, true, false)
					v, k, ok := fastjson.ItemType(js)
					if st != fastjson.Done || !ok {
						b.Fatal("cannot cut the capture")
					}
					items = append(items, item{js, typeMeta{APIVersion: v, Kind: k}})
					i += n
				}
				runtime.GC()
			}
			b.ReportAllocs()
			var live uint64
			var cpu, untimed time.Duration
			cpu = cpuTime(b)
			for b.Loop() {
				pod, node := sh.new()
				objs := make([]object, 0, len(items))
				for _, it := range items {
					o, err := decodeKind(it.js, it.tm)
					if err != nil {
						b.Fatal(err)
					}
					switch {
					case o.pod != nil:
						pod(o.pod)
					case o.node != nil:
						node(o.node)
					}
					objs = append(objs, o)
				}
				b.StopTimer()
				stop := cpuTime(b)
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				runtime.KeepAlive(objs)
				objs = nil
				runtime.GC()
				runtime.ReadMemStats(&after)
				live += before.HeapAlloc - after.HeapAlloc
				untimed += cpuTime(b) - stop
				b.StartTimer()
			}
			b.ReportMetric(float64(live)/float64(b.N), "live-B/op")
			b.ReportMetric(float64(cpuTime(b)-cpu-untimed)/float64(b.N), "cpu-ns/op")
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
