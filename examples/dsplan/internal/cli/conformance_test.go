package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"
)

// conformanceDir holds the scenarios recorded from kube-controller-manager
// v1.36.3 (see its README.md). daemon/internal/scenario judges Compute on
// them; it is internal to daemon/, so this test reads the files itself and
// applies the same rules to the command's JSON output.
const conformanceDir = "../../daemon/testdata/conformance"

// recorded is the part of a scenario file this test uses.
type recorded struct {
	Name      string            `json:"name"`
	Now       time.Time         `json:"now"`
	DaemonSet json.RawMessage   `json:"daemonSet"`
	Nodes     []json.RawMessage `json:"nodes"`
	Pods      []json.RawMessage `json:"pods"`
	Revisions []json.RawMessage `json:"revisions"`
	Expected  struct {
		Hash      string                    `json:"hash"`
		HashMay   []string                  `json:"hashMay"`
		Status    *appsv1.DaemonSetStatus   `json:"status"`
		StatusMay []*appsv1.DaemonSetStatus `json:"statusMay"`
		Error     *string                   `json:"error"`
		ErrorMay  []*string                 `json:"errorMay"`
		Lists     map[string]json.RawMessage
	} `json:"expected"`
}

// list is one recorded list: what every run did, what some did, the
// bounds of its size.
type list struct {
	want, may []string
	count     *struct{ Min, Max int }
}

// TestConformanceThroughJSON writes every conformance scenario as the List
// `kubectl get -o yaml` (or, every other one, -o json) prints, runs "dsplan plan -o json" on it in
// process, and judges the JSON against what upstream did: the error, the
// creates, deletes, adopts, releases, relabels and revision lists (X ⊆ R ⊆
// X ∪ XMay, with the recorded bounds), the hash and the status. Scenarios
// with a null object cannot be written as kubectl output and are counted
// apart. The created pods' contents are judged by daemon's own conformance
// test: the JSON schema names their nodes only.
func TestConformanceThroughJSON(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(conformanceDir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios in %s: %v", conformanceDir, err)
	}
	pass, skipped := 0, 0
	dir := t.TempDir()
	for n, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var s recorded
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		var raw struct {
			Expected map[string]json.RawMessage `json:"expected"`
		}
		if err := json.Unmarshal(data, &raw); err != nil {
			t.Fatal(err)
		}
		if raceEnabled && n%8 != 0 {
			continue
		}
		items := append([]json.RawMessage{s.DaemonSet}, s.Nodes...)
		items = append(items, s.Pods...)
		items = append(items, s.Revisions...)
		if slices.ContainsFunc(items, func(m json.RawMessage) bool { return string(bytes.TrimSpace(m)) == "null" }) {
			skipped++
			continue
		}
		ok := t.Run(s.Name, func(t *testing.T) {
			// Every other scenario as `kubectl get -o json` prints it
			// (indented, revision data included), the others as -o yaml.
			list, err := json.MarshalIndent(map[string]any{"apiVersion": "v1", "kind": "List", "items": items}, "", "    ")
			if err != nil {
				t.Fatal(err)
			}
			in := filepath.Join(dir, s.Name+".json")
			if n%2 == 0 {
				if list, err = yaml.JSONToYAML(list); err != nil {
					t.Fatal(err)
				}
				in = filepath.Join(dir, s.Name+".yaml")
			}
			if err := os.WriteFile(in, list, 0o644); err != nil {
				t.Fatal(err)
			}
			var meta struct {
				Metadata struct{ Namespace, Name string }
			}
			if err := json.Unmarshal(s.DaemonSet, &meta); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			code := Run([]string{"plan", "-o", "json", "-f", in,
				"--daemonset", meta.Metadata.Namespace + "/" + meta.Metadata.Name,
				"--now", s.Now.Format(time.RFC3339Nano)}, nil, &stdout, &stderr, Options{})
			var plans []planJSON
			if err := json.Unmarshal(stdout.Bytes(), &plans); err != nil || len(plans) != 1 {
				t.Fatalf("dsplan plan exited %d; stdout is not one plan (%v):\n%s\nstderr:\n%s", code, err, stdout.String(), stderr.String())
			}
			if lines := judge(s, raw.Expected, plans[0], code); len(lines) > 0 {
				t.Errorf("the JSON plan does not conform:\n%s", strings.Join(lines, "\n"))
			}
		})
		if ok {
			pass++
		}
	}
	judged := len(files) - skipped
	if raceEnabled {
		judged = (len(files)+7)/8 - skipped
	}
	t.Logf("conformance through dsplan plan -o json: %d/%d scenarios pass, %d with null objects skipped", pass, judged, skipped)
}

// judge compares one JSON plan with what upstream did, as
// daemon/internal/scenario.Judge does, without the created pods.
func judge(s recorded, exp map[string]json.RawMessage, p planJSON, code int) []string {
	var out []string
	upstreamErr := s.Expected.Error != nil || slices.ContainsFunc(s.Expected.ErrorMay, func(e *string) bool { return e != nil })
	if (p.Error != "") != upstreamErr {
		out = append(out, fmt.Sprintf("error: got %q, upstream %v (exit %d)", p.Error, strPtr(s.Expected.Error), code))
	}
	if (code != 0) != (p.Error != "") {
		out = append(out, fmt.Sprintf("exit code %d with error %q", code, p.Error))
	}
	if upstreamErr && p.Error != "" {
		return out
	}
	got := map[string][]string{
		"creates":           nodesOf(p.Creates),
		"deletes":           podsOf(p.Deletes),
		"adopts":            bare(p.Adopt),
		"releases":          bare(p.Release),
		"relabels":          bare(p.History.Relabel),
		"revisionsCreated":  p.History.Create,
		"revisionsDeleted":  p.History.Delete,
		"revisionsUpdated":  p.History.Update,
		"revisionsAdopted":  p.History.Adopt,
		"revisionsReleased": p.History.Release,
	}
	names := make([]string, 0, len(got))
	for k := range got {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		l, err := readList(exp, name)
		if err != nil {
			out = append(out, err.Error())
			continue
		}
		out = append(out, judgeList(name, l, got[name])...)
	}
	if p.Hash != s.Expected.Hash && !slices.Contains(s.Expected.HashMay, p.Hash) {
		out = append(out, fmt.Sprintf("hash: got %q, upstream %q (or %v)", p.Hash, s.Expected.Hash, s.Expected.HashMay))
	}
	var gotStatus *appsv1.DaemonSetStatus
	if p.StatusChanged {
		gotStatus = p.Status
	}
	okStatus := false
	for _, want := range append([]*appsv1.DaemonSetStatus{s.Expected.Status}, s.Expected.StatusMay...) {
		if sameStatus(want, gotStatus) {
			okStatus = true
		}
	}
	if !okStatus {
		out = append(out, fmt.Sprintf("status: got %s, upstream %s", statusText(gotStatus), statusText(s.Expected.Status)))
	}
	return out
}

func readList(exp map[string]json.RawMessage, name string) (list, error) {
	var l list
	for suffix, dst := range map[string]any{"": &l.want, "May": &l.may, "Count": &l.count} {
		if raw, ok := exp[name+suffix]; ok {
			if err := json.Unmarshal(raw, dst); err != nil {
				return l, fmt.Errorf("%s%s: %v", name, suffix, err)
			}
		}
	}
	return l, nil
}

// judgeList: want ⊆ got ⊆ want ∪ may as multisets, and the count bounds.
func judgeList(name string, l list, got []string) []string {
	var out []string
	left := map[string]int{}
	for _, g := range got {
		left[g]++
	}
	for _, w := range l.want {
		if left[w] == 0 {
			out = append(out, fmt.Sprintf("%s: missing %q (got %v)", name, w, got))
			continue
		}
		left[w]--
	}
	may := map[string]int{}
	for _, m := range l.may {
		may[m]++
	}
	for _, g := range slices.Sorted(func(yield func(string) bool) {
		for k := range left {
			if !yield(k) {
				return
			}
		}
	}) {
		if extra := left[g] - may[g]; extra > 0 {
			out = append(out, fmt.Sprintf("%s: %q %d time(s) more than upstream (got %v)", name, g, extra, got))
		}
	}
	if l.count != nil && (len(got) < l.count.Min || len(got) > l.count.Max) {
		out = append(out, fmt.Sprintf("%s: %d entries, upstream %d to %d", name, len(got), l.count.Min, l.count.Max))
	}
	return out
}

func sameStatus(a, b *appsv1.DaemonSetStatus) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	x, y := *a, *b
	x.Conditions, y.Conditions = nil, nil
	return cmp.Equal(x, y)
}

func statusText(s *appsv1.DaemonSetStatus) string {
	if s == nil {
		return "no write"
	}
	data, _ := json.Marshal(s)
	return string(data)
}

func strPtr(s *string) string {
	if s == nil {
		return "no error"
	}
	return fmt.Sprintf("%q", *s)
}

func nodesOf(cs []createJSON) []string {
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		out = append(out, c.Node)
	}
	return out
}

func podsOf(ds []deleteJSON) []string {
	out := make([]string, 0, len(ds))
	for _, d := range ds {
		out = append(out, d.Pod)
	}
	return bare(out)
}

// bare drops the namespace: the scenarios name pods without it.
func bare(names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		_, name, ok := strings.Cut(n, "/")
		if !ok {
			name = n
		}
		out = append(out, name)
	}
	return out
}

// TestJudgeCatches makes sure the judge above is not vacuous: it must
// reject a plan that misses a recorded delete, adds a create, has another
// hash or writes another status.
func TestJudgeCatches(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(conformanceDir, "rev-0000-dup-nolabel-none-owned.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s recorded
	var raw struct {
		Expected map[string]json.RawMessage `json:"expected"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	good := planJSON{
		Hash:    s.Expected.Hash,
		Deletes: []deleteJSON{{Pod: "kube-system/agent-qqqqq"}},
		History: historyJSON{Relabel: []string{"kube-system/agent-qqqqq", "kube-system/agent-rrrrr"}, Delete: []string{"agent-585745ffdd"}},
	}
	if lines := judge(s, raw.Expected, good, 0); len(lines) > 0 {
		t.Fatalf("judge rejects the recorded outcome: %v", lines)
	}
	tests := []struct {
		name   string
		change func(*planJSON)
	}{
		{"no delete", func(p *planJSON) { p.Deletes = nil }},
		{"two deletes", func(p *planJSON) { p.Deletes = append(p.Deletes, deleteJSON{Pod: "kube-system/agent-rrrrr"}) }},
		{"extra create", func(p *planJSON) { p.Creates = []createJSON{{Node: "node-a"}} }},
		{"other hash", func(p *planJSON) { p.Hash = "x" }},
		{"status write", func(p *planJSON) { p.StatusChanged = true; p.Status = &appsv1.DaemonSetStatus{} }},
		{"error", func(p *planJSON) { p.Error = "boom" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := good
			tt.change(&p)
			if lines := judge(s, raw.Expected, p, 0); len(lines) == 0 {
				t.Errorf("judge accepts a plan with %s", tt.name)
			}
		})
	}
}
