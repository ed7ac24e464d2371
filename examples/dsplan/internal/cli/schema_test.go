package cli

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestJSONSchema keeps examples/dsplan/JSON.md, the documented schema of
// plan -o json|yaml, explain -o json and simulate -o json, what the Go
// types of the output say: every type, field, JSON name and field comment
// is read from the source (go/parser) and the types' reflection, and the
// page is rendered from them (-update rewrites it). A field added to the
// output without a comment, or the page edited by hand, fails.
func TestJSONSchema(t *testing.T) {
	fset := token.NewFileSet()
	comments := map[string]map[string]string{} // type -> field -> comment
	typeDocs := map[string]string{}
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
				typeDocs[ts.Name.Name] = text(gd.Doc)
				fields := map[string]string{}
				// A comment covers the fields it names ("Adopt and Release
				// are pods") declared after it.
				prevDoc := ""
				for _, fl := range st.Fields.List {
					doc := text(fl.Doc)
					for _, n := range fl.Names {
						d := doc
						if fl.Doc == nil && mentions(prevDoc, n.Name) {
							d = prevDoc
						}
						fields[n.Name] = d
					}
					if fl.Doc != nil {
						prevDoc = doc
					}
				}
				comments[ts.Name.Name] = fields
			}
		}
	}
	var b strings.Builder
	b.WriteString(`# dsplan's JSON output

This page is generated from the Go types of the output
(examples/dsplan/internal/cli) by TestJSONSchema, which fails when the two
differ: run ` + "`go test -C examples/dsplan ./internal/cli -run TestJSONSchema -update`" + `
after changing the output. Fields are added, never renamed or removed;
lists are never null (an empty list is ` + "`[]`" + `); a field marked
"omitted when empty" is left out rather than written empty. Durations are
Go durations (` + "`\"1m30s\"`" + `), times RFC 3339.

- ` + "`dsplan plan -o json`" + ` (and ` + "`-o yaml`" + `, the same fields): a list of
  [plan](#plan), one per DaemonSet, sorted by namespace/name.
- ` + "`dsplan explain NODE -o json`" + `: one [explain](#explain).
- ` + "`dsplan simulate -o json`" + `: a list of [simulation](#simulation), one per
  DaemonSet, sorted by namespace/name.
`)
	roots := []struct {
		title string
		v     any
	}{{"plan", planJSON{}}, {"explain", explainJSON{}}, {"simulation", simulateJSON{}}}
	seen := map[reflect.Type]bool{}
	var queue []reflect.Type
	for _, r := range roots {
		queue = append(queue, reflect.TypeOf(r.v))
	}
	anchor := func(rt reflect.Type) string {
		for _, r := range roots {
			if reflect.TypeOf(r.v) == rt {
				return r.title
			}
		}
		return strings.TrimSuffix(rt.Name(), "JSON")
	}
	var describe func(rt reflect.Type) string
	describe = func(rt reflect.Type) string {
		switch rt.Kind() {
		case reflect.Pointer:
			return describe(rt.Elem())
		case reflect.Slice:
			return "list of " + describe(rt.Elem())
		case reflect.Map:
			return "object of " + describe(rt.Elem())
		case reflect.String:
			return "string"
		case reflect.Bool:
			return "boolean"
		case reflect.Int, reflect.Int32, reflect.Int64:
			return "integer"
		case reflect.Struct:
			if rt.PkgPath() != reflect.TypeOf(planJSON{}).PkgPath() {
				if rt.Name() == "Time" {
					return "time (RFC 3339)"
				}
				return fmt.Sprintf("Kubernetes %s (%s, as the API serves it)", rt.Name(), rt.PkgPath())
			}
			if !seen[rt] {
				seen[rt] = true
				queue = append(queue, rt)
			}
			return fmt.Sprintf("[%s](#%s)", anchor(rt), anchor(rt))
		}
		t.Fatalf("no JSON description for %s", rt)
		return ""
	}
	for _, r := range roots {
		seen[reflect.TypeOf(r.v)] = true
	}
	for len(queue) > 0 {
		rt := queue[0]
		queue = queue[1:]
		fmt.Fprintf(&b, "\n## %s\n\n", anchor(rt))
		if d := typeDocs[rt.Name()]; d != "" {
			fmt.Fprintf(&b, "%s\n\n", d)
		}
		b.WriteString("| field | type | meaning |\n|---|---|---|\n")
		for i := range rt.NumField() {
			f := rt.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				t.Fatalf("%s.%s has no JSON name", rt.Name(), f.Name)
			}
			doc := comments[rt.Name()][f.Name]
			if strings.Contains(opts, "omitempty") {
				doc = strings.TrimSpace(doc + " Omitted when empty.")
			}
			if doc == "" {
				t.Errorf("%s.%s (%q) has no comment: the schema page documents every field from its comment", rt.Name(), f.Name, name)
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", name, describe(f.Type), strings.ReplaceAll(doc, "|", "\\|"))
		}
	}
	golden(t, "JSON.md", b.String())
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
