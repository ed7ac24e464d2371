package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	sigsjson "sigs.k8s.io/json"

	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot/internal/parallel"
)

// pathError is an error in one item of a list.
type pathError struct {
	path string
	err  error
}

func (e *pathError) Error() string { return e.path + ": " + e.err.Error() }

// itemError places err, an error decoding item i of a List, under
// items[i]: a pathError's path goes below it, any other error gets it.
func itemError(i int, err error) error {
	var pe *pathError
	if errors.As(err, &pe) {
		pe.path = fmt.Sprintf("items[%d].%s", i, pe.path)
		return pe
	}
	return &pathError{path: fmt.Sprintf("items[%d]", i), err: err}
}

// typeMeta is the part of a document that says what it is.
type typeMeta struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Items      []rawRef `json:"items"`
}

// nameOf returns "namespace/name" (or the name) of a skipped object, ""
// when it has none that decodes.
func nameOf(js []byte) string {
	var m struct {
		Metadata struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
	if unmarshal(js, &m) != nil || m.Metadata.Namespace == "" {
		return m.Metadata.Name
	}
	return m.Metadata.Namespace + "/" + m.Metadata.Name
}

// unmarshal decodes the JSON js into v as the API server does
// (sigs.k8s.io/json, as apimachinery's JSON serializer): keys match field
// names exactly, so "Kind" or "METADATA" is an unknown field, ignored as
// every unknown field of a capture is (a newer cluster's), never read as
// kind or metadata the way encoding/json, which folds case, would.
func unmarshal(js []byte, v any) error {
	return sigsjson.UnmarshalCaseSensitivePreserveInts(js, v)
}

// rawRef is a JSON value kept as a slice of the input, not a copy.
type rawRef []byte

// UnmarshalJSON keeps data: the decoder hands in a slice of its input,
// which outlives the decoding.
func (r *rawRef) UnmarshalJSON(data []byte) error {
	*r = data
	return nil
}

// object is one decoded object of a kept kind.
type object struct {
	ds   *appsv1.DaemonSet
	node *corev1.Node
	pod  *corev1.Pod
	rev  *appsv1.ControllerRevision
	// skipped is "apiVersion kind" of an object of another kind or
	// version (otherVersion), name its "namespace/name".
	skipped, name string
	otherVersion  bool
	// reescaped is set when rev's data was re-escaped (see goEscape).
	reescaped bool
}

// decodeDoc decodes one YAML or JSON document into its objects. A JSON
// object is read as it is (YAML would read it too, far slower).
func decodeDoc(data []byte, isJSON bool) ([]object, error) {
	js := bytes.TrimSpace(data)
	if !isJSON && (len(js) == 0 || js[0] != '{' || !json.Valid(js)) {
		if objs, ok, err := decodeKubectlList(data); ok {
			return objs, err
		}
		var err error
		if js, err = yamlToJSON(data); err != nil {
			return nil, fmt.Errorf("invalid YAML: %w", err)
		}
	}
	js = bytes.TrimSpace(js)
	if len(js) == 0 || string(js) == "null" {
		return nil, nil
	}
	if js[0] == '[' {
		// A YAML sequence of objects: read as the items of a List.
		return decodeObject([]byte(`{"apiVersion":"v1","kind":"List","items":`+string(js)+`}`), "", "")
	}
	return decodeObject(js, "", "")
}

// decodeObject decodes one object; defVersion and defKind are the list's,
// for typed-list items that omit them.
func decodeObject(js []byte, defVersion, defKind string) ([]object, error) {
	if len(js) == 0 || js[0] != '{' {
		return nil, fmt.Errorf("%w: the document is not a mapping", ErrNotKubernetes)
	}
	var tm typeMeta
	if err := unmarshal(js, &tm); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotKubernetes, err)
	}
	if tm.APIVersion == "" {
		tm.APIVersion = defVersion
	}
	if tm.Kind == "" {
		tm.Kind = defKind
	}
	if tm.Kind == "" && len(tm.Items) > 0 {
		return nil, errTruncated
	}
	if tm.Kind == "" || tm.APIVersion == "" {
		return nil, fmt.Errorf("%w: apiVersion and kind are required", ErrNotKubernetes)
	}
	if tm.APIVersion == "v1" && strings.HasSuffix(tm.Kind, "List") || tm.Items != nil && strings.HasSuffix(tm.Kind, "List") {
		itemKind := strings.TrimSuffix(tm.Kind, "List")
		if tm.Kind == "List" {
			itemKind = ""
		}
		type result struct {
			objs []object
			err  error
		}
		results := make([]result, len(tm.Items))
		parallel.ForEach(len(tm.Items), func(i int) {
			r := &results[i]
			it := bytes.TrimSpace(tm.Items[i])
			if string(it) == "null" {
				r.err = &pathError{path: fmt.Sprintf("items[%d]", i), err: fmt.Errorf("%w: null item", ErrNotKubernetes)}
				return
			}
			version := ""
			if itemKind != "" {
				version = tm.APIVersion
			}
			got, err := decodeObject(it, version, itemKind)
			if err != nil {
				r.err = itemError(i, err)
				return
			}
			r.objs = got
		})
		var out []object
		for _, r := range results {
			if r.err != nil {
				return nil, r.err
			}
			out = append(out, r.objs...)
		}
		return out, nil
	}
	o, err := decodeKind(js, tm)
	if err != nil {
		return nil, err
	}
	return []object{o}, nil
}

// decodeKind decodes one object of a kept kind, or notes a skipped one.
// It drops managedFields[*].fieldsV1, which no plan reads.
func decodeKind(js []byte, tm typeMeta) (object, error) {
	apiVersion, kind := tm.APIVersion, tm.Kind
	var o object
	var meta *metaRef
	var err error
	switch {
	case apiVersion == "apps/v1" && kind == "DaemonSet":
		o.ds = &appsv1.DaemonSet{}
		err = unmarshal(js, o.ds)
		o.ds.APIVersion, o.ds.Kind = apiVersion, kind
		meta = &metaRef{&o.ds.Name, &o.ds.Namespace}
	case apiVersion == "v1" && kind == "Node":
		o.node = &corev1.Node{}
		err = unmarshal(js, o.node)
		o.node.APIVersion, o.node.Kind = apiVersion, kind
		meta = &metaRef{name: &o.node.Name}
	case apiVersion == "v1" && kind == "Pod":
		o.pod = &corev1.Pod{}
		err = unmarshal(js, o.pod)
		o.pod.APIVersion, o.pod.Kind = apiVersion, kind
		meta = &metaRef{&o.pod.Name, &o.pod.Namespace}
	case apiVersion == "apps/v1" && kind == "ControllerRevision":
		o.rev = &appsv1.ControllerRevision{}
		err = unmarshal(js, o.rev)
		o.rev.APIVersion, o.rev.Kind = apiVersion, kind
		meta = &metaRef{&o.rev.Name, &o.rev.Namespace}
		if err == nil && len(o.rev.Data.Raw) > 0 {
			var b bytes.Buffer
			if err = json.Compact(&b, o.rev.Data.Raw); err == nil {
				o.rev.Data.Raw, o.reescaped = goEscape(b.Bytes())
			}
		}
	default:
		o = object{skipped: apiVersion + " " + kind, name: nameOf(js)}
		switch kind {
		case "DaemonSet", "ControllerRevision", "Node", "Pod":
			o.otherVersion = true
		}
		return o, nil
	}
	if err != nil {
		return object{}, fmt.Errorf("%s %s: %w", apiVersion, kind, err)
	}
	if *meta.name == "" {
		return object{}, fmt.Errorf("%s %s: metadata.name is required", apiVersion, kind)
	}
	if meta.namespace != nil && *meta.namespace == "" {
		*meta.namespace = "default"
	}
	if meta.namespace == nil && o.node.Namespace != "" {
		return object{}, fmt.Errorf("Node %q: metadata.namespace must be empty, not %q", o.node.Name, o.node.Namespace)
	}
	mf := o.managedFields()
	for i := range mf {
		mf[i].FieldsV1 = nil
	}
	return o, nil
}

// metaRef points at an object's name and namespace (nil namespace: cluster
// scoped).
type metaRef struct {
	name, namespace *string
}

func (o object) managedFields() []metav1.ManagedFieldsEntry {
	switch {
	case o.ds != nil:
		return o.ds.ManagedFields
	case o.node != nil:
		return o.node.ManagedFields
	case o.pod != nil:
		return o.pod.ManagedFields
	case o.rev != nil:
		return o.rev.ManagedFields
	}
	return nil
}

// put adds o to s, replacing an object of the same kind, namespace and
// name, keeping each kind sorted.
func (s *Snapshot) put(o object) {
	switch {
	case o.ds != nil:
		s.DaemonSets = insert(s, s.DaemonSets, o.ds, "apps/v1 DaemonSet", func(d *appsv1.DaemonSet) key { return key{d.Namespace, d.Name} })
	case o.node != nil:
		s.Nodes = insert(s, s.Nodes, o.node, "v1 Node", func(n *corev1.Node) key { return key{"", n.Name} })
	case o.pod != nil:
		s.Pods = insert(s, s.Pods, o.pod, "v1 Pod", func(p *corev1.Pod) key { return key{p.Namespace, p.Name} })
	case o.rev != nil:
		s.Revisions = insert(s, s.Revisions, o.rev, "apps/v1 ControllerRevision", func(r *appsv1.ControllerRevision) key { return key{r.Namespace, r.Name} })
		if o.reescaped {
			s.addNote(NoteRevisionReescaped, "apps/v1 ControllerRevision", o.rev.Namespace+"/"+o.rev.Name)
		}
	case o.otherVersion:
		s.addNote(NoteOtherVersion, o.skipped, o.name)
	default:
		s.addNote(NoteOtherKind, o.skipped, o.name)
	}
}

// insert puts v into list, sorted by k, replacing (and noting) an element
// with the same key. Appending in order, as a List from the API server
// comes, costs O(1).
func insert[T any](s *Snapshot, list []T, v T, what string, k func(T) key) []T {
	kv := k(v)
	if n := len(list); n == 0 || compareKey(k(list[n-1]), kv) < 0 {
		return append(list, v)
	}
	i, found := slices.BinarySearchFunc(list, kv, func(e T, want key) int { return compareKey(k(e), want) })
	if found {
		list[i] = v
		name := kv.name
		if kv.ns != "" {
			name = kv.ns + "/" + name
		}
		s.addNote(NoteReplaced, what, name)
		return list
	}
	return slices.Insert(list, i, v)
}
