package progressivetest

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// Outcome is what becomes of a DaemonSet's rollout annotations.
type Outcome string

// The outcomes a row expects, and a surface gives.
const (
	// Refused: the annotations do not parse; the surface names the field
	// (metadata.annotations[KEY]) and no old pod is replaced.
	Refused Outcome = "refused"
	// Held: they parse, but a value names nothing of the cluster; the
	// rollout holds (no old pod is deleted) and the hold names the key and
	// the value.
	Held Outcome = "held"
	// Accepted: they are planned as written.
	Accepted Outcome = "accepted"
)

// HashPlaceholder stands, in a row's annotations, for the revision hash of
// the rollout under way (AnnotationsFor replaces it).
const HashPlaceholder = "HASH"

// Row is one bad input of the corpus.
type Row struct {
	// Key is the key the row is about, without the prefix; Class is one
	// of key-typo, ref-typo, out-of-range, degenerate, empty.
	Key   string `json:"key"`
	Class string `json:"class"`
	// Annotations are the DaemonSet's rollout annotations, keys without
	// the prefix (see AnnotationsFor).
	Annotations map[string]string `json:"annotations"`
	// Want is the outcome expected; Names the strings its text contains.
	Want  Outcome  `json:"want"`
	Names []string `json:"names"`
	// Note says why an accepted row is no silent fail-open, or what a
	// ref-typo row of a key that names nothing tries.
	Note string `json:"note,omitempty"`
}

// Name names the row in test names and messages: "pause-after/ref-typo".
func (r Row) Name() string { return r.Key + "/" + r.Class }

// AnnotationsFor returns r's annotations as a DaemonSet carries them: each
// key under progressive.AnnotationPrefix, HashPlaceholder in a value
// replaced by hash. The map is new.
func (r Row) AnnotationsFor(hash string) map[string]string {
	out := make(map[string]string, len(r.Annotations))
	for k, v := range r.Annotations {
		out[progressive.AnnotationPrefix+k] = strings.ReplaceAll(v, HashPlaceholder, hash)
	}
	return out
}

// NeedsHash reports whether r's annotations name the revision under way
// (HashPlaceholder), which a live cluster knows only once the template
// changed.
func (r Row) NeedsHash() bool {
	for _, v := range r.Annotations {
		if strings.Contains(v, HashPlaceholder) {
			return true
		}
	}
	return false
}

// Check says how a surface's outcome got, with text, differs from what r
// expects: "" when got is r.Want and text contains each of r.Names.
func (r Row) Check(got Outcome, text string) string {
	if got != r.Want {
		return fmt.Sprintf("%s: %s, want %s: %s", r.Name(), got, r.Want, text)
	}
	for _, n := range r.Names {
		if !strings.Contains(text, n) {
			return fmt.Sprintf("%s: %s, but the text does not name %q: %s", r.Name(), got, n, text)
		}
	}
	return ""
}

// corpusFile is the corpus file's shape.
type corpusFile struct {
	About []string `json:"about"`
	Rows  []Row    `json:"rows"`
}

// Corpus parses the corpus file's contents: its rows in file order. A row
// with an unknown class or outcome, no names, or a key that is not a
// rollout key is an error, as is a file without rows.
func Corpus(data []byte) ([]Row, error) {
	var f corpusFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("bad-input corpus: %w", err)
	}
	if len(f.Rows) == 0 {
		return nil, fmt.Errorf("bad-input corpus: no rows")
	}
	keys := map[string]bool{}
	for _, k := range progressive.Keys() {
		keys[strings.TrimPrefix(k.Name, progressive.AnnotationPrefix)] = true
	}
	classes := map[string]bool{"key-typo": true, "ref-typo": true, "out-of-range": true, "degenerate": true, "empty": true}
	for i, r := range f.Rows {
		switch {
		case !keys[r.Key]:
			return nil, fmt.Errorf("bad-input corpus: row %d: %q is not a rollout key", i+1, r.Key)
		case !classes[r.Class]:
			return nil, fmt.Errorf("bad-input corpus: row %d (%s): unknown class", i+1, r.Name())
		case r.Want != Refused && r.Want != Held && r.Want != Accepted:
			return nil, fmt.Errorf("bad-input corpus: row %d (%s): unknown outcome %q", i+1, r.Name(), r.Want)
		case len(r.Names) == 0 && r.Want != Accepted:
			return nil, fmt.Errorf("bad-input corpus: row %d (%s): names nothing its outcome must say", i+1, r.Name())
		}
		f.Rows[i].Annotations = maps.Clone(r.Annotations)
	}
	return f.Rows, nil
}

// Tally counts the rows a layer tried and what became of them.
type Tally struct {
	// Tried are the rows run; RefusedOrHeld those refused or held as
	// expected; Accepted those accepted as expected; Silent those
	// accepted where the row expects a refusal or a hold (a silent
	// fail-open); Wrong the other mismatches (a refusal where a hold was
	// expected, a text that does not name the field).
	Tried, RefusedOrHeld, Accepted, Silent, Wrong int
}

// Add counts one row's outcome on a surface and returns r.Check's answer.
func (t *Tally) Add(r Row, got Outcome, text string) string {
	t.Tried++
	msg := r.Check(got, text)
	switch {
	case msg == "" && got == Accepted:
		t.Accepted++
	case msg == "":
		t.RefusedOrHeld++
	case got == Accepted:
		t.Silent++
	default:
		t.Wrong++
	}
	return msg
}

// Plus returns the sum of t and u.
func (t Tally) Plus(u Tally) Tally {
	return Tally{Tried: t.Tried + u.Tried, RefusedOrHeld: t.RefusedOrHeld + u.RefusedOrHeld,
		Accepted: t.Accepted + u.Accepted, Silent: t.Silent + u.Silent, Wrong: t.Wrong + u.Wrong}
}

// String is the tally's line: "bad-inputs: N tried, N refused or held, 0
// silently accepted", with the rows accepted as the corpus expects and the
// other mismatches when there are any.
func (t Tally) String() string {
	s := fmt.Sprintf("bad-inputs: %d tried, %d refused or held", t.Tried, t.RefusedOrHeld)
	if t.Accepted > 0 {
		s += fmt.Sprintf(", %d accepted as the corpus expects", t.Accepted)
	}
	if t.Wrong > 0 {
		s += fmt.Sprintf(", %d otherwise wrong", t.Wrong)
	}
	return s + fmt.Sprintf(", %d silently accepted", t.Silent)
}
