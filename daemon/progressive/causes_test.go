package progressive_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The cause table of doc.go lists every value of the product's cause and
// reason types (Cause, HoldCause, StopCause, Signal, OutcomeReason,
// AssessStep) and every condition reason spelt as a literal (Reason*).
func TestDocTableListsEveryCause(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(doc), "# Causes and reasons")
	if i < 0 {
		t.Fatal("doc.go has no \"# Causes and reasons\" section")
	}
	table := string(doc[i:])
	listed := map[string]bool{}
	for _, w := range regexp.MustCompile(`[A-Za-z]+`).FindAllString(table, -1) {
		listed[w] = true
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	typed := map[string]bool{"Cause": true, "HoldCause": true, "StopCause": true, "Signal": true, "OutcomeReason": true, "AssessStep": true}
	fset := token.NewFileSet()
	n := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				typeName := ""
				if id, ok := vs.Type.(*ast.Ident); ok {
					typeName = id.Name
				}
				for k, id := range vs.Names {
					if k >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[k].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING || !(typed[typeName] || strings.HasPrefix(id.Name, "Reason")) {
						continue
					}
					v, err := strconv.Unquote(lit.Value)
					if err != nil || v == "" {
						continue
					}
					n++
					if !listed[v] {
						t.Errorf("%s (%s = %q) is not in doc.go's cause table", id.Name, name, v)
					}
				}
			}
		}
	}
	if n < 40 {
		t.Errorf("found %d causes and reasons, want at least 40: the test no longer finds them", n)
	}
}
