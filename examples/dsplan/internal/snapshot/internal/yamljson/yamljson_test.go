package yamljson_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot/internal/yamljson"
	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot/snapshottest"
)

// yamlSeeds are documents in and out of ToJSON's subset.
var yamlSeeds = []string{
	"a: 1\nb: [x]\n",
	"apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels:\n    b: \"1\"\n    a: 'it''s'\nspec:\n  containers:\n  - name: c\n    args:\n    - --v=2\n    - -x\n    image: \"nginx:1.27\"\n",
	"k: |\n  line one\n  line two\n\nz: |-\n  x\n",
	"k: |+\n  a\n\n\nz: 1\n",
	"y: yes\nn: ~\nt: 2026-01-02\nf: 1.5\ni: 0x1F\nj: 007\nk: -12\nl: 1_000\nm: .inf\nn2: .\n",
	"\"q\\x41\": \"a\\tb<c>&\"\nf:status:\n  .: {}\n  k:{\"type\":\"Ready\"}: {}\n",
	"a:\n  - b\n  - c: d\n    e: f\n",
	"a: b\n  c\n",
	"a: b # c\n",
	"b: 1\na: 2\na: 3\n",
	"- a\n- b\n",
	"a: &x 1\nb: *x\n",
	"---\na: 1\n",
	"a:\n-\n  b: 1\n",
	"key: \"multi\n  line\"\n",
	"\"\":00\n",      // a quoted key and a colon without a space: a plain scalar to yaml.v2
	"'': a\nb: ''\n", // an empty quoted key and value
}

// FuzzToJSON checks ToJSON against its oracle,
// sigs.k8s.io/yaml.YAMLToJSON: where the fast path answers, the oracle
// succeeds with the same bytes; with dropFieldsV1 the answer is the same
// but for metadata.managedFields[*].fieldsV1.
func FuzzToJSON(f *testing.F) {
	for _, s := range yamlSeeds {
		f.Add([]byte(s))
	}
	c := snapshottest.Generate(rand.New(rand.NewPCG(3, 4)), 2)
	for _, item := range bytes.Split(c.YAML(), []byte("\n- ")) {
		f.Add(bytes.ReplaceAll(item, []byte("\n  "), []byte("\n")))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := yamljson.ToJSON(data, false)
		if !ok {
			return
		}
		want, err := yaml.YAMLToJSON(data)
		if err != nil {
			t.Fatalf("yamljson.ToJSON(%q) = %s, but YAMLToJSON fails: %v", data, got, err)
		}
		if !bytes.Equal(want, got) {
			t.Fatalf("yamljson.ToJSON(%q):\n got %s\nwant %s", data, got, want)
		}
	})
}

// TestFastYAMLToJSONCoversCaptures checks that the fast path reads every
// item of a generated kubectl capture (so that it is the path taken).
func TestFastYAMLToJSONCoversCaptures(t *testing.T) {
	c := snapshottest.Generate(rand.New(rand.NewPCG(3, 4)), 3)
	y := c.YAML()
	items := bytes.Split(y[bytes.Index(y, []byte("\n- "))+3:bytes.Index(y, []byte("\nkind: List"))+1], []byte("\n- "))
	for i, item := range items {
		item = bytes.ReplaceAll(item, []byte("\n  "), []byte("\n"))
		got, ok := yamljson.ToJSON(item, false)
		if !ok {
			t.Fatalf("item %d: ToJSON declined:\n%s", i, item)
		}
		want, err := yaml.YAMLToJSON(item)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(want, got) {
			t.Fatalf("item %d:\n got %s\nwant %s", i, got, want)
		}
	}
}
