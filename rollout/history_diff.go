package rollout

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// DiffKind says how a revision's data differs from a DaemonSet's patch.
type DiffKind string

// The kinds of RevisionDiff. Their text completes "the revision's data …".
const (
	// DiffNone: the data equals the patch byte for byte; the revision
	// matches.
	DiffNone DiffKind = ""
	// DiffValue: both hold Path, with different values (or types).
	DiffValue DiffKind = "holds another value"
	// DiffOnlyInRevision: the revision holds Path, the patch does not.
	DiffOnlyInRevision DiffKind = "holds a key the DaemonSet's patch lacks"
	// DiffOnlyInDaemonSet: the patch holds Path, the revision does not.
	DiffOnlyInDaemonSet DiffKind = "lacks a key of the DaemonSet's patch"
	// DiffEncoding: the same JSON value, encoded with other bytes
	// (whitespace, key order, number or string spelling). Path is "".
	DiffEncoding DiffKind = "holds the same value encoded differently"
	// DiffNotJSON: the revision's data is not a JSON value. Path is "".
	DiffNotJSON DiffKind = "is not valid JSON"
)

// RevisionDiff is the first difference between a ControllerRevision's data
// and the patch Patch(ds) computes for a DaemonSet. Revision matching
// (Match, ConstructHistory, upstream's controller) is byte-exact; this
// says which byte-level difference made a revision not match.
type RevisionDiff struct {
	// Kind says how they differ; DiffNone when the revision matches.
	Kind DiffKind
	// Path is the first differing JSON path in key order, such as
	// `spec.template.metadata.creationTimestamp` or
	// `spec.template.spec.containers[0].image`; a key that is not a plain
	// identifier is quoted in brackets (`["$patch"]`); "." when the data
	// is a JSON value of another type than the patch's object. "" for
	// DiffNone, DiffEncoding and DiffNotJSON.
	Path string
	// Revision and DaemonSet are the compact JSON values at Path in the
	// revision's data and in the patch; "" where the key is absent. For
	// DiffNotJSON, Revision is the data itself, at most 64 bytes of it.
	Revision, DaemonSet string
}

// String describes d in one line, values shortened to 64 bytes:
// `spec.template.metadata.creationTimestamp: the revision has null, the
// DaemonSet's patch has nothing`.
func (d RevisionDiff) String() string {
	switch d.Kind {
	case DiffNone:
		return "none: the revision matches"
	case DiffEncoding, DiffNotJSON:
		return "the revision's data " + string(d.Kind)
	}
	return fmt.Sprintf("%s: the revision has %s, the DaemonSet's patch has %s", d.Path, shortValue(d.Revision), shortValue(d.DaemonSet))
}

// shortValue is v cut to 64 bytes, or "nothing" when empty.
func shortValue(v string) string {
	const limit = 64
	switch {
	case v == "":
		return "nothing"
	case len(v) > limit:
		return v[:limit] + "…"
	}
	return v
}

// DiffRevision returns the first difference between rev's data and
// Patch(ds): the answer to "why does this revision not match my
// DaemonSet?". Keys are compared in sorted order, arrays element by element;
// numbers are compared as written. A revision that Match accepts gives
// DiffNone; one whose data decodes to the same value as the patch but
// differs in bytes gives DiffEncoding.
//
// The usual cause of a surprise is the upgrade hazard described on
// ConstructHistory: `"creationTimestamp":null` in the template metadata,
// which older controllers wrote into every revision.
//
// A nil ds returns ErrNilDaemonSet, a nil rev a *field.Error (Required at
// rev), and an error of Patch(ds) is returned as is. It modifies
// nothing. It costs one Patch and one decoding of each side.
func DiffRevision(ds *appsv1.DaemonSet, rev *appsv1.ControllerRevision) (RevisionDiff, error) {
	patch, err := Patch(ds)
	if err != nil {
		return RevisionDiff{}, err
	}
	if rev == nil {
		return RevisionDiff{}, field.Required(field.NewPath("rev"), "a ControllerRevision to compare")
	}
	return diffData(rev.Data.Raw, patch), nil
}

// diffData compares a revision's data with a patch.
func diffData(data, patch []byte) RevisionDiff {
	if bytes.Equal(data, patch) {
		return RevisionDiff{}
	}
	revValue, err := decodeJSON(data)
	if err != nil {
		return RevisionDiff{Kind: DiffNotJSON, Revision: string(data[:min(len(data), 64)])}
	}
	patchValue, err := decodeJSON(patch)
	if err != nil {
		// Unreachable: Patch always encodes valid JSON.
		return RevisionDiff{Kind: DiffNotJSON}
	}
	if d, found := firstDiff("", revValue, patchValue); found {
		if d.Path == "" {
			d.Path = "." // the whole document differs
		}
		return d
	}
	return RevisionDiff{Kind: DiffEncoding}
}

// decodeJSON decodes one JSON value, keeping numbers as written.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return v, nil
}

// firstDiff returns the first difference under path between a (the
// revision's) and b (the patch's).
func firstDiff(path string, a, b any) (RevisionDiff, bool) {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := slices.Sorted(maps.Keys(av))
		for k := range bv {
			if _, ok := av[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			child := joinKey(path, k)
			x, inA := av[k]
			y, inB := bv[k]
			switch {
			case !inB:
				return RevisionDiff{Kind: DiffOnlyInRevision, Path: child, Revision: compactJSON(x)}, true
			case !inA:
				return RevisionDiff{Kind: DiffOnlyInDaemonSet, Path: child, DaemonSet: compactJSON(y)}, true
			}
			if d, found := firstDiff(child, x, y); found {
				return d, true
			}
		}
		return RevisionDiff{}, false
	case []any:
		bv, ok := b.([]any)
		if !ok {
			break
		}
		for i := range max(len(av), len(bv)) {
			child := path + "[" + strconv.Itoa(i) + "]"
			switch {
			case i >= len(bv):
				return RevisionDiff{Kind: DiffOnlyInRevision, Path: child, Revision: compactJSON(av[i])}, true
			case i >= len(av):
				return RevisionDiff{Kind: DiffOnlyInDaemonSet, Path: child, DaemonSet: compactJSON(bv[i])}, true
			}
			if d, found := firstDiff(child, av[i], bv[i]); found {
				return d, true
			}
		}
		return RevisionDiff{}, false
	default:
		if a == b { // scalars: string, json.Number, bool, nil
			return RevisionDiff{}, false
		}
	}
	return RevisionDiff{Kind: DiffValue, Path: path, Revision: compactJSON(a), DaemonSet: compactJSON(b)}, true
}

// joinKey appends key k to path: `.k` for a plain identifier, `["k"]`
// otherwise.
func joinKey(path, k string) string {
	plain := k != ""
	for _, r := range k {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			plain = false
			break
		}
	}
	switch {
	case !plain:
		return path + "[" + strconv.Quote(k) + "]"
	case path == "":
		return k
	}
	return path + "." + k
}

// compactJSON encodes a decoded value compactly, without HTML escaping.
func compactJSON(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("%v", v) // unreachable: v came from a decoder
	}
	return strings.TrimSuffix(b.String(), "\n")
}
