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
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon/progressive"
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
	"explainGateJSON.Cause":   {string(progressive.HoldHealthGate), string(progressive.HoldApproval), string(progressive.HoldWindow)},
	"explainSignalJSON.Signal": {string(progressive.SignalCrashLoop), string(progressive.SignalOOMKilled), string(progressive.SignalImagePull),
		string(progressive.SignalCreateError), string(progressive.SignalRestarts), string(progressive.SignalRestartedDuringBake), string(progressive.SignalReadyTimeout)},
}

// Patterns of the strings written in a fixed form.
const (
	// durationPattern is a Go duration as time.Duration.String writes it.
	durationPattern = `^(0s|-?([0-9]+(\.[0-9]+)?(h|m|s|ms|µs|ns))+)$`
	// namespacedPattern is "namespace/name".
	namespacedPattern = `^[^/]+/[^/]+$`
)

// schemaPatterns are the string fields (or the strings of list fields)
// written in a fixed form, by Go type and field.
var schemaPatterns = map[string]string{
	"planJSON.DaemonSet":           namespacedPattern,
	"planJSON.Adopt":               namespacedPattern,
	"planJSON.Release":             namespacedPattern,
	"planJSON.RequeueAfter":        durationPattern,
	"deleteJSON.Pod":               namespacedPattern,
	"historyJSON.Relabel":          namespacedPattern,
	"rolloutJSON.ProgressDeadline": durationPattern,
	"simulateJSON.DaemonSet":       namespacedPattern,
	"simulateJSON.Duration":        durationPattern,
	"simulateJSON.WaveBake":        durationPattern,
	"estimateJSON.ReadyP50":        durationPattern,
	"estimateJSON.ReadyP90":        durationPattern,
	"estimateJSON.BindP50":         durationPattern,
	"estimateJSON.BindP90":         durationPattern,
	"estimateJSON.Ready":           durationPattern,
	"estimateJSON.Bind":            durationPattern,
	"estimateJSON.MinReady":        durationPattern,
	"estimateJSON.DurationP50":     durationPattern,
	"estimateJSON.DurationP90":     durationPattern,
	"plannedWaveJSON.Start":        durationPattern,
	"plannedWaveJSON.Done":         durationPattern,
	"plannedWaveJSON.Duration":     durationPattern,
	"batchJSON.At":                 durationPattern,
	"stepJSON.At":                  durationPattern,
	"explainDSJSON.DaemonSet":      namespacedPattern,
}

func outcomes() []string {
	return []string{string(simulate.OutcomeConverged), string(simulate.OutcomeStalled), string(simulate.OutcomeStepLimit), string(simulate.OutcomeBlocked)}
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
	s := &jsonSchema{Description: typeDescription(rt.Name(), docs.doc), Type: schemaType{"object"}, Closed: true, goType: rt.Name()}
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
		if pat, ok := schemaPatterns[rt.Name()+"."+f.Name]; ok {
			switch {
			case p.Items != nil:
				p.Items.Pattern = pat
			default:
				p.Pattern = pat
			}
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
		if rt == reflect.TypeOf(metav1.Time{}) {
			return &jsonSchema{Type: schemaType{"string", "null"}, Format: "date-time"}
		}
		if rt.PkgPath() != reflect.TypeOf(planJSON{}).PkgPath() {
			return g.kubernetes(rt)
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

// typeDescription is a type's doc comment without the Go name it starts
// with ("planJSON is the schema of" -> "The schema of").
func typeDescription(name, doc string) string {
	for _, verb := range []string{" is ", " are "} {
		if rest, ok := strings.CutPrefix(doc, name+verb); ok && rest != "" {
			return strings.ToUpper(rest[:1]) + rest[1:]
		}
	}
	return doc
}

// kubernetes is the schema of Kubernetes's own type rt, as the API serves
// it: its fields typed, none required, and more allowed, since they are
// Kubernetes's to add.
func (g *schemaGen) kubernetes(rt reflect.Type) *jsonSchema {
	s := &jsonSchema{Type: schemaType{"object"}, goType: rt.Name(),
		Title: fmt.Sprintf("Kubernetes %s (%s, as the API serves it)", rt.Name(), rt.PkgPath())}
	for i := range rt.NumField() {
		f := rt.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			g.t.Fatalf("%s.%s: no JSON name to describe", rt.Name(), f.Name)
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		var p *jsonSchema
		switch {
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			p = &jsonSchema{Type: schemaType{"array"}, Items: g.kubernetes(ft.Elem())}
		case ft.Kind() == reflect.Struct && ft != reflect.TypeOf(metav1.Time{}):
			p = g.kubernetes(ft)
		default:
			p = g.value(ft, false)
		}
		s.Properties = append(s.Properties, named{name, p})
	}
	return s
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
