package daemon

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestFileLayering checks that the files of package daemon form layers: no
// two non-test files use each other's declarations, so that each file can
// be read knowing only the files below it.
//
// File A uses file B when A names a top-level declaration of B (a func, a
// type, a var or a const: an identifier of A that the parser leaves
// unresolved in A, which excludes A's own locals and composite-literal
// keys), declares a method on one of B's types, or selects (x.M) a method
// declared in B. The test has no type checker, so it cannot tell what x
// is: a selector counts as a use of a method only when no other method,
// and no struct field, of the package has the same name. A use of a
// method whose name two types (or a method and a field) share goes
// unseen, and a selector of another package's field or method spelt like
// a unique method of B is a false positive.
func TestFileLayering(t *testing.T) {
	uses, err := fileUses(".")
	if err != nil {
		t.Fatal(err)
	}
	files := make([]string, 0, len(uses))
	for f := range uses {
		files = append(files, f)
	}
	sort.Strings(files)
	var cycles []string
	for i, a := range files {
		for _, b := range files[i+1:] {
			ab, ba := uses[a][b], uses[b][a]
			if len(ab) > 0 && len(ba) > 0 {
				cycles = append(cycles, a+" uses "+strings.Join(ab, ", ")+" of "+b+"; "+b+" uses "+strings.Join(ba, ", ")+" of "+a)
			}
		}
	}
	if len(cycles) > 0 {
		t.Errorf("%d pairs of files use each other's declarations; move declarations to a lower file:\n\t%s",
			len(cycles), strings.Join(cycles, "\n\t"))
	}
}

// fileUses parses the non-test files of the package in dir and returns,
// for each file A and each other file B, the sorted names of B's
// declarations that A uses (see TestFileLayering).
func fileUses(dir string) (map[string]map[string][]string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	parsed := map[string]*ast.File{}
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, p, src, 0)
		if err != nil {
			return nil, err
		}
		parsed[filepath.Base(p)] = f
	}
	// Where each top-level name and each method name is declared.
	declared := map[string]string{}
	methods := map[string][]string{} // method name -> files, one per declaration
	fields := map[string]bool{}      // names of struct fields and interface methods
	for name, f := range parsed {
		ast.Inspect(f, func(n ast.Node) bool {
			var list *ast.FieldList
			switch n := n.(type) {
			case *ast.StructType:
				list = n.Fields
			case *ast.InterfaceType:
				list = n.Methods
			}
			if list != nil {
				for _, fd := range list.List {
					for _, id := range fd.Names {
						fields[id.Name] = true
					}
				}
			}
			return true
		})
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil {
					methods[d.Name.Name] = append(methods[d.Name.Name], name)
				} else if d.Name.Name != "init" {
					declared[d.Name.Name] = name
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						declared[s.Name.Name] = name
					case *ast.ValueSpec:
						for _, n := range s.Names {
							declared[n.Name] = name
						}
					}
				}
			}
		}
	}
	uses := map[string]map[string][]string{}
	for name, f := range parsed {
		used := map[string]map[string]bool{}
		use := func(of, what string) {
			if of == "" || of == name {
				return
			}
			if used[of] == nil {
				used[of] = map[string]bool{}
			}
			used[of][what] = true
		}
		for _, id := range f.Unresolved {
			use(declared[id.Name], id.Name)
		}
		imports := map[string]bool{}
		for _, im := range f.Imports {
			p := strings.Trim(im.Path.Value, `"`)
			n := p[strings.LastIndex(p, "/")+1:]
			if im.Name != nil {
				n = im.Name.Name
			}
			imports[n] = true
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Obj == nil && imports[x.Name] {
				return true // a package's name, not a value
			}
			if in := methods[sel.Sel.Name]; len(in) == 1 && !fields[sel.Sel.Name] {
				use(in[0], sel.Sel.Name)
			}
			return true
		})
		uses[name] = map[string][]string{}
		for of, names := range used {
			list := make([]string, 0, len(names))
			for n := range names {
				list = append(list, n)
			}
			slices.Sort(list)
			uses[name][of] = list
		}
	}
	return uses, nil
}
