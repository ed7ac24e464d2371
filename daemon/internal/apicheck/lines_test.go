package apicheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLines writes small packages' APIs: one line per exported name,
// sorted, unexported names and parameter names left out.
func TestLines(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{{
		name: "constants typed and untyped, with exact values",
		src: `package p
type Effect uint8
const (
	A Effect = 1 << iota
	B
	hidden
)
const Prefix = "a long prefix that go/constant would abridge when it writes the short form of a string"
const Half = 0.5
`,
		want: []string{
			`pkg p, const A Effect = 1`,
			`pkg p, const B Effect = 2`,
			`pkg p, const Half untyped float = 0.5`,
			`pkg p, const Prefix untyped string = "a long prefix that go/constant would abridge when it writes the short form of a string"`,
			`pkg p, type Effect uint8`,
		},
	}, {
		name: "functions and methods without parameter names",
		src: `package p
type T struct{ n int }
func New(n int, names ...string) (*T, error) { return nil, nil }
func (t T) Len() int { return 0 }
func (t *T) Set(less func(a, b int) bool) {}
func (t *T) reset() {}
func helper() {}
var ErrX error
`,
		want: []string{
			`pkg p, func New(int, ...string) (*T, error)`,
			`pkg p, method (*T) Set(func(int, int) bool)`,
			`pkg p, method (T) Len() int`,
			`pkg p, type T struct`,
			`pkg p, var ErrX error`,
		},
	}, {
		name: "struct fields, embedded fields, interfaces, aliases, generics",
		src: `package p
type Inner struct{ X int }
type Outer struct {
	Inner
	Name  string
	Order func(a, b *Inner) int
	local bool
}
type Sorter interface {
	Less(i, j int) bool
	Len() int
}
type Sealed interface{ Public(); private() }
type Same = Inner
type Set[K comparable] map[K]struct{}
func Keys[K comparable](s Set[K]) []K { return nil }
`,
		want: []string{
			`pkg p, func Keys[K comparable](Set[K]) []K`,
			`pkg p, type Inner struct`,
			`pkg p, type Inner struct, X int`,
			`pkg p, type Outer struct`,
			`pkg p, type Outer struct, Name string`,
			`pkg p, type Outer struct, Order func(*Inner, *Inner) int`,
			`pkg p, type Outer struct, embedded Inner`,
			`pkg p, type Same = Inner`,
			`pkg p, type Sealed interface { Public, unexported methods }`,
			`pkg p, type Sealed interface, Public()`,
			`pkg p, type Set[K comparable] map[K]struct{}`,
			`pkg p, type Sorter interface { Len, Less }`,
			`pkg p, type Sorter interface, Len() int`,
			`pkg p, type Sorter interface, Less(int, int) bool`,
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, "p.go", tt.src, 0)
			if err != nil {
				t.Fatal(err)
			}
			pkg, err := new(types.Config).Check("example.com/m/p", fset, []*ast.File{f}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, Lines(pkg, "example.com/m")); diff != "" {
				t.Errorf("Lines (-want +got):\n%s", diff)
			}
		})
	}
}
