package progressive_test

import (
	"os"
	"testing"
	"time"

	"github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/progressive/progressivetest"
)

// TestBadInputs runs the bad-input corpus (testdata/bad-inputs.json) on
// the library: every row refused naming the field, held naming the
// reference, or accepted, as the row says, on a rollout under way; a
// refusal replaces no old pod (progressivetest.Judge).
func TestBadInputs(t *testing.T) {
	data, err := os.ReadFile("testdata/bad-inputs.json")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := progressivetest.Corpus(data)
	if err != nil {
		t.Fatal(err)
	}
	var tally progressivetest.Tally
	for _, r := range rows {
		t.Run(r.Name(), func(t *testing.T) {
			ds, nodes, pods, revs := progressivetest.Cluster(r.AnnotationsFor(progressivetest.Hash()))
			got, text, err := progressivetest.Judge(ds, nodes, pods, revs, daemontest.Epoch, time.LoadLocation)
			if err != nil {
				t.Fatalf("%s: %v", r.Name(), err)
			}
			if msg := tally.Add(r, got, text); msg != "" {
				t.Error(msg)
			}
		})
	}
	t.Log(tally)
	if tally.Silent > 0 || tally.Wrong > 0 {
		t.Errorf("%s", tally)
	}
}
