package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"sigs.k8s.io/yaml"
)

// TestGoldenOutputsMatchSchemas validates every -o json (and plan -o yaml)
// output among the golden cases (testdata/golden) against its JSON Schema
// in schema/ with a JSON Schema library: the schema says what a document
// must hold, a document holds nothing the schema does not name
// (additionalProperties false), and every kind is covered by a case.
func TestGoldenOutputsMatchSchemas(t *testing.T) {
	schemas := map[string]*jsonschema.Schema{} // command -> its document's schema
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	for _, d := range schemaDocs {
		path := "schema/" + d.file
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		url := "https://github.com/daemonplan/daemonplan/examples/dsplan/" + path
		if err := c.AddResource(url, doc); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		sch, err := c.Compile(url)
		if err != nil {
			t.Fatalf("%s is not a valid JSON Schema (draft 2020-12): %v", path, err)
		}
		schemas[strings.Fields(d.command)[1]] = sch
	}

	files, err := filepath.Glob("testdata/golden/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, file := range files {
		command, format, stdout, ok := goldenDocument(t, file)
		if !ok {
			continue
		}
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			sch := schemas[command]
			if sch == nil {
				t.Fatalf("%s: dsplan %s -o %s has no schema: add the command's document to schemaDocs (schema_test.go)", file, command, format)
			}
			data := []byte(stdout)
			if format == "yaml" {
				if data, err = yaml.YAMLToJSON(data); err != nil {
					t.Fatalf("%s: stdout is not YAML: %v", file, err)
				}
			}
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("%s: stdout is not JSON: %v", file, err)
			}
			if err := sch.Validate(inst); err != nil {
				t.Errorf("%s: dsplan %s -o %s does not match its schema:\n%v\n"+
					"A property the output now writes needs a field with a doc comment in the Go type "+
					"(planJSON, simulateJSON, explainJSON or a type they hold); then run "+
					"`go test ./internal/cli -run TestJSONSchema -update` in examples/dsplan to regenerate "+
					"schema/*.schema.json and JSON.md. A new value of a closed set goes into schemaEnums, "+
					"a string in a new form into schemaPatterns (internal/cli/schema_test.go), then the same command.", file, command, format, err)
			}
			kinds = append(kinds, documentKinds(data)...)
		})
	}
	for _, d := range schemaDocs {
		if !slices.Contains(kinds, d.kind) {
			t.Errorf("no golden case prints a %s (%s): add one to TestGolden", d.kind, d.command)
		}
	}
}

// goldenDocument reads a golden file and, when its command printed a -o
// json or yaml document, returns the command, the format and stdout.
func goldenDocument(t *testing.T, file string) (command, format, stdout string, ok bool) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	first, rest, _ := strings.Cut(string(data), "\n")
	args := strings.Fields(strings.TrimPrefix(first, "$ dsplan "))
	for i, a := range args {
		if a == "-o" && i+1 < len(args) && (args[i+1] == "json" || args[i+1] == "yaml") {
			format = args[i+1]
		}
	}
	if format == "" || len(args) == 0 {
		return "", "", "", false
	}
	_, out, found := strings.Cut(rest, "--- stdout\n")
	if !found {
		t.Fatalf("%s has no stdout section", file)
	}
	out, _, _ = strings.Cut(out, "--- stderr\n")
	if strings.TrimSpace(out) == "" {
		return "", "", "", false // a usage error prints no document
	}
	return args[0], format, out, true
}

// documentKinds are the kinds in a document: its own, or its items'.
func documentKinds(data []byte) []string {
	type meta struct {
		Kind string `json:"kind"`
	}
	var list []meta
	if json.Unmarshal(data, &list) == nil {
		var out []string
		for _, m := range list {
			out = append(out, m.Kind)
		}
		return out
	}
	var one meta
	_ = json.Unmarshal(data, &one) // valid JSON: the schema passed it
	return []string{one.Kind}
}
