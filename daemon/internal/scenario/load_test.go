package scenario_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/daemon/internal/scenario"
)

// minimal is the smallest valid scenario file; fields are replaced in it
// with strings.Replace by the tests.
const minimal = `{
 "name": "tiny",
 "tags": ["archetype=edge"],
 "now": "2025-06-01T12:00:00Z",
 "daemonSet": {"metadata": {"name": "ds", "namespace": "ns"}},
 "nodes": [{"metadata": {"name": "node-a"}}],
 "pods": [],
 "expected": {"hash": "", "creates": [], "deletes": [], "status": null, "trials": 1, "deterministic": true}
}`

func TestDecode(t *testing.T) {
	tests := []struct {
		name    string
		old     string // replaced by new in minimal; "" keeps minimal
		new     string
		check   func(t *testing.T, s *scenario.Scenario)
		wantErr string // substring; "" means no error
		wantIs  error
	}{
		{
			name: "the minimal scenario decodes",
			check: func(t *testing.T, s *scenario.Scenario) {
				if s.Name != "tiny" || len(s.Tags) != 1 || len(s.Nodes) != 1 || s.Nodes[0].Name != "node-a" {
					t.Errorf("Decode() = %+v", s)
				}
				if want := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC); !s.Now.Equal(want) {
					t.Errorf("Now = %v, want %v", s.Now, want)
				}
				if s.Revisions != nil {
					t.Errorf("Revisions = %v, want nil when the key is absent", s.Revisions)
				}
				if s.Expected.Status != nil || !s.Expected.Deterministic || s.Expected.Trials != 1 {
					t.Errorf("Expected = %+v", s.Expected)
				}
			},
		},
		{
			name: "present but empty revisions are non-nil",
			old:  `"pods": [],`, new: `"pods": [], "revisions": [],`,
			check: func(t *testing.T, s *scenario.Scenario) {
				if s.Revisions == nil || len(s.Revisions) != 0 {
					t.Errorf("Revisions = %#v, want empty and non-nil", s.Revisions)
				}
			},
		},
		{
			name: "revision data is compacted",
			old:  `"pods": [],`,
			new:  "\"pods\": [], \"revisions\": [{\"metadata\": {\"name\": \"ds-1\"}, \"revision\": 1, \"data\": {\n  \"spec\": {\n   \"template\": {\"$patch\": \"replace\"}\n  }\n }}],",
			check: func(t *testing.T, s *scenario.Scenario) {
				if got, want := string(s.Revisions[0].Data.Raw), `{"spec":{"template":{"$patch":"replace"}}}`; got != want {
					t.Errorf("Data.Raw = %s, want %s", got, want)
				}
			},
		},
		{
			name: "a status object decodes with its collision count",
			old:  `"status": null`,
			new:  `"status": {"desiredNumberScheduled": 1, "currentNumberScheduled": 1, "numberMisscheduled": 0, "numberReady": 1, "updatedNumberScheduled": 1, "numberAvailable": 1, "numberUnavailable": 0, "observedGeneration": 3, "collisionCount": 2}`,
			check: func(t *testing.T, s *scenario.Scenario) {
				st := s.Expected.Status
				if st == nil || st.ObservedGeneration != 3 || st.CollisionCount == nil || *st.CollisionCount != 2 {
					t.Errorf("Status = %+v", st)
				}
			},
		},
		{
			name: "statusMay keeps null entries as nil",
			old:  `"status": null`,
			new:  `"status": null, "statusMay": [null], "hashMay": ["a"], "errorMay": [null, "x"], "createsMay": ["n"], "createsCount": {"min": 0, "max": 1}`,
			check: func(t *testing.T, s *scenario.Scenario) {
				e := s.Expected
				if len(e.StatusMay) != 1 || e.StatusMay[0] != nil || len(e.ErrorMay) != 2 || e.ErrorMay[0] != nil ||
					*e.ErrorMay[1] != "x" || e.CreatesCount.Max != 1 || e.HashMay[0] != "a" {
					t.Errorf("Expected = %+v", e)
				}
			},
		},
		{
			name: "a null node entry is kept as nil",
			old:  `"nodes": [{"metadata": {"name": "node-a"}}]`, new: `"nodes": [null]`,
			check: func(t *testing.T, s *scenario.Scenario) {
				if len(s.Nodes) != 1 || s.Nodes[0] != nil {
					t.Errorf("Nodes = %v, want [nil]", s.Nodes)
				}
			},
		},
		{name: "an unknown top-level key fails", old: `"tags"`, new: `"tagz"`, wantErr: `unknown field "tagz"`, wantIs: scenario.ErrUnknownKey},
		{name: "an unknown expected key fails", old: `"trials"`, new: `"trails"`, wantErr: `expected: unknown key`, wantIs: scenario.ErrUnknownKey},
		{name: "an unknown DaemonSet field fails", old: `"namespace": "ns"`, new: `"namespace": "ns", "nmae": "x"`, wantErr: "daemonSet: unknown key", wantIs: scenario.ErrUnknownKey},
		{name: "a missing status fails", old: `"status": null, `, new: ``, wantErr: "expected: status: required"},
		{name: "a missing hash fails", old: `"hash": "", `, new: ``, wantErr: "expected: hash: required"},
		{name: "a missing name fails", old: `"name": "tiny",`, new: ``, wantErr: "name: required"},
		{name: "missing pods fail", old: `"pods": [],`, new: ``, wantErr: "pods: required"},
		{name: "a null daemonSet fails", old: `{"metadata": {"name": "ds", "namespace": "ns"}}`, new: `null`, wantErr: "daemonSet: required"},
		{name: "a bad clock fails", old: `"2025-06-01T12:00:00Z"`, new: `"yesterday"`, wantErr: "now: "},
		{
			name: "a status without a counter fails",
			old:  `"status": null`, new: `"status": {"desiredNumberScheduled": 1}`,
			wantErr: "expected: status.currentNumberScheduled: required",
		},
		{
			name: "a statusMay entry without a counter fails",
			old:  `"status": null`, new: `"status": null, "statusMay": [null, {}]`,
			wantErr: "expected: statusMay[1].desiredNumberScheduled: required",
		},
		{name: "inverted count bounds fail", old: `"trials"`, new: `"deletesCount": {"min": 2, "max": 1}, "trials"`, wantErr: "deletesCount: invalid bounds"},
		{
			name: "a created pod with an unknown field fails",
			old:  `"trials"`, new: `"createdPods": {"node-a": {"spec": {"nodeNmae": "x"}}}, "trials"`,
			wantErr: `createdPods["node-a"]: unknown key`, wantIs: scenario.ErrUnknownKey,
		},
		{name: "trailing data fails", old: "}\n}", new: "}\n} {}", wantErr: "trailing data"},
		{name: "a truncated file fails", old: "}\n}", new: "}", wantErr: "unexpected EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := minimal
			if tt.old != "" {
				if !strings.Contains(in, tt.old) {
					t.Fatalf("test bug: %q is not in the minimal scenario", tt.old)
				}
				in = strings.Replace(in, tt.old, tt.new, 1)
			}
			s, err := scenario.Decode([]byte(in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Decode() error = %v, want it to contain %q", err, tt.wantErr)
				}
				if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
					t.Errorf("Decode() error = %v, want errors.Is %v", err, tt.wantIs)
				}
				return
			}
			if err != nil {
				t.Fatalf("Decode() error = %v", err)
			}
			tt.check(t, s)
		})
	}
}

func TestDecodeDoesNotRetainInput(t *testing.T) {
	in := []byte(strings.Replace(minimal, `"pods": [],`, `"pods": [], "revisions": [{"metadata": {"name": "r"}, "data": {"a": 1}}],`, 1))
	s, err := scenario.Decode(in)
	if err != nil {
		t.Fatal(err)
	}
	before := string(s.Revisions[0].Data.Raw)
	for i := range in {
		in[i] = ' '
	}
	if got := string(s.Revisions[0].Data.Raw); got != before {
		t.Errorf("Data.Raw changed with the input: %q, was %q", got, before)
	}
}

func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadDir(t *testing.T) {
	named := func(n string) string { return strings.Replace(minimal, `"tiny"`, `"`+n+`"`, 1) }
	tests := []struct {
		name    string
		files   map[string]string
		want    []string
		wantErr string
	}{
		{
			name:  "scenarios come sorted by name, not by file name, and other files are skipped",
			files: map[string]string{"1.json": named("b"), "2.json": named("a"), "README.md": "# not a scenario", "x.json.orig": "{"},
			want:  []string{"a", "b"},
		},
		{name: "one bad file fails the load and is named", files: map[string]string{"a.json": named("a"), "bad.json": "{"}, wantErr: "bad.json"},
		{name: "a duplicate name fails", files: map[string]string{"1.json": named("a"), "2.json": named("a")}, wantErr: `name "a" is already used`},
		{name: "a directory without scenarios fails", files: map[string]string{"README.md": "x"}, wantErr: "no *.json file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for n, c := range tt.files {
				writeFile(t, dir, n, c)
			}
			got, err := scenario.LoadDir(dir)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("LoadDir() error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("LoadDir() error = %v", err)
			}
			var names []string
			for _, s := range got {
				names = append(names, s.Name)
			}
			if diff := cmp.Diff(tt.want, names); diff != "" {
				t.Errorf("LoadDir() names (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.json")
	if _, err := scenario.Load(missing); err == nil || !strings.Contains(err.Error(), `scenario "`+missing+`"`) {
		t.Errorf("Load(missing) error = %v, want it to name the file", err)
	}
	writeFile(t, dir, "bad.json", strings.Replace(minimal, `"tags"`, `"tagz"`, 1))
	_, err := scenario.Load(filepath.Join(dir, "bad.json"))
	if err == nil || !strings.Contains(err.Error(), "bad.json") || !errors.Is(err, scenario.ErrUnknownKey) {
		t.Errorf("Load(bad) error = %v, want one naming the file and wrapping ErrUnknownKey", err)
	}
}
