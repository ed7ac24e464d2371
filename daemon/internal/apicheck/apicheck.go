package apicheck

import (
	"go/constant"
	"go/types"
	"slices"
	"strings"
)

// Lines returns the exported API of pkg, sorted, one name a line, each
// line starting "pkg <path>, " where path is pkg's import path with
// modulePath and a slash cut from its front (the whole path when pkg is
// outside modulePath). Types of other packages are written with their
// import path shortened the same way; pkg's own types, unqualified.
//
// Lines are, as in the Go project's api files:
//
//	const Name Type = value      (strings and integers exact, strings
//	                             unabridged; floats in decimal)
//	var Name Type
//	func Name(Params) Results    (types only: parameter names are not API)
//	type Name = Type             (an alias)
//	type Name struct             then "type Name struct, Field Type" for
//	                             each exported field, "embedded Type" for
//	                             an embedded one
//	type Name interface { M1, M2 }  then "type Name interface, M1(...)"
//	type Name Underlying         (any other defined type)
//	method (Name) M(Params) Results, or (*Name) for a pointer receiver
//
// Fields and methods promoted from an embedded field are not listed: the
// "embedded" line stands for them, as in Go's files. So an exported
// field or method reached only through an unexported embedded type is
// not listed either (no library package has one).
func Lines(pkg *types.Package, modulePath string) []string {
	short := func(path string) string {
		if rest, ok := strings.CutPrefix(path, modulePath+"/"); ok {
			return rest
		}
		return path
	}
	qual := func(p *types.Package) string {
		if p == pkg {
			return ""
		}
		return short(p.Path())
	}
	prefix := "pkg " + short(pkg.Path()) + ", "
	var lines []string
	add := func(s string) { lines = append(lines, prefix+s) }

	scope := pkg.Scope()
	for _, name := range scope.Names() { // sorted
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch obj := obj.(type) {
		case *types.Const:
			add("const " + name + " " + typeString(obj.Type(), qual) + " = " + constString(obj.Val()))
		case *types.Var:
			add("var " + name + " " + typeString(obj.Type(), qual))
		case *types.Func:
			add("func " + name + signature(obj.Type().(*types.Signature), qual))
		case *types.TypeName:
			typeLines(obj, qual, add)
		}
	}
	slices.Sort(lines)
	return slices.Compact(lines)
}

// typeLines adds the lines of one exported type name: the type, its
// exported fields or interface methods, and its exported methods.
func typeLines(obj *types.TypeName, qual types.Qualifier, add func(string)) {
	name := obj.Name()
	if obj.IsAlias() {
		add("type " + name + " = " + typeString(types.Unalias(obj.Type()), qual))
		return
	}
	named, ok := obj.Type().(*types.Named)
	if !ok { // a predeclared-like type name; not expected in a package scope
		add("type " + name + " " + typeString(obj.Type(), qual))
		return
	}
	head := name + typeParams(named.TypeParams(), qual)
	switch u := named.Underlying().(type) {
	case *types.Struct:
		add("type " + head + " struct")
		for f := range u.Fields() {
			if !f.Exported() {
				continue
			}
			if f.Embedded() {
				add("type " + name + " struct, embedded " + typeString(f.Type(), qual))
			} else {
				add("type " + name + " struct, " + f.Name() + " " + typeString(f.Type(), qual))
			}
		}
	case *types.Interface:
		var methods []string
		for m := range u.Methods() { // the full method set, embedded interfaces' included
			if !m.Exported() {
				methods = append(methods, "unexported methods")
				continue
			}
			methods = append(methods, m.Name())
			add("type " + name + " interface, " + m.Name() + signature(m.Type().(*types.Signature), qual))
		}
		slices.Sort(methods)
		methods = slices.Compact(methods)
		if n := u.NumEmbeddeds(); n > 0 && !u.IsMethodSet() {
			methods = append(methods, "type set "+typeString(u, qual))
		}
		add("type " + head + " interface { " + strings.Join(methods, ", ") + " }")
	default:
		add("type " + head + " " + typeString(u, qual))
	}
	for m := range named.Methods() {
		if !m.Exported() {
			continue
		}
		sig := m.Type().(*types.Signature)
		recv := name
		if _, ptr := sig.Recv().Type().(*types.Pointer); ptr {
			recv = "*" + name
		}
		add("method (" + recv + ") " + m.Name() + signature(sig, qual))
	}
}

// signature writes sig without its receiver and without parameter names:
// "(int, ...string) (bool, error)", type parameters first when it has any.
func signature(sig *types.Signature, qual types.Qualifier) string {
	return typeParams(sig.TypeParams(), qual) + strings.TrimPrefix(typeString(sig, qual), "func")
}

// typeString writes t as types.TypeString does, but with the parameter
// names of every function type in it left out: they are not API.
func typeString(t types.Type, qual types.Qualifier) string {
	return types.TypeString(unnamed(t), qual)
}

// unnamed returns t with its function types' parameter names removed.
// Named types stay as they are: they are written by name.
func unnamed(t types.Type) types.Type {
	switch t := t.(type) {
	case *types.Signature:
		tuple := func(tu *types.Tuple) *types.Tuple {
			vars := make([]*types.Var, tu.Len())
			for i := range vars {
				vars[i] = types.NewParam(0, nil, "", unnamed(tu.At(i).Type()))
			}
			return types.NewTuple(vars...)
		}
		return types.NewSignatureType(nil, nil, nil, tuple(t.Params()), tuple(t.Results()), t.Variadic())
	case *types.Pointer:
		return types.NewPointer(unnamed(t.Elem()))
	case *types.Slice:
		return types.NewSlice(unnamed(t.Elem()))
	case *types.Array:
		return types.NewArray(unnamed(t.Elem()), t.Len())
	case *types.Map:
		return types.NewMap(unnamed(t.Key()), unnamed(t.Elem()))
	case *types.Chan:
		return types.NewChan(t.Dir(), unnamed(t.Elem()))
	}
	return t
}

// typeParams writes a type parameter list, "[K comparable, V any]", or ""
// when there is none.
func typeParams(tps *types.TypeParamList, qual types.Qualifier) string {
	if tps.Len() == 0 {
		return ""
	}
	parts := make([]string, tps.Len())
	for i := range parts {
		tp := tps.At(i)
		parts[i] = tp.Obj().Name() + " " + types.TypeString(tp.Constraint(), qual)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// constString writes a constant's value: strings (in full) and integers
// exactly, floats and complex numbers in decimal as go/constant rounds
// them (exactly, they could be fractions).
func constString(v constant.Value) string {
	switch v.Kind() {
	case constant.Float, constant.Complex:
		return v.String()
	}
	return v.ExactString()
}
