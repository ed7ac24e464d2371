package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// Scenario is one recorded sync: its inputs and what upstream did.
type Scenario struct {
	// Name identifies the scenario; LoadDir sorts by it.
	Name string
	// Tags are hints about what the scenario exercises; nothing judges them.
	Tags []string
	// Now is the controller clock of the sync.
	Now time.Time
	// DaemonSet is the DaemonSet as the API server stored it, not defaulted.
	DaemonSet *appsv1.DaemonSet
	// Nodes and Pods are the objects the controller saw, in file order. A
	// JSON null entry is kept as a nil pointer.
	Nodes []*corev1.Node
	Pods  []*corev1.Pod
	// Revisions are the ControllerRevisions of the namespace: nil when the
	// file has no "revisions" key (none exist yet), non-nil (possibly empty)
	// when it has one. Each revision's data is compacted with json.Compact,
	// since upstream compares it byte for byte with its own compact
	// serialization.
	Revisions []*appsv1.ControllerRevision
	// Expected is what upstream did.
	Expected Expected
}

// ErrUnknownKey is wrapped by the errors of Load and LoadDir when a scenario
// file has a key the format does not define.
var ErrUnknownKey = errors.New("unknown key")

// file is the top level of a scenario file. Raw messages keep absent and
// null apart, and defer the decoding of each part so that errors can name it.
type file struct {
	Name      string          `json:"name"`
	Tags      []string        `json:"tags"`
	Now       json.RawMessage `json:"now"`
	DaemonSet json.RawMessage `json:"daemonSet"`
	Nodes     json.RawMessage `json:"nodes"`
	Pods      json.RawMessage `json:"pods"`
	Revisions json.RawMessage `json:"revisions"`
	Expected  json.RawMessage `json:"expected"`
}

// Load reads and decodes the scenario file at path.
//
// Every part is decoded strictly: a key the format or the Kubernetes API
// types do not define is an error wrapping ErrUnknownKey, and so is trailing
// data after the object. The keys name, now, daemonSet, nodes, pods and
// expected are required ("nodes": [] and "pods": [] are fine), and expected
// must hold "hash" and "status" (see Expected). Errors name the file and the
// part: `scenario "testdata/x.json": daemonSet: ...`.
func Load(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scenario %q: %w", path, err)
	}
	s, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("scenario %q: %w", path, err)
	}
	return s, nil
}

// LoadDir loads every *.json file directly in dir (other files, such as a
// README, and subdirectories are skipped) and returns the scenarios sorted
// by name. It fails on the first file that does not load, when two files
// hold the same scenario name, and when dir holds no scenario at all.
func LoadDir(dir string) ([]*Scenario, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("scenario directory %q: %w", dir, err)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("scenario directory %q: no *.json file", dir)
	}
	out := make([]*Scenario, 0, len(paths))
	seen := make(map[string]string, len(paths))
	for _, p := range paths {
		s, err := Load(p)
		if err != nil {
			return nil, err
		}
		if prev, dup := seen[s.Name]; dup {
			return nil, fmt.Errorf("scenario %q: name %q is already used by %q", p, s.Name, prev)
		}
		seen[s.Name] = p
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *Scenario) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// Decode decodes one scenario from the contents of a scenario file, with the
// rules of Load. It does not retain data.
func Decode(data []byte) (*Scenario, error) {
	var f file
	if err := strict(data, &f); err != nil {
		return nil, err
	}
	if f.Name == "" {
		return nil, errors.New("name: required and must not be empty")
	}
	for _, req := range []struct {
		key string
		raw json.RawMessage
	}{{"now", f.Now}, {"daemonSet", f.DaemonSet}, {"nodes", f.Nodes}, {"pods", f.Pods}, {"expected", f.Expected}} {
		if isAbsentOrNull(req.raw) {
			return nil, fmt.Errorf("%s: required", req.key)
		}
	}
	s := &Scenario{Name: f.Name, Tags: f.Tags}
	if err := json.Unmarshal(f.Now, &s.Now); err != nil {
		return nil, fmt.Errorf("now: %w", err)
	}
	if err := strict(f.DaemonSet, &s.DaemonSet); err != nil {
		return nil, fmt.Errorf("daemonSet: %w", err)
	}
	if err := strict(f.Nodes, &s.Nodes); err != nil {
		return nil, fmt.Errorf("nodes: %w", err)
	}
	if err := strict(f.Pods, &s.Pods); err != nil {
		return nil, fmt.Errorf("pods: %w", err)
	}
	if len(f.Revisions) > 0 {
		// Present, even as null or []: revisions exist as a (possibly
		// empty) list.
		s.Revisions = []*appsv1.ControllerRevision{}
		if err := strict(f.Revisions, &s.Revisions); err != nil {
			return nil, fmt.Errorf("revisions: %w", err)
		}
		if s.Revisions == nil {
			s.Revisions = []*appsv1.ControllerRevision{}
		}
		for i, r := range s.Revisions {
			if r == nil || len(r.Data.Raw) == 0 {
				continue
			}
			var buf bytes.Buffer
			if err := json.Compact(&buf, r.Data.Raw); err != nil {
				return nil, fmt.Errorf("revisions[%d].data: %w", i, err)
			}
			r.Data.Raw = buf.Bytes()
		}
	}
	exp, err := decodeExpected(f.Expected)
	if err != nil {
		return nil, fmt.Errorf("expected: %w", err)
	}
	s.Expected = exp
	return s, nil
}

// strict decodes data into v, refusing unknown keys and trailing data.
func strict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if strings.HasPrefix(err.Error(), "json: unknown field ") {
			return fmt.Errorf("%w: %w", ErrUnknownKey, err)
		}
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// isAbsentOrNull reports whether a raw message was absent or JSON null.
func isAbsentOrNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(bytes.TrimSpace(raw)) == "null"
}
