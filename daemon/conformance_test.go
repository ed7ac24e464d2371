package daemon_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/internal/scenario"
)

// conformanceDir holds the scenarios recorded from kube-controller-manager
// v1.36.3: each is what upstream did in one sync. See its README.md.
const conformanceDir = "testdata/conformance"

// conformanceShuffles is how many seeded permutations of each scenario's
// nodes, pods and revisions TestConformanceShuffled tries.
const conformanceShuffles = 3

// conformancePlanOptions compare two plans completely: the unexported
// fields of this module's types (such as the backoff state) included.
var conformancePlanOptions = cmp.Options{
	cmp.Exporter(func(t reflect.Type) bool {
		return strings.HasPrefix(t.PkgPath(), "github.com/daemonplan/daemonplan/")
	}),
}

// conformanceInputs are the inputs of one Compute call.
type conformanceInputs struct {
	DaemonSet *appsv1.DaemonSet
	Nodes     []*corev1.Node
	Pods      []*corev1.Pod
	Revisions []*appsv1.ControllerRevision
}

// deepCopy returns a copy of in sharing nothing with it; nil entries and a
// nil Revisions stay nil.
func (in conformanceInputs) deepCopy() conformanceInputs {
	out := conformanceInputs{DaemonSet: in.DaemonSet.DeepCopy()}
	if in.Nodes != nil {
		out.Nodes = make([]*corev1.Node, len(in.Nodes))
		for i, n := range in.Nodes {
			out.Nodes[i] = n.DeepCopy()
		}
	}
	if in.Pods != nil {
		out.Pods = make([]*corev1.Pod, len(in.Pods))
		for i, p := range in.Pods {
			out.Pods[i] = p.DeepCopy()
		}
	}
	if in.Revisions != nil {
		out.Revisions = make([]*appsv1.ControllerRevision, len(in.Revisions))
		for i, r := range in.Revisions {
			out.Revisions[i] = r.DeepCopy()
		}
	}
	return out
}

// computeRecovering runs daemon.Compute on in at now and turns a panic into
// a message with its stack, so that one broken scenario does not end the
// run. panicked is "" when Compute returned.
func computeRecovering(in conformanceInputs, s *scenario.Scenario) (plan daemon.Plan, err error, panicked string) {
	defer func() {
		if r := recover(); r != nil {
			panicked = fmt.Sprintf("%v\n%s", r, debug.Stack())
		}
	}()
	plan, err = daemon.Compute(in.DaemonSet, in.Nodes, in.Pods, daemon.Options{Now: s.Now, Revisions: in.Revisions})
	return plan, err, ""
}

func loadConformanceScenarios(t *testing.T) []*scenario.Scenario {
	t.Helper()
	all, err := scenario.LoadDir(conformanceDir)
	if err != nil {
		t.Fatalf("loading the conformance scenarios: %v", err)
	}
	return all
}

// TestConformance runs Compute on every recorded scenario and judges the
// outcome against what upstream did (scenario.Judge). It also checks that
// Compute left its inputs as it found them.
func TestConformance(t *testing.T) {
	all := loadConformanceScenarios(t)
	pass := 0
	for _, s := range all {
		ok := t.Run(s.Name, func(t *testing.T) {
			in := conformanceInputs{DaemonSet: s.DaemonSet, Nodes: s.Nodes, Pods: s.Pods, Revisions: s.Revisions}
			before := in.deepCopy()
			plan, err, panicked := computeRecovering(in, s)
			if panicked != "" {
				t.Fatalf("Compute() panicked (tags %v): %s", s.Tags, panicked)
			}
			if lines := scenario.Judge(s, plan, err); len(lines) > 0 {
				t.Errorf("Compute() does not conform (tags %v, error %v):\n%s", s.Tags, err, strings.Join(lines, "\n"))
			}
			// reflect.DeepEqual is the fast path; cmp.Diff decides, since it
			// compares quantities by value and not by their cached text.
			if !reflect.DeepEqual(before, in) {
				if diff := cmp.Diff(before, in); diff != "" {
					t.Errorf("Compute() modified its inputs (-before +after):\n%s", diff)
				}
			}
		})
		if ok {
			pass++
		}
	}
	t.Logf("conformance: %d/%d scenarios pass", pass, len(all))
}

// permuteInputs returns a copy of in whose node, pod and revision slices are
// permuted by r; the objects are shared. A nil Revisions stays nil.
func permuteInputs(in conformanceInputs, r *rand.Rand) conformanceInputs {
	out := conformanceInputs{
		DaemonSet: in.DaemonSet,
		Nodes:     slices.Clone(in.Nodes),
		Pods:      slices.Clone(in.Pods),
		Revisions: slices.Clone(in.Revisions),
	}
	r.Shuffle(len(out.Nodes), func(i, j int) { out.Nodes[i], out.Nodes[j] = out.Nodes[j], out.Nodes[i] })
	r.Shuffle(len(out.Pods), func(i, j int) { out.Pods[i], out.Pods[j] = out.Pods[j], out.Pods[i] })
	r.Shuffle(len(out.Revisions), func(i, j int) { out.Revisions[i], out.Revisions[j] = out.Revisions[j], out.Revisions[i] })
	return out
}

// TestConformanceShuffled checks that the plan of every recorded scenario,
// error text included, does not depend on the order of nodes, pods and
// revisions: a few seeded permutations must give exactly the plan of the
// file order.
func TestConformanceShuffled(t *testing.T) {
	all := loadConformanceScenarios(t)
	for si, s := range all {
		t.Run(s.Name, func(t *testing.T) {
			in := conformanceInputs{DaemonSet: s.DaemonSet, Nodes: s.Nodes, Pods: s.Pods, Revisions: s.Revisions}
			want, wantErr, panicked := computeRecovering(in, s)
			if panicked != "" {
				t.Fatalf("Compute() panicked on the file order: %s", panicked)
			}
			r := rand.New(rand.NewPCG(20250601, uint64(si)))
			for i := range conformanceShuffles {
				got, gotErr, panicked := computeRecovering(permuteInputs(in, r), s)
				if panicked != "" {
					t.Fatalf("permutation %d: Compute() panicked: %s", i, panicked)
				}
				if conformanceErrText(gotErr) != conformanceErrText(wantErr) {
					t.Errorf("permutation %d: error = %q, file order gave %q", i, conformanceErrText(gotErr), conformanceErrText(wantErr))
				}
				if diff := cmp.Diff(want, got, conformancePlanOptions); diff != "" {
					t.Errorf("permutation %d: plan differs from the file order's (-file order +permuted):\n%s", i, diff)
				}
			}
		})
	}
}

// conformanceErrText returns err's text, or "<nil>".
func conformanceErrText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}
