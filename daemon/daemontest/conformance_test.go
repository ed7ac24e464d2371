package daemontest_test

import (
	"sync"
	"testing"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/internal/scenario"
	"github.com/daemonplan/daemonplan/daemon/simulate"
)

// conformanceDir holds the scenarios recorded from kube-controller-manager.
const conformanceDir = "../testdata/conformance"

// loadedScenarios holds the recorded scenarios, loaded once per test
// binary: decoding them is the slow part of the tests that use them.
var loadedScenarios = sync.OnceValues(func() ([]*scenario.Scenario, error) {
	return scenario.LoadDir(conformanceDir)
})

// loadScenarios returns the recorded scenarios; callers must not modify
// them.
func loadScenarios(tb testing.TB) []*scenario.Scenario {
	tb.Helper()
	all, err := loadedScenarios()
	if err != nil {
		tb.Fatalf("loading the conformance scenarios: %v", err)
	}
	return all
}

func scenarioInput(s *scenario.Scenario) simulate.Input {
	return simulate.Input{DaemonSet: s.DaemonSet, Nodes: s.Nodes, Pods: s.Pods,
		Options: daemon.Options{Now: s.Now, Revisions: s.Revisions}}
}

// TestCheckPlanConformance runs CheckPlan on every recorded scenario (a
// sample under -short and -race): upstream's own decisions must satisfy
// every invariant, or the invariant is wrong.
func TestCheckPlanConformance(t *testing.T) {
	all := loadScenarios(t)
	step := len(all) / sample(len(all))
	for i, s := range all {
		if i%step != 0 {
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			rep := dt.CheckPlan(scenarioInput(s), dt.CheckOptions{Seed: uint64(i)})
			if err := rep.Err(); err != nil {
				t.Errorf("tags %v, Compute error %v: %v", s.Tags, rep.ComputeErr, err)
			}
		})
	}
}
