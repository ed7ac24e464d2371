package snapshot

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/daemonplan/daemonplan/daemon/snapshot/snapshottest"
)

// jsonSeeds are JSON texts in and out of the grammar, and around the
// fieldsV1 the compactor drops.
var jsonSeeds = []string{
	`{}`, `[]`, ` {"a" : [1, -2.5e+3, true, false, null, "x\"y\\\u00e9"]} `,
	`{"metadata":{"managedFields":[{"manager":"m","fieldsV1":{"f:spec":{}},"time":"t"},{"fieldsV1":null}]}}`,
	`{"metadata":{"managedFields":[{"fieldsV1":{"f:a":{}}}],"name":"x"},"fieldsV1":1}`,
	`{"metadata":{"managedFields":{"fieldsV1":1}}}`,
	`{"metadata":{"managedFields":[{"fieldsV1":{]}}]}}`,
	`{"a":1 2}`, `tru`, `truex`, `01`, `-`, `1.`, `1e`, `"\x"`, "\"a\tb\"", `"\u12G4"`, `{"a":1,}`, `[1,]`, `{,}`,
	`{"a":"\u00e9\ud800"}`, "\"\xff\xfe\"", `{"a":{"b":[{"c":[]}]}}`,
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat("[", 9999) + strings.Repeat("]", 9999),
}

// FuzzCompactJSON checks compactJSON against encoding/json: it accepts
// exactly what json.Valid accepts and writes what json.Compact writes;
// dropping fieldsV1 gives what deleting metadata.managedFields[*].fieldsV1
// from the decoded value gives.
func FuzzCompactJSON(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add([]byte(s))
	}
	c := snapshottest.Generate(rand.New(rand.NewPCG(3, 4)), 1)
	f.Add(c.JSON())
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := compactJSON(nil, data, 0, false)
		if valid := json.Valid(data); ok != valid {
			t.Fatalf("compactJSON(%q) ok = %v, json.Valid = %v", data, ok, valid)
		}
		if !ok {
			return
		}
		var want bytes.Buffer
		if err := json.Compact(&want, data); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(want.Bytes(), got) {
			t.Fatalf("compactJSON(%q) = %s, json.Compact = %s", data, got, want.Bytes())
		}
		dropped, ok := compactJSON(nil, data, 0, true)
		if !ok {
			t.Fatalf("compactJSON(%q) with drop declined", data)
		}
		var v, w any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		deleteFieldsV1(v)
		if err := json.Unmarshal(dropped, &w); err != nil {
			t.Fatalf("compactJSON(%q) with drop = %s: %v", data, dropped, err)
		}
		if !reflect.DeepEqual(v, w) {
			t.Fatalf("compactJSON(%q) with drop = %s, want %v", data, dropped, v)
		}
	})
}

// deleteFieldsV1 deletes metadata.managedFields[*].fieldsV1 from the
// decoded JSON v.
func deleteFieldsV1(v any) {
	top, _ := v.(map[string]any)
	meta, _ := top["metadata"].(map[string]any)
	mf, _ := meta["managedFields"].([]any)
	for _, e := range mf {
		if e, ok := e.(map[string]any); ok {
			delete(e, "fieldsV1")
		}
	}
}

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
		objs, ok, err := fastDecode(&window{buf: data})
		if err != nil {
			t.Fatalf("fastDecode() read error %v from memory", err)
		}
		// From a reader, in slabs of slab bytes.
		robjs, rok, err := fastDecode(&window{r: bytes.NewReader(data), size: int64(len(data)), slab: int(slab) + 1})
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
			var w *window
			if slab == 0 {
				w = &window{buf: tt.data}
			} else {
				w = &window{r: bytes.NewReader(tt.data), size: int64(len(tt.data)), slab: slab}
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
		if out, ok = compactJSON(out[:0], data, 0, true); !ok {
			b.Fatal("invalid")
		}
	}
}
