package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/daemonplan/daemonplan/examples/dsplan/applycorpus"
)

// TestApplyCorpus replays the apply differential without a cluster: each
// manifest of the corpus (examples/dsplan/applycorpus), layered over the
// corpus's bases as kube-apiserver stored them (testdata/capture.json),
// must get the answer kube-apiserver gave it when the end-to-end suite
// last recorded them (testdata/outcomes.json: TestApplyDifferential with
// DAEMONPLAN_APPLY_RECORD): accepted, or rejected naming the same fields.
func TestApplyCorpus(t *testing.T) {
	const dir = "applycorpus/testdata/" // TestMain runs the tests from examples/dsplan
	outcomes, err := applycorpus.ReadOutcomes(dir + "outcomes.json")
	if errors.Is(err, fs.ErrNotExist) {
		t.Fatal("no recorded answers: record them with TestApplyDifferential (examples/controller/e2e) and DAEMONPLAN_APPLY_RECORD=../../dsplan/" + dir)
	}
	if err != nil {
		t.Fatal(err)
	}
	cases, err := applycorpus.Generate()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	disagreements := 0
	for i, tc := range cases {
		want, ok := outcomes[tc.Name]
		if !ok {
			t.Errorf("%s: no recorded answer (record them again: see TestApplyDifferential)", tc.Name)
			disagreements++
			continue
		}
		file := filepath.Join(tmp, fmt.Sprintf("case-%03d.json", i))
		if err := os.WriteFile(file, tc.Manifest, 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		code := Run([]string{"plan", "-f", dir + "capture.json", "-f", file, "--daemonset", tc.Namespace + "/" + tc.DaemonSet, "--now", "2026-01-01T00:00:00Z"},
			bytes.NewReader(nil), &stdout, &stderr, Options{})
		if got := applycorpus.DsplanOutcome(code, stderr.String()); !want.Agrees(got) {
			disagreements++
			t.Errorf("%s (%s): kube-apiserver: %s; dsplan: %s", tc.Name, tc.Class, want, got)
		}
	}
	if len(outcomes) != len(cases) {
		t.Errorf("%d recorded answers for %d cases: record them again", len(outcomes), len(cases))
	}
	t.Logf("apply corpus (recorded answers): %d manifests, %d disagreements", len(cases), disagreements)
}
