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

// Agrees reports whether o and p agree: both accepted, or both rejected
// naming the same fields.
func (o Outcome) Agrees(p Outcome) bool {
	return o.Accepted == p.Accepted && slices.Equal(o.Fields, p.Fields)
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
