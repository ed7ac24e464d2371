package daemontest_test

import (
	"testing"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/internal/scenario"
)

// conformanceDir holds the scenarios recorded from kube-controller-manager.
const conformanceDir = "../testdata/conformance"

// loadScenarios loads the recorded scenarios once per test binary.
func loadScenarios(tb testing.TB) []*scenario.Scenario {
	tb.Helper()
	all, err := scenario.LoadDir(conformanceDir)
	if err != nil {
		tb.Fatalf("loading the conformance scenarios: %v", err)
	}
	return all
}

func scenarioInput(s *scenario.Scenario) dt.Input {
	return dt.Input{DaemonSet: s.DaemonSet, Nodes: s.Nodes, Pods: s.Pods,
		Options: daemon.Options{Now: s.Now, Revisions: s.Revisions}}
}

// TestCheckPlanConformance runs CheckPlan on every recorded scenario:
// upstream's own decisions must satisfy every invariant, or the invariant
// is wrong.
func TestCheckPlanConformance(t *testing.T) {
	for i, s := range loadScenarios(t) {
		t.Run(s.Name, func(t *testing.T) {
			rep := dt.CheckPlan(scenarioInput(s), dt.CheckOptions{Seed: uint64(i)})
			if err := rep.Err(); err != nil {
				t.Errorf("tags %v, Compute error %v: %v", s.Tags, rep.ComputeErr, err)
			}
		})
	}
}
