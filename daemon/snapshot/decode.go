package snapshot

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DecodeError is an error in one document of one file: File and Line
// (1-based: the line a YAML syntax error names, else the document's
// first line) say where, Path which object of a
// List ("items[3]") when the document is one.
type DecodeError struct {
	File string
	Line int
	Path string
	Err  error
}

// Error reads "file:line: items[3]: cause".
func (e *DecodeError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d: ", e.File, e.Line)
	if e.Path != "" {
		b.WriteString(e.Path + ": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the cause.
func (e *DecodeError) Unwrap() error { return e.Err }

// ErrNotKubernetes is wrapped by the errors of documents that are not
// Kubernetes objects: not a mapping, or without apiVersion and kind.
var ErrNotKubernetes = errors.New("not a Kubernetes object")

// ErrTruncated is wrapped by the error of a document that has items but
// no kind: kubectl writes "kind: List" after the items, so such a file
// was most likely cut short.
var ErrTruncated = errors.New("the file looks truncated")

var errTruncated = fmt.Errorf(`%w: it has items but no kind (kubectl writes "kind: List" after the items)`, ErrTruncated)

// Decode returns the snapshot of one file's contents; see Snapshot.Add.
func Decode(file string, data []byte) (*Snapshot, error) {
	s := &Snapshot{}
	if err := s.Add(file, data); err != nil {
		return nil, err
	}
	return s, nil
}

// DecodeFrom returns the snapshot of a file of size bytes that r reads;
// see Snapshot.AddFrom.
func DecodeFrom(file string, r io.ReaderAt, size int64) (*Snapshot, error) {
	s := &Snapshot{}
	if err := s.AddFrom(file, r, size); err != nil {
		return nil, err
	}
	return s, nil
}

// AddFrom reads into s the objects of a file of size bytes that r reads,
// as Add reads the same bytes, without holding them whole: kubectl's Lists
// (YAML or JSON) are read a few megabytes at a time, item by item. r is
// read whole only for a file of another shape, or with an error in it
// (which reads as Add's). A read error of r is returned wrapped, naming
// file, as is a nil r or a negative size; any other error is a
// *DecodeError. On any error s is unchanged. AddFrom keeps no reference to
// what it read.
func (s *Snapshot) AddFrom(file string, r io.ReaderAt, size int64) error {
	switch {
	case r == nil:
		return fmt.Errorf("reading %s: no reader", file)
	case size < 0:
		return fmt.Errorf("reading %s: negative size %d", file, size)
	}
	objs, ok, err := fastDecode(&window{r: r, size: size})
	if err != nil {
		return fmt.Errorf("reading %s: %w", file, err)
	}
	if ok {
		s.putAll(objs)
		return nil
	}
	data := make([]byte, size)
	if n, err := r.ReadAt(data, 0); int64(n) < size {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("reading %s: %w", file, err)
	}
	return s.addWhole(file, data)
}

// Add reads the objects of one file into s. data is YAML or JSON: one
// object, several YAML documents separated by "---" lines, a stream of JSON
// values, sequences of objects, or lists (kind List, as kubectl prints them, or a typed list such
// as PodList, whose items may omit their kind). DaemonSets (apps/v1),
// Nodes, Pods (v1) and ControllerRevisions (apps/v1) are kept; other kinds
// are counted in Skipped; empty documents are ignored. A revision's data
// is compacted: kubectl -o json indents it, and the controller compares it
// byte for byte with its own compact encoding of the template. A namespaced object
// without a namespace is put in "default", as kubectl would create it.
//
// An error is a *DecodeError naming file and the line of the document at
// fault; s is then unchanged. Add keeps no reference to data.
func (s *Snapshot) Add(file string, data []byte) error {
	if objs, ok, _ := fastDecode(&window{buf: data}); ok {
		s.putAll(objs)
		return nil
	}
	return s.addWhole(file, data)
}

// addWhole is Add's general path: the documents of data, each read whole
// (but for kubectl Lists in YAML, read item by item).
func (s *Snapshot) addWhole(file string, data []byte) error {
	docs, err := split(data)
	if err != nil {
		return &DecodeError{File: file, Line: 1, Err: err}
	}
	var objs []object
	for _, d := range docs {
		got, err := decodeDoc(d.data, d.json)
		if err != nil {
			var pe *pathError
			if errors.As(err, &pe) {
				return &DecodeError{File: file, Line: d.line, Path: pe.path, Err: pe.err}
			}
			return &DecodeError{File: file, Line: d.line + yamlLine(err) - 1, Err: err}
		}
		objs = append(objs, got...)
	}
	s.putAll(objs)
	return nil
}

// putAll puts objs into s in order.
func (s *Snapshot) putAll(objs []object) {
	for _, o := range objs {
		s.put(o)
	}
}

// yamlLine returns the line a YAML parse error names within its document
// ("yaml: line 5: ..."), 1 when it names none.
func yamlLine(err error) int {
	msg := err.Error()
	i := strings.Index(msg, "yaml: line ")
	if i < 0 {
		return 1
	}
	n := 0
	for _, c := range msg[i+len("yaml: line "):] {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
		if n > 1<<30 {
			return 1
		}
	}
	return max(n, 1)
}

// doc is one document of a file and the line it starts on.
type doc struct {
	data []byte
	line int
	// json is set when data is known to be one valid JSON object.
	json bool
}

// split cuts data into documents: a JSON stream when it starts with '{' or
// '[', else YAML documents separated by lines that start with "---".
func split(data []byte) ([]doc, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
		return splitJSON(data)
	}
	if bytes.IndexByte(data, '\r') < 0 {
		return splitYAML(data), nil
	}
	var docs []doc
	var cur bytes.Buffer
	start, line := 1, 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), len(data)+1)
	for sc.Scan() {
		line++
		text := sc.Bytes()
		if bytes.HasPrefix(text, []byte("---")) && strings.TrimSpace(string(text[3:])) == "" {
			docs = append(docs, doc{data: bytes.Clone(cur.Bytes()), line: start})
			cur.Reset()
			start = line + 1
			continue
		}
		cur.Write(text)
		cur.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	docs = append(docs, doc{data: bytes.Clone(cur.Bytes()), line: start})
	return docs, nil
}

// splitYAML cuts data, which has no carriage return, into documents
// without copying them.
func splitYAML(data []byte) []doc {
	var docs []doc
	start, startLine, line := 0, 1, 0
	for i := 0; i < len(data); {
		line++
		e := bytes.IndexByte(data[i:], '\n')
		if e < 0 {
			e = len(data)
		} else {
			e += i
		}
		text := data[i:e]
		if bytes.HasPrefix(text, []byte("---")) && len(bytes.TrimSpace(text[3:])) == 0 {
			docs = append(docs, doc{data: data[start:i], line: startLine})
			start, startLine = min(e+1, len(data)), line+1
		}
		i = e + 1
	}
	return append(docs, doc{data: data[min(start, len(data)):], line: startLine})
}

// splitJSON cuts a stream of JSON values; a top-level array is a list of
// documents.
func splitJSON(data []byte) ([]doc, error) {
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' && t[len(t)-1] == '}' && json.Valid(t) {
		// One object, the usual case: read in place.
		line := 1 + bytes.Count(data[:bytes.IndexByte(data, '{')], []byte("\n"))
		return []doc{{data: t, line: line, json: true}}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var docs []doc
	for {
		off := dec.InputOffset()
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			return docs, nil
		}
		line := 1 + bytes.Count(data[:off], []byte("\n"))
		// The value starts after the whitespace the decoder skipped.
		if i := bytes.IndexAny(data[off:], "{[\"tfn0123456789-"); i > 0 {
			line += bytes.Count(data[off:off+int64(i)], []byte("\n"))
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: invalid JSON: %w", line, err)
		}
		if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '[' {
			var items []json.RawMessage
			if err := json.Unmarshal(raw, &items); err != nil {
				return nil, fmt.Errorf("line %d: invalid JSON: %w", line, err)
			}
			for _, it := range items {
				docs = append(docs, doc{data: it, line: line, json: len(it) > 0 && it[0] == '{'})
			}
			continue
		}
		docs = append(docs, doc{data: raw, line: line, json: len(raw) > 0 && raw[0] == '{'})
	}
}

// pathError is an error in one item of a list.
type pathError struct {
	path string
	err  error
}

func (e *pathError) Error() string { return e.path + ": " + e.err.Error() }

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
	if json.Unmarshal(js, &m) != nil || m.Metadata.Namespace == "" {
		return m.Metadata.Name
	}
	return m.Metadata.Namespace + "/" + m.Metadata.Name
}

// rawRef is a JSON value kept as a slice of the input, not a copy.
type rawRef []byte

// UnmarshalJSON keeps data: json.Unmarshal hands in a slice of its input,
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
	if err := json.Unmarshal(js, &tm); err != nil {
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
		forEachItem(len(tm.Items), func(i int) {
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
				var pe *pathError
				if errors.As(err, &pe) {
					pe.path = fmt.Sprintf("items[%d].%s", i, pe.path)
					r.err = pe
					return
				}
				r.err = &pathError{path: fmt.Sprintf("items[%d]", i), err: err}
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
		err = json.Unmarshal(js, o.ds)
		o.ds.APIVersion, o.ds.Kind = apiVersion, kind
		meta = &metaRef{&o.ds.Name, &o.ds.Namespace}
	case apiVersion == "v1" && kind == "Node":
		o.node = &corev1.Node{}
		err = json.Unmarshal(js, o.node)
		o.node.APIVersion, o.node.Kind = apiVersion, kind
		meta = &metaRef{name: &o.node.Name}
	case apiVersion == "v1" && kind == "Pod":
		o.pod = &corev1.Pod{}
		err = json.Unmarshal(js, o.pod)
		o.pod.APIVersion, o.pod.Kind = apiVersion, kind
		meta = &metaRef{&o.pod.Name, &o.pod.Namespace}
	case apiVersion == "apps/v1" && kind == "ControllerRevision":
		o.rev = &appsv1.ControllerRevision{}
		err = json.Unmarshal(js, o.rev)
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
