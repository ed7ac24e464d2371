package snapshot_test

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot"
	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot/snapshottest"
)

// TestDecodeFromReadsAsDecode checks that DecodeFrom, which reads kubectl
// Lists a few megabytes at a time and other files whole, gives what
// Decode gives: the same snapshot, or the same error.
func TestDecodeFromReadsAsDecode(t *testing.T) {
	c := snapshottest.Generate(rand.New(rand.NewPCG(7, 8)), 30)
	tests := []struct {
		name string
		data []byte
	}{
		{"a kubectl List in YAML", c.YAML()},
		{"a kubectl List in JSON", c.JSON()},
		{"the same without managedFields", snapshottest.Generate(rand.New(rand.NewPCG(7, 8)), 3).DropManagedFields().YAML()},
		{"documents of other shapes", []byte("apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\n- apiVersion: v1\n  kind: Node\n  metadata: {name: b}\n")},
		{"a List with an error in an item", []byte("apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: 3\nkind: List\n")},
		{"a JSON List with a syntax error", []byte(`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"a"}},}]}`)},
		{"a List cut before its kind", []byte("apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: a\n")},
		{"nothing", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, wantErr := snapshot.Decode("f", tt.data)
			got, err := snapshot.DecodeFrom("f", bytes.NewReader(tt.data), int64(len(tt.data)))
			if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
				t.Fatalf("DecodeFrom() error = %v, Decode() error = %v", err, wantErr)
			}
			if !reflect.DeepEqual(want, got) {
				t.Errorf("DecodeFrom() differs from Decode()")
			}
		})
	}
}

// failingReader fails after n bytes.
type failingReader struct {
	data []byte
	n    int64
}

var errDisk = errors.New("disk on fire")

func (r failingReader) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > r.n {
		n := copy(p, r.data[off:max(off, r.n)])
		return n, errDisk
	}
	return copy(p, r.data[off:]), nil
}

// TestAddFromReadError checks that a read error comes back naming the
// file, and leaves the snapshot as it was.
func TestAddFromReadError(t *testing.T) {
	data := snapshottest.Generate(rand.New(rand.NewPCG(7, 8)), 30).JSON() // more than a slab
	for _, at := range []int64{0, 100, int64(len(data)) - 10} {
		s := &snapshot.Snapshot{}
		err := s.AddFrom("c.json", failingReader{data, at}, int64(len(data)))
		if !errors.Is(err, errDisk) || err.Error() != "reading c.json: disk on fire" {
			t.Errorf("AddFrom() failing at %d: error = %v, want reading c.json: %v", at, err, errDisk)
		}
		if !reflect.DeepEqual(s, &snapshot.Snapshot{}) {
			t.Errorf("AddFrom() failing at %d changed the snapshot", at)
		}
	}
	// A file shorter than its size.
	s := &snapshot.Snapshot{}
	if err := s.AddFrom("c.json", bytes.NewReader(data[:100]), int64(len(data))); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("AddFrom() of a short file: error = %v, want %v", err, io.ErrUnexpectedEOF)
	}
}

// TestAddFromBadReader checks that a nil reader or a negative size is an
// error naming the file, not a panic, and leaves the snapshot as it was.
func TestAddFromBadReader(t *testing.T) {
	tests := []struct {
		name    string
		r       io.ReaderAt
		size    int64
		wantErr string
	}{
		{"nil reader", nil, 0, "reading c.yaml: no reader"},
		{"nil reader with a size", nil, 10, "reading c.yaml: no reader"},
		{"negative size", bytes.NewReader([]byte("a: b\n")), -1, "reading c.yaml: negative size -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &snapshot.Snapshot{}
			err := s.AddFrom("c.yaml", tt.r, tt.size)
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("AddFrom() error = %v, want %s", err, tt.wantErr)
			}
			if !reflect.DeepEqual(s, &snapshot.Snapshot{}) {
				t.Errorf("AddFrom() changed the snapshot")
			}
		})
	}
}
