package snapshot

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot/internal/fastread"
)

// DecodeError is an error in one document of one file: File and Line
// (1-based: the line a YAML or JSON syntax error names, the last line of
// a JSON file cut short, else the document's first line) say where, Path which object of a
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
	objs, ok, err := fastDecode(fastread.Input{R: r, Size: size})
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
	if objs, ok, _ := fastDecode(fastread.Input{Buf: data}); ok {
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
		line := 1
		var le *lineError
		if errors.As(err, &le) {
			line, err = le.line, le.err
		}
		return &DecodeError{File: file, Line: line, Err: err}
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
