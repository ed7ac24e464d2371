package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"sigs.k8s.io/yaml"

	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot/internal/yamljson"

	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot/internal/parallel"
)

// yamlToJSON converts one YAML document as sigs.k8s.io/yaml.YAMLToJSON
// does, by yamljson.ToJSON where it can (leaving out managedFields'
// fieldsV1 of the top-level object, which decodeKind drops anyway).
func yamlToJSON(data []byte) ([]byte, error) {
	if js, ok := yamljson.ToJSON(data, true); ok {
		return js, nil
	}
	return yaml.YAMLToJSON(data)
}

// errNotKubectlList makes decodeKubectlList hand a document back to the
// general path.
var errNotKubectlList = errors.New("not a kubectl List")

// decodeKubectlList decodes a document shaped as kubectl prints a List
// (top-level keys at column 0, "items:" followed by "- " entries at column
// 0, each entry's lines indented by two spaces) one item at a time, never
// holding the whole document as JSON. ok is false when the document has
// another shape, or when an item needs the whole document to be read as
// sigs.k8s.io/yaml reads it (an alias of an anchor in another item, ...):
// the caller then reads it whole, with the same result.
func decodeKubectlList(data []byte) (objs []object, ok bool, err error) {
	header, items, found := splitKubectlList(data)
	if !found {
		return nil, false, nil
	}
	version, itemKind, ok, err := listHeader(header)
	if !ok || err != nil {
		return nil, ok, err
	}
	type result struct {
		objs    []object
		err     error
		convert bool // the conversion failed
	}
	results := make([]result, len(items))
	parallel.ForEach(len(items), func(i int) {
		r := &results[i]
		js, err := yamlToJSON(items[i])
		items[i] = nil // done with it: let it go
		if err != nil {
			r.convert = true
			return
		}
		if t := bytes.TrimSpace(js); string(t) == "null" {
			r.err = &pathError{path: fmt.Sprintf("items[%d]", i), err: fmt.Errorf("%w: null item", ErrNotKubernetes)}
			return
		}
		got, err := decodeObject(js, version, itemKind)
		if err != nil {
			r.err = itemError(i, err)
			return
		}
		r.objs = got
	})
	for _, r := range results {
		switch {
		case r.convert:
			return nil, false, nil // the whole document says why
		case r.err != nil:
			return nil, true, r.err
		}
		objs = append(objs, r.objs...)
	}
	return objs, true, nil
}

// listHeader reads the header of a document of kubectl's List shape (its
// lines but the items): the apiVersion and kind its items take when they
// omit theirs (none for kind List). ok is false when the document is not
// such a List after all (the general path reads it whole); err says why
// the List is wrong.
func listHeader(header []byte) (version, itemKind string, ok bool, err error) {
	// The header must be plain top-level lines: no second "items:", no
	// stray sequence or comment at column 0.
	for _, line := range bytes.Split(header, []byte("\n")) {
		if len(line) > 0 && (line[0] == '-' || line[0] == '#' || line[0] == '\t' || bytes.HasPrefix(line, []byte("items:"))) {
			return "", "", false, nil
		}
	}
	hjs, err := yaml.YAMLToJSON(header)
	if err != nil {
		return "", "", false, nil
	}
	var tm typeMeta
	if unmarshal(hjs, &tm) != nil || tm.Items != nil {
		return "", "", false, nil
	}
	if tm.Kind == "" {
		return "", "", true, errTruncated
	}
	if tm.APIVersion == "" {
		return "", "", true, fmt.Errorf("%w: apiVersion and kind are required", ErrNotKubernetes)
	}
	if !(tm.APIVersion == "v1" && hasListSuffix(tm.Kind) || hasListSuffix(tm.Kind)) {
		return "", "", false, nil
	}
	if tm.Kind == "List" {
		return "", "", true, nil
	}
	return tm.APIVersion, tm.Kind[:len(tm.Kind)-len("List")], true, nil
}

func hasListSuffix(kind string) bool {
	return len(kind) >= len("List") && kind[len(kind)-len("List"):] == "List"
}

// splitKubectlList cuts a document of kubectl's List shape into the
// document without its items (header) and each item, unindented. found is
// false for any other shape; listHeader judges the header.
func splitKubectlList(data []byte) (header []byte, items [][]byte, found bool) {
	const key = "items:\n"
	var at int
	switch {
	case bytes.HasPrefix(data, []byte(key)):
		at = 0
	default:
		i := bytes.Index(data, []byte("\n"+key))
		if i < 0 {
			return nil, nil, false
		}
		at = i + 1
	}
	// The lines before "items:" and after the last item form the header;
	// each must start at column 0 with a key or be indented.
	i := at + len(key)
	var cur []byte
	for i < len(data) {
		e := bytes.IndexByte(data[i:], '\n')
		if e < 0 {
			return nil, nil, false // an item's last line has no line break
		}
		e += i
		line := data[i:e]
		switch {
		case bytes.HasPrefix(line, []byte("- ")):
			if cur != nil {
				items = append(items, cur)
			}
			cur = make([]byte, 0, 4096)
			cur = append(append(cur, line[2:]...), '\n')
		case cur != nil && bytes.HasPrefix(line, []byte("  ")):
			cur = append(append(cur, line[2:]...), '\n')
		case cur != nil && len(line) == 0:
			cur = append(cur, '\n')
		default:
			goto done
		}
		i = e + 1
	}
done:
	if cur == nil {
		return nil, nil, false
	}
	items = append(items, cur)
	header = append(append([]byte(nil), data[:at]...), data[i:]...)
	return header, items, true
}

// goEscape returns compact JSON js with every string escaped as
// encoding/json escapes it (<, >, & and U+2028, U+2029 as \u003c, ...),
// and whether that changed anything. A jq re-encoding writes them raw; the
// API server returns what Go wrote.
func goEscape(js []byte) ([]byte, bool) {
	var out []byte
	changed := false
	for i := 0; i < len(js); i++ {
		if js[i] != '"' {
			if out != nil {
				out = append(out, js[i])
			}
			continue
		}
		j := i + 1
		for j < len(js) && js[j] != '"' {
			if js[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(js) {
			return js, false // not valid JSON: left as it is
		}
		lit := js[i : j+1]
		var s string
		if json.Unmarshal(lit, &s) != nil {
			return js, false
		}
		goLit, _ := json.Marshal(s) // a string always encodes
		if !bytes.Equal(goLit, lit) && !changed {
			changed = true
			out = append([]byte(nil), js[:i]...)
		}
		if out != nil {
			out = append(out, goLit...)
		}
		i = j
	}
	if !changed {
		return js, false
	}
	return out, true
}
