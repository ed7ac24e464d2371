package scenario_test

import (
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/internal/scenario"
)

// conformanceDir holds the recorded scenarios the daemon package is judged
// against.
const conformanceDir = "../../testdata/conformance"

// loadOnce loads the recorded scenarios once per test binary; tests only
// read them.
var loadOnce = sync.OnceValues(func() ([]*scenario.Scenario, error) {
	return scenario.LoadDir(conformanceDir)
})

func loadConformance(t *testing.T) []*scenario.Scenario {
	t.Helper()
	all, err := loadOnce()
	if err != nil {
		t.Fatalf("LoadDir(%q) error = %v", conformanceDir, err)
	}
	return all
}

// TestRecordedScenariosLoad checks the shape of the recorded data: it all
// decodes strictly, names are the file names, and what the README promises
// about each scenario holds.
func TestRecordedScenariosLoad(t *testing.T) {
	all := loadConformance(t)
	if len(all) < 300 {
		t.Errorf("LoadDir() = %d scenarios, want at least 300", len(all))
	}
	withRevisions := 0
	for i, s := range all {
		if i > 0 && all[i-1].Name >= s.Name {
			t.Errorf("scenarios not sorted by name: %q before %q", all[i-1].Name, s.Name)
		}
		if s.DaemonSet == nil {
			t.Errorf("%s: DaemonSet is nil", s.Name)
		}
		if s.Now.IsZero() {
			t.Errorf("%s: Now is zero", s.Name)
		}
		if s.Revisions != nil {
			withRevisions++
		}
		for _, r := range s.Revisions {
			if r != nil && strings.ContainsAny(string(r.Data.Raw), "\n\t") {
				t.Errorf("%s: revision %q data is not compact", s.Name, r.Name)
			}
		}
		if s.Expected.Trials < 1 {
			t.Errorf("%s: trials = %d", s.Name, s.Expected.Trials)
		}
	}
	if withRevisions == 0 || withRevisions == len(all) {
		t.Errorf("%d of %d scenarios have revisions; the data mixes both", withRevisions, len(all))
	}
}

// TestJudgeAcceptsRecordedOutcomes runs the judge on every recorded
// scenario against the plan ExpectedPlan builds from the record itself: the
// judge and the data must agree with each other before any planner is
// judged.
func TestJudgeAcceptsRecordedOutcomes(t *testing.T) {
	for _, s := range loadConformance(t) {
		plan, err := scenario.ExpectedPlan(s)
		if got := scenario.Judge(s, plan, err); len(got) != 0 {
			t.Errorf("%s: Judge(ExpectedPlan) = %q, want no mismatch", s.Name, got)
		}
	}
}

// TestJudgeRejectsPerturbedOutcomes changes one thing of the recorded
// outcome at a time and checks that the judge notices, on every scenario
// where the change is observable.
func TestJudgeRejectsPerturbedOutcomes(t *testing.T) {
	perturb := []struct {
		name string
		// applies reports whether the change is observable in s.
		applies func(s *scenario.Scenario) bool
		change  func(p *daemon.Plan, err *error)
	}{
		{
			name:    "an extra create on a node nobody has",
			applies: func(s *scenario.Scenario) bool { return s.Expected.Error == nil },
			change: func(p *daemon.Plan, _ *error) {
				p.Creates = append(p.Creates, daemon.Create{NodeName: "no-such-node", Pod: &corev1.Pod{}})
			},
		},
		{
			name:    "a recorded delete left out",
			applies: func(s *scenario.Scenario) bool { return s.Expected.Error == nil && len(s.Expected.Deletes) > 0 },
			change:  func(p *daemon.Plan, _ *error) { p.Deletes = p.Deletes[1:] },
		},
		{
			name:    "a wrong hash",
			applies: func(s *scenario.Scenario) bool { return s.Expected.Error == nil },
			change:  func(p *daemon.Plan, _ *error) { p.Hash = "not-a-hash" },
		},
		{
			name: "a status counter off by one",
			applies: func(s *scenario.Scenario) bool {
				// A DaemonSet being deleted or selecting everything writes
				// no status, so its counters are not judged.
				sel := s.DaemonSet.Spec.Selector
				return s.Expected.Error == nil && s.DaemonSet.DeletionTimestamp == nil &&
					(sel == nil || len(sel.MatchLabels)+len(sel.MatchExpressions) > 0)
			},
			change: func(p *daemon.Plan, _ *error) { p.Status.NumberReady++ },
		},
		{
			name:    "the error dropped",
			applies: func(s *scenario.Scenario) bool { return s.Expected.Error != nil },
			change:  func(_ *daemon.Plan, err *error) { *err = nil },
		},
		{
			name: "a created pod with an extra label",
			applies: func(s *scenario.Scenario) bool {
				return s.Expected.Error == nil && len(s.Expected.CreatedPods) > 0
			},
			change: func(p *daemon.Plan, _ *error) {
				for i := range p.Creates {
					pod := p.Creates[i].Pod.DeepCopy()
					metav1.SetMetaDataLabel(&pod.ObjectMeta, "extra", "x")
					p.Creates[i].Pod = pod
				}
			},
		},
	}
	all := loadConformance(t)
	for _, tt := range perturb {
		t.Run(tt.name, func(t *testing.T) {
			judged := 0
			for _, s := range all {
				if !tt.applies(s) {
					continue
				}
				plan, err := scenario.ExpectedPlan(s)
				tt.change(&plan, &err)
				judged++
				if got := scenario.Judge(s, plan, err); len(got) == 0 {
					t.Errorf("%s: Judge() found no mismatch", s.Name)
				}
			}
			if judged == 0 {
				t.Errorf("no scenario to perturb")
			}
		})
	}
}
