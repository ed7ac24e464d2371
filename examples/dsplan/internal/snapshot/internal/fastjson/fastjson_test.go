package fastjson_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot/internal/fastjson"
	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot/snapshottest"
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

// FuzzCompact checks Compact against encoding/json: it accepts
// exactly what json.Valid accepts and writes what json.Compact writes;
// dropping fieldsV1 gives what deleting metadata.managedFields[*].fieldsV1
// from the decoded value gives.
func FuzzCompact(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add([]byte(s))
	}
	c := snapshottest.Generate(rand.New(rand.NewPCG(3, 4)), 1)
	f.Add(c.JSON())
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, impl := range compactImpls {
			checkCompact(t, impl.name, impl.compact, data)
		}
	})
}

// compactImpls are the implementations of Compact.
var compactImpls = []struct {
	name    string
	compact func(out, src []byte, depth int, drop bool) ([]byte, bool)
}{{"Compact", fastjson.Compact}, {"CompactText", fastjson.CompactText}}

// checkCompact checks one implementation of Compact on data.
func checkCompact(t *testing.T, name string, compact func(out, src []byte, depth int, drop bool) ([]byte, bool), data []byte) {
	t.Helper()
	{
		got, ok := compact(nil, data, 0, false)
		if valid := json.Valid(data); ok != valid {
			t.Fatalf("fastjson.%s(%q) ok = %v, json.Valid = %v", name, data, ok, valid)
		}
		if !ok {
			return
		}
		var want bytes.Buffer
		if err := json.Compact(&want, data); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(want.Bytes(), got) {
			t.Fatalf("fastjson.%s(%q) = %s, json.Compact = %s", name, data, got, want.Bytes())
		}
		dropped, ok := compact(nil, data, 0, true)
		if !ok {
			t.Fatalf("fastjson.%s(%q) with drop declined", name, data)
		}
		var v, w any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		deleteFieldsV1(v)
		if err := json.Unmarshal(dropped, &w); err != nil {
			t.Fatalf("fastjson.%s(%q) with drop = %s: %v", name, data, dropped, err)
		}
		if !reflect.DeepEqual(v, w) {
			t.Fatalf("fastjson.%s(%q) with drop = %s, want %v", name, data, dropped, v)
		}
	}
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

// TestCompactValue checks what CompactValue and CompactValueText say of values cut short and
// of nesting counted from the value's surroundings.
func TestCompactValue(t *testing.T) {
	nested := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, tt := range []struct {
		name   string
		src    string
		depth  int
		eof    bool
		want   string
		n      int
		status fastjson.Status
	}{
		{name: "object", src: `{ "a" : [1, 2] } ,{`, depth: 2, want: `{"a":[1,2]}`, n: 16},
		{name: "cut object", src: `{"a":[1,`, depth: 2, status: fastjson.More},
		{name: "cut object at the end", src: `{"a":[1,`, depth: 2, eof: true, status: fastjson.Bad},
		{name: "number that may go on", src: `12`, depth: 1, status: fastjson.More},
		{name: "number at the end", src: `12`, depth: 1, eof: true, want: `12`, n: 2},
		{name: "number and comma", src: `12,`, depth: 1, want: `12`, n: 2},
		{name: "cut literal", src: `tr`, depth: 1, status: fastjson.More},
		{name: "bad literal", src: `trux`, depth: 1, status: fastjson.Bad},
		{name: "nesting at the limit", src: nested(9998), depth: 2, eof: true, want: nested(9998), n: 2 * 9998},
		{name: "nesting past the limit", src: nested(9999), depth: 2, eof: true, status: fastjson.Bad},
		{name: "drop", src: `{"metadata":{"managedFields":[{"fieldsV1":{"f:a":{}},"manager":"m"}]}}`, depth: 2, eof: true,
			want: `{"metadata":{"managedFields":[{"manager":"m"}]}}`, n: 70},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, impl := range []struct {
				name    string
				compact func(out, src []byte, depth int, drop, eof bool) ([]byte, int, fastjson.Status)
			}{{"CompactValue", fastjson.CompactValue}, {"CompactValueText", fastjson.CompactValueText}} {
				got, n, st := impl.compact(nil, []byte(tt.src), tt.depth, tt.name == "drop", tt.eof)
				if diff := cmp.Diff([]any{tt.want, tt.n, tt.status}, []any{string(got), n, st}); diff != "" {
					t.Errorf("%s(%.40q, %d) (-want +got):\n%s", impl.name, tt.src, tt.depth, diff)
				}
			}
		})
	}
}
