package cli

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/daemonplan/daemonplan/daemon/simulate"
)

// schemaDocs are the -o json documents, each with its JSON Schema in
// examples/dsplan/schema: the root Go type, its kind and whether the
// command prints a list of them.
var schemaDocs = []struct {
	file, kind, command string
	list                bool
	root                any
}{
	{"plan.schema.json", "Plan", "dsplan plan -o json|yaml", true, planJSON{}},
	{"simulation.schema.json", "Simulation", "dsplan simulate -o json", true, simulateJSON{}},
	{"explanation.schema.json", "Explanation", "dsplan explain NODE -o json", false, explainJSON{}},
}

// schemaEnums are the string fields whose values are a closed set, by Go
// type and field. A new value is added here (and the schemas regenerated).
var schemaEnums = map[string][]string{
	"simulateJSON.Outcome":    outcomes(),
	"estimateJSON.OutcomeP90": outcomes(),
	"estimateJSON.Source":     {"learned", "flags", "defaults"},
	"eventJSON.Type":          {"Normal", "Warning"},
	"nodeJSON.Ready":          {"True", "False", "Unknown", ""},
	"standingJSON.Held":       {"Scope", "Partition", "Wave", "Paused"},
}

func outcomes() []string {
	return []string{string(simulate.OutcomeConverged), string(simulate.OutcomeStalled), string(simulate.OutcomeStepLimit)}
}

// TestJSONSchema keeps examples/dsplan/schema/*.schema.json, the JSON
// Schemas (draft 2020-12) of plan -o json|yaml, simulate -o json and explain
// -o json, what the Go types of the output say, and JSON.md what the
// schemas say. Every type, field, JSON name and field comment is read from
// the source (go/parser) and the types' reflection; -update rewrites the
// schemas and the page. A field added to the output without a comment, or a
// schema or the page edited by hand, fails, naming the property.
// (TestGoldenOutputsMatchSchemas validates the golden outputs against the
// schemas.)
func TestJSONSchema(t *testing.T) {
	g := &schemaGen{t: t, docs: fieldDocs(t), defs: map[reflect.Type]string{}}
	var files []*jsonSchema
	for _, d := range schemaDocs {
		s := g.document(d.kind, d.command, d.list, reflect.TypeOf(d.root))
		files = append(files, s)
		data, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		path := "schema/" + d.file
		if !*update {
			reportSchemaDrift(t, path, s)
		}
		golden(t, path, string(data)+"\n")
	}
	golden(t, "JSON.md", renderJSONMarkdown(t, files))
}

// reportSchemaDrift names each property the Go types and the committed
// schema at path disagree on, and how to fix it.
func reportSchemaDrift(t *testing.T, path string, want *jsonSchema) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		return // golden says it
	}
	var got jsonSchema
	if err := json.Unmarshal(data, &got); err != nil {
		t.Errorf("%s: %v", path, err)
		return
	}
	for _, def := range want.Defs {
		old := got.Defs.get(def.name)
		if old == nil {
			t.Errorf("%s: $defs has no %q (Go type %s): run `go test ./internal/cli -run TestJSONSchema -update` in examples/dsplan to regenerate the schemas and JSON.md", path, def.name, def.schema.goType)
			continue
		}
		for _, p := range def.schema.Properties {
			if old.Properties.get(p.name) == nil {
				t.Errorf("%s: $defs.%s.properties has no %q (Go %s.%s): give the field a doc comment and run `go test ./internal/cli -run TestJSONSchema -update` in examples/dsplan to regenerate the schemas and JSON.md", path, def.name, p.name, def.schema.goType, p.schema.goField)
			}
		}
		for _, p := range old.Properties {
			if def.schema.Properties.get(p.name) == nil {
				t.Errorf("%s: $defs.%s.properties has %q, which no field of Go %s writes: fields are never removed or renamed (JSON.md); restore the field, or regenerate with -update", path, def.name, p.name, def.schema.goType)
			}
		}
	}
}

// jsonSchema is the part of JSON Schema draft 2020-12 the documents use, in
// the order the files list it.
type jsonSchema struct {
	Schema               string      `json:"$schema,omitempty"`
	ID                   string      `json:"$id,omitempty"`
	Title                string      `json:"title,omitempty"`
	Description          string      `json:"description,omitempty"`
	Ref                  string      `json:"$ref,omitempty"`
	Type                 schemaType  `json:"type,omitempty"`
	Const                *string     `json:"const,omitempty"`
	Enum                 []string    `json:"enum,omitempty"`
	Format               string      `json:"format,omitempty"`
	Items                *jsonSchema `json:"items,omitempty"`
	Properties           namedList   `json:"properties,omitempty"`
	Required             []string    `json:"required,omitempty"`
	AdditionalProperties *jsonSchema `json:"additionalProperties,omitempty"`
	Defs                 namedList   `json:"$defs,omitempty"`
	// Closed writes "additionalProperties": false (Properties lists every
	// property); it is read back from that.
	Closed bool `json:"-"`
	// goType and goField name the Go type or field the schema was made
	// from, for the messages.
	goType, goField string
}

// MarshalJSON writes additionalProperties false for a closed object.
func (s *jsonSchema) MarshalJSON() ([]byte, error) {
	type plain jsonSchema
	data, err := json.Marshal((*plain)(s))
	if err != nil || !s.Closed {
		return data, err
	}
	return append(data[:len(data)-1], []byte(`,"additionalProperties":false}`)...), nil
}

// UnmarshalJSON reads additionalProperties false as Closed.
func (s *jsonSchema) UnmarshalJSON(data []byte) error {
	type plain jsonSchema
	var aux struct {
		plain
		AdditionalProperties json.RawMessage `json:"additionalProperties,omitempty"`
	}
	if err := json.Unmarshal(data, &aux); err != nil {
		return err
	}
	*s = jsonSchema(aux.plain)
	switch raw := strings.TrimSpace(string(aux.AdditionalProperties)); raw {
	case "":
	case "false":
		s.Closed = true
	default:
		s.AdditionalProperties = &jsonSchema{}
		return json.Unmarshal(aux.AdditionalProperties, s.AdditionalProperties)
	}
	return nil
}

// schemaType is "type": one name, or a list of them.
type schemaType []string

func (t schemaType) MarshalJSON() ([]byte, error) {
	if len(t) == 1 {
		return json.Marshal(t[0])
	}
	return json.Marshal([]string(t))
}

func (t *schemaType) UnmarshalJSON(data []byte) error {
	var one string
	if json.Unmarshal(data, &one) == nil {
		*t = schemaType{one}
		return nil
	}
	return json.Unmarshal(data, (*[]string)(t))
}

// namedList is a JSON object of schemas that keeps its order.
type namedList []named

type named struct {
	name   string
	schema *jsonSchema
}

func (l namedList) get(name string) *jsonSchema {
	for _, n := range l {
		if n.name == name {
			return n.schema
		}
	}
	return nil
}

func (l namedList) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, n := range l {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(n.name)
		v, err := json.Marshal(n.schema)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

func (l *namedList) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	if _, err := dec.Token(); err != nil {
		return err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		s := &jsonSchema{}
		if err := dec.Decode(s); err != nil {
			return err
		}
		*l = append(*l, named{tok.(string), s})
	}
	return nil
}

// schemaGen makes the schemas from the Go types.
type schemaGen struct {
	t    *testing.T
	docs map[string]goDocs
	// defs names the Go types already in the current document's $defs.
	defs  map[reflect.Type]string
	queue []reflect.Type
	out   namedList
}

// goDocs are a Go struct type's doc comment and its fields' comments.
type goDocs struct {
	doc    string
	fields map[string]string
}

// document is the schema of one -o json document of kind.
func (g *schemaGen) document(kind, command string, list bool, root reflect.Type) *jsonSchema {
	g.defs = map[reflect.Type]string{root: kind}
	g.queue = []reflect.Type{root}
	g.out = nil
	for len(g.queue) > 0 {
		rt := g.queue[0]
		g.queue = g.queue[1:]
		g.out = append(g.out, named{g.defs[rt], g.object(rt, kind)})
	}
	s := &jsonSchema{
		Schema: "https://json-schema.org/draft/2020-12/schema",
		ID:     "https://github.com/daemonplan/daemonplan/examples/dsplan/schema/" + strings.ToLower(kind) + ".schema.json",
		Title:  command,
		Defs:   g.out,
	}
	if list {
		s.Description = fmt.Sprintf("The output of %s (and kubectl dsplan's): a list of %s, one per DaemonSet, sorted by namespace/name.", command, kind)
		s.Type = schemaType{"array"}
		s.Items = &jsonSchema{Ref: "#/$defs/" + kind}
	} else {
		s.Description = fmt.Sprintf("The output of %s (and kubectl dsplan's): one %s.", command, kind)
		s.Ref = "#/$defs/" + kind
	}
	if strings.HasSuffix(command, "|yaml") {
		s.Description += " -o yaml writes the same document as YAML."
	}
	return s
}

// object is the schema of one of our struct types: every field a
// property, the ones without omitempty required, no other property.
func (g *schemaGen) object(rt reflect.Type, kind string) *jsonSchema {
	docs := g.docs[rt.Name()]
	s := &jsonSchema{Description: docs.doc, Type: schemaType{"object"}, Closed: true, goType: rt.Name()}
	s.Required = []string{}
	for i := range rt.NumField() {
		f := rt.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			g.t.Fatalf("%s.%s has no JSON name", rt.Name(), f.Name)
		}
		omitted := strings.Contains(opts, "omitempty")
		doc := docs.fields[f.Name]
		if doc == "" {
			g.t.Errorf("%s.%s (%q) has no comment: the schemas describe every field with its comment", rt.Name(), f.Name, name)
		}
		if omitted {
			doc = strings.TrimSpace(doc + " Omitted when empty.")
		}
		p := g.value(f.Type, !omitted)
		p.Description, p.goField = doc, f.Name
		switch f.Name {
		case "APIVersion":
			p.Const = ptr(jsonAPIVersion)
		case "Kind":
			p.Const = ptr(kind)
		}
		if e, ok := schemaEnums[rt.Name()+"."+f.Name]; ok {
			p.Enum = e
		}
		s.Properties = append(s.Properties, named{name, p})
		if !omitted {
			s.Required = append(s.Required, name)
		}
	}
	return s
}

func ptr[T any](v T) *T { return &v }

// value is the schema of a field's value of type rt; nullable says a nil
// pointer is written as null.
func (g *schemaGen) value(rt reflect.Type, nullable bool) *jsonSchema {
	switch rt.Kind() {
	case reflect.Pointer:
		s := g.value(rt.Elem(), false)
		if nullable {
			if s.Ref != "" {
				g.t.Fatalf("%s: a pointer to one of our types is written as null when nil; give the field omitempty", rt)
			}
			s.Type = append(s.Type, "null")
		}
		return s
	case reflect.Slice:
		return &jsonSchema{Type: schemaType{"array"}, Items: g.value(rt.Elem(), false)}
	case reflect.Map:
		return &jsonSchema{Type: schemaType{"object"}, AdditionalProperties: g.value(rt.Elem(), false)}
	case reflect.String:
		return &jsonSchema{Type: schemaType{"string"}}
	case reflect.Bool:
		return &jsonSchema{Type: schemaType{"boolean"}}
	case reflect.Int, reflect.Int32, reflect.Int64:
		return &jsonSchema{Type: schemaType{"integer"}}
	case reflect.Struct:
		if rt == reflect.TypeOf(time.Time{}) {
			return &jsonSchema{Type: schemaType{"string"}, Format: "date-time"}
		}
		if rt.PkgPath() != reflect.TypeOf(planJSON{}).PkgPath() {
			// Kubernetes's own type, as the API serves it: its fields are
			// Kubernetes's to add.
			return &jsonSchema{Type: schemaType{"object"}, goType: rt.Name(),
				Title: fmt.Sprintf("Kubernetes %s (%s, as the API serves it)", rt.Name(), rt.PkgPath())}
		}
		name, ok := g.defs[rt]
		if !ok {
			name = strings.TrimSuffix(rt.Name(), "JSON")
			g.defs[rt] = name
			g.queue = append(g.queue, rt)
		}
		return &jsonSchema{Ref: "#/$defs/" + name}
	}
	g.t.Fatalf("no JSON Schema for %s", rt)
	return nil
}

// fieldDocs reads the doc comments of the package's struct types and
// their fields. A comment covers the fields it names ("Adopt and Release
// are pods") declared after it.
func fieldDocs(t *testing.T) map[string]goDocs {
	fset := token.NewFileSet()
	out := map[string]goDocs{}
	files, _ := filepath.Glob("internal/cli/*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range file.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				d := goDocs{doc: text(gd.Doc), fields: map[string]string{}}
				prevDoc := ""
				for _, fl := range st.Fields.List {
					doc := text(fl.Doc)
					for _, n := range fl.Names {
						fd := doc
						if fl.Doc == nil && mentions(prevDoc, n.Name) {
							fd = prevDoc
						}
						d.fields[n.Name] = fd
					}
					if fl.Doc != nil {
						prevDoc = doc
					}
				}
				out[ts.Name.Name] = d
			}
		}
	}
	return out
}

// renderJSONMarkdown is JSON.md: the documents and every definition of the
// schemas, once each, as tables.
func renderJSONMarkdown(t *testing.T, files []*jsonSchema) string {
	var b strings.Builder
	b.WriteString(`# dsplan's JSON output

This page is generated from the JSON Schemas (draft 2020-12) in
[schema/](schema/), which are generated from the Go types of the output
(examples/dsplan/internal/cli) by TestJSONSchema; it fails when the three
differ: run ` + "`go test ./internal/cli -run TestJSONSchema -update`" + ` in
examples/dsplan after changing the output. TestGoldenOutputsMatchSchemas
validates the -o json and -o yaml outputs of the golden cases against the
schemas with a JSON Schema library.

Every document carries ` + "`apiVersion: " + jsonAPIVersion + "`" + ` and its
` + "`kind`" + `. Fields are added, never renamed or removed, under the same
apiVersion; lists are never null (an empty list is ` + "`[]`" + `); a field marked
"omitted when empty" is left out rather than written empty. Durations are
Go durations (` + "`\"1m30s\"`" + `), times RFC 3339.

| command | document | schema |
|---|---|---|
`)
	for i, f := range files {
		d := schemaDocs[i]
		shape := fmt.Sprintf("one [%s](#%s)", d.kind, strings.ToLower(d.kind))
		if d.list {
			shape = fmt.Sprintf("a list of [%s](#%s), one per DaemonSet, sorted by namespace/name", d.kind, strings.ToLower(d.kind))
		}
		fmt.Fprintf(&b, "| `%s` | %s | [%s](schema/%s) |\n", f.Title, shape, d.file, d.file)
	}
	seen := map[string]*jsonSchema{}
	for _, f := range files {
		for _, def := range f.Defs {
			if prev, ok := seen[def.name]; ok {
				a, _ := json.Marshal(prev)
				c, _ := json.Marshal(def.schema)
				if string(a) != string(c) {
					t.Errorf("$defs.%s differs between the schemas", def.name)
				}
				continue
			}
			seen[def.name] = def.schema
			fmt.Fprintf(&b, "\n## %s\n\n", def.name)
			if def.schema.Description != "" {
				fmt.Fprintf(&b, "%s\n\n", def.schema.Description)
			}
			b.WriteString("| field | type | required | meaning |\n|---|---|---|---|\n")
			for _, p := range def.schema.Properties {
				req := ""
				if slices.Contains(def.schema.Required, p.name) {
					req = "yes"
				}
				fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", p.name, describeSchema(p.schema), req, strings.ReplaceAll(p.schema.Description, "|", "\\|"))
			}
		}
	}
	return b.String()
}

// describeSchema is a property's type in words.
func describeSchema(s *jsonSchema) string {
	var out string
	switch {
	case s.Ref != "":
		name := strings.TrimPrefix(s.Ref, "#/$defs/")
		out = fmt.Sprintf("[%s](#%s)", name, strings.ToLower(name))
	case s.Const != nil:
		out = fmt.Sprintf("`%q`", *s.Const)
	case slices.Contains(s.Type, "array"):
		out = "list of " + describeSchema(s.Items)
	case slices.Contains(s.Type, "object") && s.AdditionalProperties != nil:
		out = "object of " + describeSchema(s.AdditionalProperties)
	case s.Format == "date-time":
		out = "time (RFC 3339)"
	case len(s.Enum) > 0:
		var q []string
		for _, e := range s.Enum {
			q = append(q, fmt.Sprintf("`%q`", e))
		}
		out = "string: " + strings.Join(q, ", ")
	case slices.Contains(s.Type, "object"):
		out = "object"
		if s.Title != "" {
			out = s.Title
		}
	default:
		out = s.Type[0]
	}
	if slices.Contains(s.Type, "null") {
		out += " or null"
	}
	return out
}

// mentions reports whether doc names the field as a word.
func mentions(doc, field string) bool {
	for _, w := range strings.FieldsFunc(doc, func(r rune) bool { return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') }) {
		if w == field {
			return true
		}
	}
	return false
}

// text is a comment group as one line.
func text(g *ast.CommentGroup) string {
	if g == nil {
		return ""
	}
	return strings.Join(strings.Fields(g.Text()), " ")
}
