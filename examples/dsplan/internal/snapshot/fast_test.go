package snapshot

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot/internal/fastjson"
	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot/internal/fastread"
	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot/snapshottest"
)

// fastSeeds are whole files for FuzzFastDecode: kubectl Lists of both
// formats and what the fast path must leave to the general one.
var fastSeeds = []string{
	kubectlListYAML,
	`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"a"}}]}`,
	`{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[{"metadata":{"name":"p","namespace":"x"}}]}`,
	`{"items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"a"}}],"apiVersion":"v1","kind":"NodeList"}`,
	`{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"a"}}]}`,
	`{"apiVersion":"v1","kind":"Pod","items":[],"metadata":{"name":"p"}}`,
	`{"apiVersion":"v1","kind":"List","ITEMS":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"a"}}]}`,
	`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","Kind":"Node","metadata":{"name":"a"}}]}`,
	`{"apiVersion":"v1","kind":"List","items":[null]}`,
	`{"apiVersion":"v1","kind":"Node","metadata":{"name":"a"}} {"apiVersion":"v1","kind":"Node","metadata":{"name":"b"}}`,
	`{"apiVersion":"v1","kind":"Node","metadata":{"name":"a"}} [1]`,
	"apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n---\napiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: b\n\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: c\nkind: List\n",
	"apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: b\n",
	"apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: b\n- &a\n  x: 1\n- *a\nkind: List\n",
	"apiVersion: v1\nitems:\nkind: List\n",
	"items:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: b}\nkind: NodeList\napiVersion: v1\n---\n",
	"apiVersion: v1\r\nkind: Node\r\nmetadata: {name: a}\r\n",
	"{\"apiVersion\":\"v1\",\n\"kind\":\"Node\",\"metadata\":{\"name\":\"a\"}}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: b}\n",
	"---\n--- \n",
	"",
}

const kubectlListYAML = `apiVersion: v1
items:
- apiVersion: apps/v1
  kind: DaemonSet
  metadata:
    managedFields:
    - apiVersion: apps/v1
      fieldsType: FieldsV1
      fieldsV1:
        f:spec: {}
      manager: kubectl
      operation: Update
      time: "2026-01-02T03:04:05Z"
    name: agent
    namespace: kube-system
- apiVersion: v1
  kind: Node
  metadata:
    name: a
kind: List
metadata:
  resourceVersion: ""
`

// FuzzFastDecode holds the fast path to the general one: where it reads a
// file, in memory or in slabs of any size, it gives the objects (and
// notes) the general path gives.
func FuzzFastDecode(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add([]byte(s), uint16(0))
		f.Add([]byte(s), uint16(5))
	}
	c := snapshottest.Generate(rand.New(rand.NewPCG(3, 4)), 2)
	f.Add(c.YAML(), uint16(3000))
	f.Add(c.JSON(), uint16(3000))
	f.Fuzz(func(t *testing.T, data []byte, slab uint16) {
		objs, ok, err := fastDecode(fastread.Input{Buf: data})
		if err != nil {
			t.Fatalf("fastDecode() read error %v from memory", err)
		}
		// From a reader, in slabs of slab bytes.
		robjs, rok, err := fastDecode(fastread.Input{R: bytes.NewReader(data), Size: int64(len(data)), Slab: int(slab) + 1})
		if err != nil {
			t.Fatalf("fastDecode(reader) error: %v", err)
		}
		if rok != ok {
			t.Fatalf("fastDecode(%q): ok %v in memory, %v from a reader in slabs of %d", data, ok, rok, slab+1)
		}
		if !ok {
			return
		}
		var fast, fromReader, general Snapshot
		fast.putAll(objs)
		fromReader.putAll(robjs)
		if err := general.addWhole("f", data); err != nil {
			t.Fatalf("fastDecode(%q) read it, the general path fails: %v", data, err)
		}
		if !reflect.DeepEqual(general, fast) {
			t.Fatalf("fastDecode(%q) differs from the general path:\n got %+v\nwant %+v", data, fast, general)
		}
		if !reflect.DeepEqual(general, fromReader) {
			t.Fatalf("fastDecode(%q) from a reader differs from the general path:\n got %+v\nwant %+v", data, fromReader, general)
		}
	})
}

// TestFastDecodeReadsCaptures checks that the fast path, not the general
// one, reads generated kubectl captures, in memory and in slabs, and that
// it reads them as the general path does.
func TestFastDecodeReadsCaptures(t *testing.T) {
	c := snapshottest.Generate(rand.New(rand.NewPCG(5, 6)), 20)
	for _, tt := range []struct {
		name string
		data []byte
	}{{"yaml", c.YAML()}, {"json", c.JSON()}} {
		for _, slab := range []int{0, 1000, 64 << 10} {
			var w fastread.Input
			if slab == 0 {
				w = fastread.Input{Buf: tt.data}
			} else {
				w = fastread.Input{R: bytes.NewReader(tt.data), Size: int64(len(tt.data)), Slab: slab}
			}
			objs, ok, err := fastDecode(w)
			if err != nil || !ok {
				t.Fatalf("%s, slab %d: fastDecode() = ok %v, error %v; want it read", tt.name, slab, ok, err)
			}
			var fast, general Snapshot
			fast.putAll(objs)
			if err := general.addWhole("f", tt.data); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(general, fast) {
				t.Errorf("%s, slab %d: fastDecode() differs from the general path", tt.name, slab)
			}
			if len(fast.Pods) != 6*20 || len(fast.Nodes) != 20 {
				t.Errorf("%s, slab %d: %d nodes, %d pods, want 20 and 120", tt.name, slab, len(fast.Nodes), len(fast.Pods))
			}
		}
	}
}

// BenchmarkCompactJSON compacts a generated kubectl capture as kubectl
// prints it in JSON (indented by four spaces), dropping fieldsV1.
func BenchmarkCompactJSON(b *testing.B) {
	data := snapshottest.Generate(rand.New(rand.NewPCG(22, 4)), 20).JSON()
	b.SetBytes(int64(len(data)))
	var out []byte
	for b.Loop() {
		var ok bool
		if out, ok = fastjson.Compact(out[:0], data, 0, true); !ok {
			b.Fatal("invalid")
		}
	}
}
