package apply

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// FieldDiff is one field of a pod template that an update changes.
type FieldDiff struct {
	// Path is the field's path under the DaemonSet, such as
	// spec.template.spec.containers[aws-node].image: list elements that
	// have a name are named, others are indexed ([0]); map keys that are
	// not plain identifiers are bracketed (metadata.labels[app.kubernetes.io/name]).
	Path string
	// Old and New are its compact JSON values before and after; "" where
	// the field is absent.
	Old, New string
}

// String is "PATH: OLD → NEW", with "(none)" for an absent side.
func (d FieldDiff) String() string {
	old, new := d.Old, d.New
	if old == "" {
		old = "(none)"
	}
	if new == "" {
		new = "(none)"
	}
	return d.Path + ": " + old + " → " + new
}

// TemplateDiff lists the fields in which after's pod template differs
// from before's (the stored object and what Apply or Update returns),
// both with Defaults applied and as the API server returns them, as
// Update compares them: a field only one side spells out but both get by
// default is no difference. It lists every changed leaf, in key order,
// with a list of named elements (containers, env, volumes, ports with a
// name) compared by name and any other list element by element. It
// returns an error for a nil argument; it modifies nothing.
func TemplateDiff(before, after *appsv1.DaemonSet) ([]FieldDiff, error) {
	if before == nil || after == nil {
		return nil, field.Required(field.NewPath("daemonSet"), "two DaemonSets are required")
	}
	sides := make([]any, 2)
	for i, ds := range []*appsv1.DaemonSet{before, after} {
		stored, err := roundTrip(Defaults(ds))
		if err != nil {
			return nil, err
		}
		if sides[i], err = generic(stored.Spec.Template); err != nil {
			return nil, err
		}
	}
	a, b := sides[0], sides[1]
	var out []FieldDiff
	walkDiff("spec.template", a, b, &out)
	return out, nil
}

// generic is v's JSON encoding decoded into maps, lists and scalars.
func generic(v any) (any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding the template: %w", err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("decoding the template: %w", err)
	}
	return out, nil
}

// walkDiff appends to out the differences under path between a and b.
func walkDiff(path string, a, b any, out *[]FieldDiff) {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := slices.Sorted(maps.Keys(am))
		for k := range bm {
			if _, ok := am[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			walkDiff(childPath(path, k), am[k], bm[k], out)
		}
		return
	}
	al, aok := a.([]any)
	bl, bok := b.([]any)
	if aok && bok {
		if an, bn := byName(al), byName(bl); an != nil && bn != nil {
			names := slices.Sorted(maps.Keys(an))
			for n := range bn {
				if _, ok := an[n]; !ok {
					names = append(names, n)
				}
			}
			slices.Sort(names)
			for _, n := range names {
				walkDiff(path+"["+n+"]", an[n], bn[n], out)
			}
			return
		}
		for i := range max(len(al), len(bl)) {
			var x, y any
			if i < len(al) {
				x = al[i]
			}
			if i < len(bl) {
				y = bl[i]
			}
			walkDiff(path+"["+strconv.Itoa(i)+"]", x, y, out)
		}
		return
	}
	ja, jb := compact(a), compact(b)
	if ja != jb {
		*out = append(*out, FieldDiff{Path: path, Old: ja, New: jb})
	}
}

// byName indexes a list of objects by their distinct "name" strings; nil
// when an element has none or two share one.
func byName(l []any) map[string]any {
	out := make(map[string]any, len(l))
	for _, e := range l {
		m, ok := e.(map[string]any)
		if !ok {
			return nil
		}
		n, ok := m["name"].(string)
		if _, dup := out[n]; !ok || n == "" || dup {
			return nil
		}
		out[n] = m
	}
	return out
}

// childPath appends key k: ".k" for a plain identifier, "[k]" otherwise.
func childPath(path, k string) string {
	for _, r := range k {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return path + "[" + k + "]"
		}
	}
	return path + "." + k
}

// compact is v's compact JSON, "" for nil (absent).
func compact(v any) string {
	if v == nil {
		return ""
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}
