package daemon_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/simulate"
	"github.com/daemonplan/daemonplan/rollout"
)

// plannerCase is one input for the Planner tests.
type plannerCase struct {
	name string
	in   simulate.Input
}

// plannerCases returns the conformance corpus and generated clusters of
// every kind, of sizes up to 40 nodes.
func plannerCases(t *testing.T) []plannerCase {
	t.Helper()
	var out []plannerCase
	for _, s := range loadConformanceScenarios(t) {
		out = append(out, plannerCase{s.Name, simulate.Input{DaemonSet: s.DaemonSet, Nodes: s.Nodes, Pods: s.Pods,
			Options: daemon.Options{Now: s.Now, Revisions: s.Revisions}}})
	}
	for i := range 80 {
		cfg := dt.ClusterConfig{}
		switch i % 4 {
		case 1:
			cfg = dt.ClusterConfig{Healthy: true}
		case 2:
			cfg = dt.ClusterConfig{Healthy: true, Rollout: true, Nodes: 1 + i%40}
		case 3:
			cfg.Nodes = 1 + i%40
		}
		c := dt.GenerateCluster(rand.New(rand.NewPCG(uint64(i), 0x706c616e)), cfg)
		out = append(out, plannerCase{fmt.Sprintf("generated-%03d", i), c.Input()})
	}
	return out
}

// planOutcome is a plan and the text of its error.
type planOutcome struct {
	plan daemon.Plan
	err  string
}

func outcomeOf(plan daemon.Plan, err error) planOutcome {
	return planOutcome{plan, conformanceErrText(err)}
}

// diffOutcomes compares two outcomes completely.
func diffOutcomes(want, got planOutcome) string {
	if want.err != got.err {
		return fmt.Sprintf("error = %q, Compute gave %q", got.err, want.err)
	}
	return cmp.Diff(want.plan, got.plan, conformancePlanOptions)
}

// TestPlannerMatchesCompute runs one Planner over the conformance corpus
// and generated clusters, backwards and shuffled, so that it
// reuses its memory across different DaemonSets, sizes and inputs: every
// plan and error must equal Compute's, the plan before must still equal
// its Compute twin after the next call (plans share no memory with the
// Planner), and the inputs must stay unchanged.
func TestPlannerMatchesCompute(t *testing.T) {
	cases := plannerCases(t)
	want := make([]planOutcome, len(cases))
	for i, c := range cases {
		want[i] = outcomeOf(c.in.Compute())
	}
	backwards := make([]int, len(cases))
	for i := range backwards {
		backwards[i] = len(cases) - 1 - i
	}
	shuffled := slices.Clone(backwards)
	rand.New(rand.NewPCG(7, 7)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	orders := map[string][]int{"backwards": backwards, "shuffled": shuffled}
	names := []string{"backwards", "shuffled"}
	if testing.Short() || raceEnabled {
		names = names[1:] // one order is enough to catch a data race
	}
	for _, name := range names {
		order := orders[name]
		t.Run(name, func(t *testing.T) {
			p := daemon.NewPlanner()
			prev := -1
			var prevGot planOutcome
			for _, i := range order {
				c := cases[i]
				before := c.in.DeepCopy()
				got := outcomeOf(p.Compute(c.in.DaemonSet, c.in.Nodes, c.in.Pods, c.in.Options))
				if diff := diffOutcomes(want[i], got); diff != "" {
					t.Errorf("%s: Planner.Compute differs from Compute (-Compute +Planner):\n%s", c.name, diff)
				}
				if prev >= 0 {
					if diff := diffOutcomes(want[prev], prevGot); diff != "" {
						t.Errorf("%s: its plan changed when the Planner planned %s (-Compute +Planner):\n%s", cases[prev].name, c.name, diff)
					}
				}
				if !reflect.DeepEqual(before, c.in) {
					if diff := cmp.Diff(before, c.in); diff != "" {
						t.Errorf("%s: Planner.Compute modified its inputs (-before +after):\n%s", c.name, diff)
					}
				}
				prev, prevGot = i, got
			}
		})
	}
}

func TestNilPlannerIsCompute(t *testing.T) {
	ds, nodes, pods, revs := fleet(5, steady)
	opts := daemon.Options{Now: dt.Epoch.Add(time.Minute), Revisions: revs}
	var p *daemon.Planner
	want := outcomeOf(daemon.Compute(ds, nodes, pods, opts))
	if diff := diffOutcomes(want, outcomeOf(p.Compute(ds, nodes, pods, opts))); diff != "" {
		t.Errorf("(*Planner)(nil).Compute differs from Compute (-Compute +Planner):\n%s", diff)
	}
	var zero daemon.Planner
	if diff := diffOutcomes(want, outcomeOf(zero.Compute(ds, nodes, pods, opts))); diff != "" {
		t.Errorf("a zero Planner differs from Compute (-Compute +Planner):\n%s", diff)
	}
}

// TestPlannerAfterError checks that a call that fails half-way through
// (two nodes with one name are found while the cluster view is built)
// leaves nothing behind that changes the next plan.
func TestPlannerAfterError(t *testing.T) {
	ds, nodes, pods, revs := fleet(6, rolloutStart)
	opts := daemon.Options{Now: dt.Epoch.Add(time.Minute), Revisions: revs}
	dup := append(slices.Clone(nodes), nodes[2].DeepCopy())
	p := daemon.NewPlanner()
	for _, in := range []struct {
		name    string
		nodes   []*corev1.Node
		wantErr bool
	}{{"valid", nodes, false}, {"duplicate node", dup, true}, {"valid again", nodes[:4], false}, {"duplicate node again", dup, true}, {"valid at last", nodes, false}} {
		want := outcomeOf(daemon.Compute(ds, in.nodes, pods, opts))
		if failed := want.err != "<nil>"; failed != in.wantErr {
			t.Fatalf("%s: Compute error %s; the fixture no longer fails exactly on duplicate nodes", in.name, want.err)
		}
		if diff := diffOutcomes(want, outcomeOf(p.Compute(ds, in.nodes, pods, opts))); diff != "" {
			t.Errorf("%s: Planner.Compute differs from Compute (-Compute +Planner):\n%s", in.name, diff)
		}
	}
}

// TestPlannerSteadyAllocs caps what a warm Planner allocates for a steady
// 10,000-node plan (Compute allocates about 2.4 MiB there). Skipped under
// the race detector and in -short mode.
func TestPlannerSteadyAllocs(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("allocation caps are not checked under -race or -short")
	}
	// Measured: 375 allocations, 113 KB, of which 80 KB is the index slice
	// rollout.RollingUpdate sorts the nodes with (one int per node); the
	// rest is the revision patch, the compiled eligibility and the status.
	const (
		maxAllocs = 450
		maxBytes  = 160 << 10
	)
	ds, nodes, pods, revs := fleet(10_000, steady)
	opts := daemon.Options{Now: dt.Epoch.Add(time.Minute), Revisions: revs}
	p := daemon.NewPlanner()
	plan, err := p.Compute(ds, nodes, pods, opts) // warm up
	if err != nil || len(plan.Creates)+len(plan.Deletes) > 0 || !plan.History.IsZero() {
		t.Fatalf("the steady fleet's plan has work: error %v, %d creates, %d deletes, history %+v", err, len(plan.Creates), len(plan.Deletes), plan.History)
	}
	var before, after runtime.MemStats
	const runs = 5
	runtime.ReadMemStats(&before)
	for range runs {
		if _, err := p.Compute(ds, nodes, pods, opts); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	allocs := (after.Mallocs - before.Mallocs) / runs
	bytes := (after.TotalAlloc - before.TotalAlloc) / runs
	t.Logf("warm steady plan at 10,000 nodes: %d allocs, %d bytes", allocs, bytes)
	if allocs > maxAllocs || bytes > maxBytes {
		t.Errorf("a warm steady plan allocates %d objects, %d bytes; want at most %d, %d", allocs, bytes, maxAllocs, maxBytes)
	}
}

// FuzzPlannerMatchesCompute plans two generated clusters with one Planner,
// A, then B, then A again: each plan must equal Compute's, and A's first
// plan must be unchanged by the later calls. Either may be planned under a
// rollout policy with every option (waves included).
func FuzzPlannerMatchesCompute(f *testing.F) {
	for i := range uint64(8) {
		f.Add(i, i*0x9e3779b97f4a7c15, uint8(i))
		f.Add(i, i*0x9e3779b97f4a7c15, uint8(i)|0x80)
		f.Add(i, i*0x9e3779b97f4a7c15, uint8(i)|0xf0)
	}
	f.Fuzz(func(t *testing.T, seedA, seedB uint64, kind uint8) {
		cfg := func(k uint8) dt.ClusterConfig {
			switch k % 3 {
			case 1:
				return dt.ClusterConfig{Healthy: true}
			case 2:
				return dt.ClusterConfig{Healthy: true, Rollout: true}
			}
			return dt.ClusterConfig{}
		}
		a := dt.GenerateCluster(rand.New(rand.NewPCG(seedA, 1)), cfg(kind)).Input()
		b := dt.GenerateCluster(rand.New(rand.NewPCG(seedB, 2)), cfg(kind/3)).Input()
		// A rollout policy on either writes facts on the Planner's nodes
		// (holds, ranks, domains, waves) that the other plan must not see.
		policy := daemon.RolloutPolicy{
			Order: daemon.UpdateOrder{Label: "kubernetes.io/hostname"}, Waves: &rollout.WaveBarrier{Bake: time.Minute},
			Scope:        &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "kubernetes.io/hostname", Operator: metav1.LabelSelectorOpExists}}},
			DomainBudget: &daemon.DomainBudget{Label: "kubernetes.io/hostname", MaxUnavailable: pios("1"), MaxSurge: pios("1")},
			Strict:       true,
		}
		if kind&0x40 != 0 {
			a.Options.Rollout = policy
		}
		if kind&0x80 != 0 {
			b.Options.Rollout = policy
		}
		// The standing of either is the plan's own: the other plan must not
		// change it.
		a.Options.ReportStanding = kind&0x20 != 0
		b.Options.ReportStanding = kind&0x10 != 0
		wantA, wantB := outcomeOf(a.Compute()), outcomeOf(b.Compute())
		p := daemon.NewPlanner()
		firstA := outcomeOf(p.Compute(a.DaemonSet, a.Nodes, a.Pods, a.Options))
		gotB := outcomeOf(p.Compute(b.DaemonSet, b.Nodes, b.Pods, b.Options))
		againA := outcomeOf(p.Compute(a.DaemonSet, a.Nodes, a.Pods, a.Options))
		for _, c := range []struct {
			name      string
			want, got planOutcome
		}{{"A", wantA, firstA}, {"B after A", wantB, gotB}, {"A after B", wantA, againA}} {
			if diff := diffOutcomes(c.want, c.got); diff != "" {
				t.Fatalf("%s: Planner.Compute differs from Compute (-Compute +Planner):\n%s", c.name, diff)
			}
		}
	})
}
