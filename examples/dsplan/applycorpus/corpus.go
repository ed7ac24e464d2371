package applycorpus

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"
)

//go:embed testdata/bases/*.yaml testdata/mutations.yaml
var files embed.FS

// The namespaces of the two modes: a case applied as a create goes to
// CreateNamespace, where no DaemonSet of its name exists; one applied
// over the stored base goes to OverNamespace, which holds every base.
const (
	CreateNamespace = "apply-create"
	OverNamespace   = "apply-over"
)

// Mode says what a case's manifest is applied to.
type Mode string

const (
	// Create: no such DaemonSet exists; kubectl apply creates it.
	Create Mode = "create"
	// Over: the base, as kubectl apply created it, exists; kubectl apply
	// patches it.
	Over Mode = "over"
)

// Case is one manifest of the corpus.
type Case struct {
	// Name is "BASE/MUTATION/MODE", unique.
	Name string
	// Base and Mutation name the base manifest and the table's row; Class
	// the row's class.
	Base, Mutation, Class string
	Mode                  Mode
	// Namespace and DaemonSet name the object.
	Namespace, DaemonSet string
	// Manifest is the mutated manifest's JSON, as kubectl apply reads it.
	Manifest []byte
}

// Base is a base manifest, in the namespace of a mode.
type Base struct {
	Name     string
	Manifest []byte
}

// mutation is a row of the table.
type mutation struct {
	Name  string `json:"name"`
	Class string `json:"class"`
	Ops   []op   `json:"ops"`
}

// op is one change; exactly one of Set, Delete, Dup and Merge is set.
type op struct {
	Set    string          `json:"set"`
	Delete string          `json:"delete"`
	Dup    string          `json:"dup"`
	Merge  string          `json:"merge"`
	Value  json.RawMessage `json:"value"`
}

// Bases returns the base manifests, by name, in namespace ns.
func Bases(ns string) ([]Base, error) {
	entries, err := files.ReadDir("testdata/bases")
	if err != nil {
		return nil, err
	}
	var out []Base
	for _, e := range entries {
		data, err := files.ReadFile("testdata/bases/" + e.Name())
		if err != nil {
			return nil, err
		}
		obj, err := decode(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
		obj["metadata"].(map[string]any)["namespace"] = ns
		js, err := json.Marshal(obj)
		if err != nil {
			return nil, err
		}
		out = append(out, Base{Name: strings.TrimSuffix(e.Name(), path.Ext(e.Name())), Manifest: js})
	}
	return out, nil
}

// Generate returns the corpus: each row of the table applied to each
// base, in each mode, ordered by base, row and mode. A row whose path a
// base lacks is left out for it.
func Generate() ([]Case, error) {
	data, err := files.ReadFile("testdata/mutations.yaml")
	if err != nil {
		return nil, err
	}
	var rows []mutation
	if err := yaml.UnmarshalStrict(data, &rows); err != nil {
		return nil, fmt.Errorf("mutations.yaml: %w", err)
	}
	var out []Case
	for _, mode := range []Mode{Create, Over} {
		ns := CreateNamespace
		if mode == Over {
			ns = OverNamespace
		}
		bases, err := Bases(ns)
		if err != nil {
			return nil, err
		}
		for _, b := range bases {
			for _, r := range rows {
				obj, err := decode(b.Manifest)
				if err != nil {
					return nil, err
				}
				ok, err := r.apply(obj)
				if err != nil {
					return nil, fmt.Errorf("mutation %s on %s: %w", r.Name, b.Name, err)
				}
				if !ok {
					continue
				}
				js, err := json.Marshal(obj)
				if err != nil {
					return nil, err
				}
				meta := obj["metadata"].(map[string]any)
				out = append(out, Case{
					Name: b.Name + "/" + r.Name + "/" + string(mode), Base: b.Name, Mutation: r.Name, Class: r.Class, Mode: mode,
					Namespace: ns, DaemonSet: fmt.Sprint(meta["name"]), Manifest: js,
				})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Case) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// decode reads YAML or JSON into a map, numbers kept as written.
func decode(data []byte) (map[string]any, error) {
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(js))
	d.UseNumber()
	var obj map[string]any
	if err := d.Decode(&obj); err != nil {
		return nil, err
	}
	return obj, nil
}

// apply runs the row's ops on obj; false when a path is missing.
func (m mutation) apply(obj map[string]any) (bool, error) {
	for _, o := range m.Ops {
		var value any
		if len(o.Value) > 0 {
			d := json.NewDecoder(bytes.NewReader(o.Value))
			d.UseNumber()
			if err := d.Decode(&value); err != nil {
				return false, err
			}
		}
		var ok bool
		var err error
		switch {
		case o.Set != "":
			ok, err = edit(obj, o.Set, true, func(parent any, key string, idx int) bool { return put(parent, key, idx, value) })
		case o.Delete != "":
			ok, err = edit(obj, o.Delete, false, func(parent any, key string, idx int) bool {
				pm, isMap := parent.(map[string]any)
				if !isMap {
					return false
				}
				if _, has := pm[key]; !has {
					return false
				}
				delete(pm, key)
				return true
			})
		case o.Dup != "":
			ok, err = dup(obj, o.Dup)
		case o.Merge != "":
			ok, err = edit(obj, o.Merge, true, func(parent any, key string, idx int) bool {
				pm, isMap := parent.(map[string]any)
				if !isMap {
					return false
				}
				target, _ := pm[key].(map[string]any)
				if target == nil {
					target = map[string]any{}
					pm[key] = target
				}
				add, isAddMap := value.(map[string]any)
				if !isAddMap {
					return false
				}
				for k, v := range add {
					target[k] = v
				}
				return true
			})
		default:
			return false, fmt.Errorf("an op with nothing to do")
		}
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

var (
	step  = regexp.MustCompile(`^([^\[\]]+)((?:\[\d+\])*)$`)
	index = regexp.MustCompile(`\d+`)
)

// segment is one step of a path: a key, then list indexes.
type segment struct {
	key     string
	indexes []int
}

func parsePath(p string) ([]segment, error) {
	var out []segment
	for _, part := range strings.Split(p, ".") {
		m := step.FindStringSubmatch(part)
		if m == nil {
			return nil, fmt.Errorf("path %q: bad step %q", p, part)
		}
		s := segment{key: m[1]}
		for _, ix := range index.FindAllString(m[2], -1) {
			n, _ := strconv.Atoi(ix)
			s.indexes = append(s.indexes, n)
		}
		out = append(out, s)
	}
	return out, nil
}

// edit walks to the parent of the last step of p, making maps on the way
// when create, and calls f with the parent and the last key (idx -1) or
// the list and the index.
func edit(obj map[string]any, p string, create bool, f func(parent any, key string, idx int) bool) (bool, error) {
	segs, err := parsePath(p)
	if err != nil {
		return false, err
	}
	var cur any = obj
	for i, s := range segs {
		last := i == len(segs)-1
		m, ok := cur.(map[string]any)
		if !ok {
			return false, nil
		}
		if last && len(s.indexes) == 0 {
			return f(m, s.key, -1), nil
		}
		next, has := m[s.key]
		if !has || next == nil {
			if !create || len(s.indexes) > 0 {
				return false, nil
			}
			next = map[string]any{}
			m[s.key] = next
		}
		for j, ix := range s.indexes {
			list, ok := next.([]any)
			if !ok || ix >= len(list) {
				return false, nil
			}
			if last && j == len(s.indexes)-1 {
				return f(list, "", ix), nil
			}
			next = list[ix]
		}
		cur = next
	}
	return false, nil
}

// put sets parent[key] or parent[idx] to v.
func put(parent any, key string, idx int, v any) bool {
	switch p := parent.(type) {
	case map[string]any:
		p[key] = v
		return true
	case []any:
		p[idx] = v
		return true
	}
	return false
}

// dup appends to the list at p's last step a copy of the element p names.
func dup(obj map[string]any, p string) (bool, error) {
	i := strings.LastIndex(p, "[")
	if i < 0 {
		return false, fmt.Errorf("dup %q: not a list element", p)
	}
	listPath := p[:i]
	var elem any
	ok, err := edit(obj, p, false, func(parent any, _ string, idx int) bool {
		list, isList := parent.([]any)
		if !isList {
			return false
		}
		elem = list[idx]
		return true
	})
	if err != nil || !ok {
		return false, err
	}
	js, err := json.Marshal(elem)
	if err != nil {
		return false, err
	}
	var cp any
	if err := json.Unmarshal(js, &cp); err != nil {
		return false, err
	}
	return edit(obj, listPath, false, func(parent any, key string, _ int) bool {
		pm, isMap := parent.(map[string]any)
		if !isMap {
			return false
		}
		list, isList := pm[key].([]any)
		if !isList {
			return false
		}
		pm[key] = append(list, cp)
		return true
	})
}
