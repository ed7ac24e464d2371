package applycorpus

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
)

// Outcome is an answer to one case: accepted, or rejected naming fields.
type Outcome struct {
	Accepted bool `json:"accepted"`
	// Fields are the fields the answer names (see Fields), sorted.
	Fields []string `json:"fields,omitempty"`
	// Message is the answer's text, for a person reading a disagreement.
	Message string `json:"message,omitempty"`
}

// Agrees reports whether o, the API server's answer, and p agree: both
// accepted, or both rejected naming the same fields. A patch that does not
// decode (a wrong type or a bad quantity in a manifest applied over an
// object) is refused by kube-apiserver as a whole: its error names the
// field "patch" and, for an unknown field, that field too. "patch" is then
// left out of the comparison, and when it was the only field named, both
// rejecting agrees (PatchOnly says so).
func (o Outcome) Agrees(p Outcome) bool {
	if o.Accepted || p.Accepted {
		return o.Accepted == p.Accepted
	}
	if o.PatchOnly() {
		return true
	}
	return slices.Equal(o.withoutPatch(), p.Fields)
}

// PatchOnly reports whether o rejects naming no field but "patch": the
// API server's answer to a patch it could not decode.
func (o Outcome) PatchOnly() bool {
	return !o.Accepted && len(o.Fields) > 0 && len(o.withoutPatch()) == 0
}

// withoutPatch is o.Fields without "patch".
func (o Outcome) withoutPatch() []string {
	out := make([]string, 0, len(o.Fields))
	for _, f := range o.Fields {
		if f != "patch" {
			out = append(out, f)
		}
	}
	return out
}

// String reads "accepted" or "rejected naming [f1 f2]".
func (o Outcome) String() string {
	if o.Accepted {
		return "accepted"
	}
	return fmt.Sprintf("rejected naming %v: %s", o.Fields, o.Message)
}

// The ways an error names a field, in kube-apiserver's texts and dsplan's
// alike: a field error ("spec.selector: Required value"), a strict
// decoding error (unknown field "spec.foo"), a type error of the JSON
// decoder (Go struct field DaemonSetSpec.spec.minReadySeconds of type
// int32).
var (
	fieldError = regexp.MustCompile(`([A-Za-z][A-Za-z0-9_.\-/\[\]]*): (?:Required value|Invalid value|Duplicate value|Unsupported value|Not found|Forbidden|Too long|Too many)`)
	strictErr  = regexp.MustCompile(`(?:unknown|duplicate) field "([^"]+)"`)
	typeErr    = regexp.MustCompile(`Go struct field [A-Za-z0-9_]+\.(\S+) of type`)
)

// Fields returns the fields msg names, sorted, each once.
func Fields(msg string) []string {
	var out []string
	for _, re := range []*regexp.Regexp{fieldError, strictErr, typeErr} {
		for _, m := range re.FindAllStringSubmatch(msg, -1) {
			out = append(out, m[1])
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ReadOutcomes reads outcomes recorded by the end-to-end suite, by case
// name.
func ReadOutcomes(path string) (map[string]Outcome, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out map[string]Outcome
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// WriteOutcomes writes outcomes by case name, sorted, to path.
func WriteOutcomes(path string, outcomes map[string]Outcome) error {
	data, err := json.MarshalIndent(outcomes, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// DsplanOutcome reads dsplan's answer to a case (dsplan plan -f MANIFEST
// --daemonset NS/NAME): exit 0 accepted; exit 1 with a rejection ("would
// reject it") naming fields. Anything else is a rejection naming
// "(not a rejection)", which no API server answer agrees with.
func DsplanOutcome(code int, stderr string) Outcome {
	msg := strings.TrimSpace(stderr)
	switch {
	case code == 0:
		return Outcome{Accepted: true}
	case code == 1 && strings.Contains(stderr, "would reject it"):
		return Outcome{Fields: Fields(stderr), Message: msg}
	}
	return Outcome{Fields: []string{"(not a rejection)"}, Message: fmt.Sprintf("exit %d: %s", code, msg)}
}
