package e2e

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
)

// controllerUnderTest is one implementation of the DaemonSet controller the
// scenarios drive.
type controllerUnderTest struct {
	name string
	// start runs the controller against the cluster and returns a function
	// that stops it and waits until it has stopped.
	start func(c *cluster, run int) (stop func())
}

// controllersUnderTest are run, in this order, on a fresh cluster each for
// every scenario.
var controllersUnderTest = []controllerUnderTest{
	{name: "example", start: startExample},
	{name: "upstream", start: startUpstream},
}

// startUpstream runs kube-controller-manager v1.37.2 with the DaemonSet
// controller alone.
func startUpstream(c *cluster, run int) func() {
	p := c.startControllerManager(fmt.Sprintf("kube-controller-manager-%d", run))
	return p.stop
}

// env is what a scenario works with: its cluster and the controller under
// test, which it may restart.
type env struct {
	*cluster
	ctl  controllerUnderTest
	stop func()
	runs int
}

func (e *env) startController() {
	e.runs++
	e.stop = e.ctl.start(e.cluster, e.runs)
}

// restartController stops the controller and starts a new instance, as a
// crash or an upgrade would.
func (e *env) restartController() {
	e.stop()
	e.startController()
}

// outcome is what a scenario ends with, compared across controllers.
type outcome struct {
	placement  placement
	status     appsv1.DaemonSetStatus
	converge   time.Duration
	writes     map[string]int
	violations []string
	events     int
}

// row is one line of the side-by-side table.
type row struct {
	scenario, controller string
	outcome              outcome
}

var (
	resultsMu               sync.Mutex
	rows                    []row
	passed, failed, skipped int
)

// countResult adds t's result to the totals TestMain prints.
func countResult(t *testing.T) {
	t.Cleanup(func() {
		resultsMu.Lock()
		defer resultsMu.Unlock()
		switch {
		case t.Failed():
			failed++
		case t.Skipped():
			skipped++
		default:
			passed++
		}
	})
}

// sideBySide runs the scenario once per controller, each on a fresh
// cluster, and then requires both to have reached the same placement and
// status counters.
func sideBySide(t *testing.T, scenario string, run func(e *env) outcome) {
	sideBySideOf(t, controllersUnderTest, scenario, run)
}

// sideBySideOf is sideBySide with the controllers ctls, named "example"
// and "upstream" as controllersUnderTest.
func sideBySideOf(t *testing.T, ctls []controllerUnderTest, scenario string, run func(e *env) outcome) {
	got := map[string]outcome{}
	for _, ctl := range ctls {
		t.Run(ctl.name, func(t *testing.T) {
			countResult(t)
			c := newCluster(t)
			e := &env{cluster: c, ctl: ctl}
			e.startController()
			t.Cleanup(func() { e.stop() })
			start := time.Now()
			o := run(e)
			o.writes = c.writes()
			for _, v := range o.violations {
				t.Errorf("safety bound broken: %s", v)
			}
			t.Logf("%s/%s: converged in %s, %d API writes (%s), %d watch events checked, scenario %s",
				scenario, ctl.name, o.converge.Round(time.Millisecond), total(o.writes), summary(o.writes), o.events, time.Since(start).Round(time.Millisecond))
			got[ctl.name] = o
			addRow(row{scenario: scenario, controller: ctl.name, outcome: o})
		})
	}
	ex, up, ok := exampleAndUpstream(got)
	if !ok {
		return
	}
	countResult(t)
	compareWithUpstream(t, scenario, ex, up)
}

// exampleAndUpstream returns the outcomes of the example controller and
// of kube-controller-manager from got, by controller name; ok is false
// unless both are there (a run that stopped early left none).
func exampleAndUpstream[O any](got map[string]O) (example, upstream O, ok bool) {
	example, okEx := got["example"]
	upstream, okUp := got["upstream"]
	return example, upstream, okEx && okUp
}

// compareWithUpstream fails t where the example controller's final
// placement (node → revision hash) or status is not kube-controller-
// manager's; scenario names the run in the messages.
func compareWithUpstream(t *testing.T, scenario string, example, upstream outcome) {
	t.Helper()
	if d := cmp.Diff(upstream.placement, example.placement); d != "" {
		t.Errorf("%s: final placement (node → revision hash), example vs upstream (-upstream +example):\n%s", scenario, d)
	}
	if d := cmp.Diff(upstream.status, example.status); d != "" {
		t.Errorf("%s: final status (-upstream +example):\n%s", scenario, d)
	}
}

// addRow adds r to the side-by-side table.
func addRow(r row) {
	resultsMu.Lock()
	defer resultsMu.Unlock()
	rows = append(rows, r)
}

// printTable writes the side-by-side table in Markdown.
func printTable(w io.Writer) {
	resultsMu.Lock()
	defer resultsMu.Unlock()
	if len(rows) == 0 {
		return
	}
	sorted := append([]row(nil), rows...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].scenario < sorted[j].scenario })
	fmt.Fprintln(w, "| scenario | controller | converged in | API writes | writes by kind | pods | safety events checked |")
	fmt.Fprintln(w, "|---|---|---:|---:|---|---:|---:|")
	for _, r := range sorted {
		o := r.outcome
		fmt.Fprintf(w, "| %s | %s | %.1fs | %d | %s | %d | %d |\n", r.scenario, r.controller,
			o.converge.Seconds(), total(o.writes), strings.ReplaceAll(summary(o.writes), "|", "/"), len(o.placement), o.events)
	}
}
