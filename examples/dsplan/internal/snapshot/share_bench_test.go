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
// operation (cpu-ns/op, the timed part's). timed=decode+share shares each
// object as it is decoded, as a worker does; timed=share decodes them all
// outside the timing (and collects), and times the sharing alone.
//
// Run it with -benchtime 1x: timed=share times a small part of each
// iteration, which b.Loop would otherwise repeat many times.
//
//	go test -run '^$' -bench BenchmarkShareStrings -capture-nodes 5000 -benchmem -benchtime 1x -count 5 ./internal/snapshot
func BenchmarkShareStrings(b *testing.B) {
	// -capture-nodes is BenchmarkDecodeCapture's flag (package snapshot_test).
	nodes, err := strconv.Atoi(flag.Lookup("capture-nodes").Value.String())
	if err != nil {
		b.Fatal(err)
	}
	var items []shareItem
	for _, timed := range []string{"decode+share", "share"} {
		for _, sh := range sharers {
			b.Run(fmt.Sprintf("nodes=%d/timed=%s/impl=%s", nodes, timed, sh.name), func(b *testing.B) {
				if items == nil {
					items = shareItems(b, nodes)
				}
				b.ReportAllocs()
				var live uint64
				var untimed time.Duration
				cpu := cpuTime(b)
				for b.Loop() {
					pod, node := sh.new()
					var objs []object
					if timed == "share" {
						b.StopTimer()
						stop := cpuTime(b)
						objs = decodeItems(b, items, func(object) {})
						runtime.GC()
						untimed += cpuTime(b) - stop
						b.StartTimer()
						for _, o := range objs {
							shareObject(o, pod, node)
						}
					} else {
						objs = decodeItems(b, items, func(o object) { shareObject(o, pod, node) })
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
}

// shareItem is an item of the capture, compact, and its type.
type shareItem struct {
	js []byte
	tm typeMeta
}

// shareItems cuts the generated capture of n nodes, as kubectl prints it,
// into items.
func shareItems(b *testing.B, n int) []shareItem {
	var items []shareItem
	data := snapshottest.Generate(rand.New(rand.NewPCG(22, 4)), n).DropManagedFields().JSON()
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
		items = append(items, shareItem{js, typeMeta{APIVersion: v, Kind: k}})
		i += n
	}
	runtime.GC()
	return items
}

// decodeItems decodes items in turn, calling each on every object.
func decodeItems(b *testing.B, items []shareItem, each func(object)) []object {
	objs := make([]object, 0, len(items))
	for _, it := range items {
		o, err := decodeKind(it.js, it.tm)
		if err != nil {
			b.Fatal(err)
		}
		each(o)
		objs = append(objs, o)
	}
	return objs
}

// shareObject hands a pod or a node to its sharer.
func shareObject(o object, pod func(*corev1.Pod), node func(*corev1.Node)) {
	switch {
	case o.pod != nil:
		pod(o.pod)
	case o.node != nil:
		node(o.node)
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
