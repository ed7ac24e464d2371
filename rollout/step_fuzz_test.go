package rollout_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonplan/daemonplan/rollout"
)

// fuzzBytes hands out the fuzzer's bytes one decision at a time, then
// zeros.
type fuzzBytes []byte

func (b *fuzzBytes) next(n int) int {
	if len(*b) == 0 {
		return 0
	}
	v := int((*b)[0])
	*b = (*b)[1:]
	return v % n
}

// fuzzBudgets are the budget values the fuzzer picks from: valid, zero,
// negative, above 100% and unparsable.
var fuzzBudgets = []*intstr.IntOrString{nil, ip(0), ip(1), ip(2), ip(5), ip(-1), sp("0%"), sp("25%"), sp("50%"), sp("100%"), sp("150%"), sp("x")}

// stepInput decodes a DaemonSet and nodes from data: up to 12 nodes with
// names from a small alphabet (duplicates and "" included), each eligible
// or not, missing or not, with 0 to 3 pods of every kind (nil entries
// too), and their states judged beforehand or not.
func stepInput(data []byte) (*appsv1.DaemonSet, []rollout.Node) {
	b := fuzzBytes(data)
	ds := stepDS(fuzzBudgets[b.next(len(fuzzBudgets))], fuzzBudgets[b.next(len(fuzzBudgets))])
	if b.next(8) == 0 {
		ds.Spec.UpdateStrategy.RollingUpdate = nil
	}
	ds.Spec.MinReadySeconds = int32(b.next(3)) * 1800 // 0, 30 min or 1 h: pods are ready for an hour
	names := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", ""}
	nodes := make([]rollout.Node, b.next(13))
	for i := range nodes {
		n := &nodes[i]
		n.Name = names[b.next(len(names))]
		n.ShouldRun = b.next(3) != 0
		n.Missing = b.next(6) == 0
		for j := range b.next(4) {
			kind := b.next(6)
			if kind == 5 {
				n.Pods = append(n.Pods, nil)
				continue
			}
			n.Pods = append(n.Pods, stepPod(fmt.Sprintf("%s-%d-%d", n.Name, i, j), n.Name, podKind(kind)))
		}
		if b.next(2) == 0 {
			n.States = make([]rollout.PodState, len(n.Pods))
			gen, _ := rollout.GetTemplateGeneration(ds)
			for k, pod := range n.Pods {
				n.States[k] = rollout.StateOf(pod, newHash, gen, ds.Spec.MinReadySeconds, stepNow)
			}
		}
	}
	return ds, nodes
}

// stepSeeds are the seeds of the step's fuzz targets.
var stepSeeds = [][]byte{
	{},
	{2, 0, 1, 5, 0, 2, 1, 0, 1, 0, 1, 0, 1, 2, 1, 1, 0},
	{7, 4, 0, 0, 12, 1, 1, 1, 0, 2, 2, 1, 1, 1, 3, 0, 1, 2},
	[]byte("a rollout over twelve nodes with surge"),
}

// FuzzRollingUpdate checks RollingUpdate on decoded input: it never
// panics; it fails exactly on empty or duplicate node names and invalid
// budgets; it modifies nothing; its step is the same under any order of
// the nodes and with idle nodes added; it deletes only live pods of the
// node named, at most one per node, never a new pod; and it replaces
// available old pods only within the budget left (upstream's semantics: pods
// that are not available are replaced outside the budget).
func FuzzRollingUpdate(f *testing.F) {
	for _, seed := range stepSeeds {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ds, nodes := stepInput(data)
		before := deepCopyNodes(nodes)
		step, err := rollout.RollingUpdate(ds, nodes, newHash, stepNow)
		if !reflect.DeepEqual(before, nodes) {
			t.Fatal("RollingUpdate modified its nodes")
		}
		switch {
		case badNames(nodes) || budgetError(ds):
			if err == nil {
				t.Fatal("no error for a bad node name or budget")
			}
			return
		case err != nil && !surgeOnMissing(nodes):
			t.Fatalf("unexpected error: %v", err)
		case err != nil:
			return
		}

		// Order and idle nodes do not matter.
		shuffled := slices.Clone(nodes)
		r := rand.New(rand.NewPCG(uint64(len(data)), 7))
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		shuffled = append(shuffled, rollout.Node{Name: "zz-idle"}, rollout.Node{Name: "zz-missing-idle", Missing: true, Pods: []*corev1.Pod{nil}})
		again, err := rollout.RollingUpdate(ds, shuffled, newHash, stepNow)
		if err != nil {
			t.Fatalf("shuffled: %v", err)
		}
		if !reflect.DeepEqual(step, again) {
			t.Fatalf("step depends on node order or idle nodes:\n%+v\n%+v", step, again)
		}
		checkStep(t, ds, nodes, step)
	})
}

// checkStep judges a step against its input.
func checkStep(t *testing.T, ds *appsv1.DaemonSet, nodes []rollout.Node, step rollout.Step) {
	t.Helper()
	byName := map[string]*rollout.Node{}
	desired := 0
	for i := range nodes {
		byName[nodes[i].Name] = &nodes[i]
		if nodes[i].ShouldRun && !nodes[i].Missing {
			desired++
		}
	}
	if ds.Spec.UpdateStrategy.Type != appsv1.RollingUpdateDaemonSetStrategyType {
		return
	}
	if step.Desired != desired {
		t.Fatalf("Desired %d, want %d", step.Desired, desired)
	}
	deleted := map[string]bool{}
	replaced := 0
	for _, d := range step.Deletes {
		n := byName[d.NodeName]
		if n == nil || d.Pod == nil || !slices.Contains(n.Pods, d.Pod) {
			t.Fatalf("delete %+v: not a pod of that node", d)
		}
		if d.Pod.DeletionTimestamp != nil || rollout.IsPodUpdated(d.Pod, newHash, nil) {
			t.Fatalf("delete of %s: being deleted or new", d.Pod.Name)
		}
		if deleted[d.NodeName] {
			t.Fatalf("two deletes on node %s", d.NodeName)
		}
		deleted[d.NodeName] = true
		if d.Reason == rollout.ReasonRollingUpdate {
			replaced++
		}
	}
	if step.MaxSurge == 0 {
		if len(step.Creates) > 0 {
			t.Fatalf("creates without surge: %+v", step.Creates)
		}
		if room := max(step.MaxUnavailable-step.NumUnavailable, 0); replaced > room {
			t.Fatalf("%d available old pods deleted, budget left %d", replaced, room)
		}
		return
	}
	surged := 0
	for _, c := range step.Creates {
		n := byName[c.NodeName]
		if n == nil || n.Missing || !n.ShouldRun {
			t.Fatalf("create on %q: not an eligible node", c.NodeName)
		}
		if c.Reason == rollout.ReasonSurge {
			surged++
		}
	}
	if room := max(step.MaxSurge-step.NumSurge, 0); surged > room {
		t.Fatalf("%d surge creates, budget left %d", surged, room)
	}
}

func deepCopyNodes(nodes []rollout.Node) []rollout.Node {
	out := slices.Clone(nodes)
	for i := range out {
		if nodes[i].Pods == nil {
			continue
		}
		out[i].Pods = make([]*corev1.Pod, len(nodes[i].Pods))
		for j, p := range nodes[i].Pods {
			out[i].Pods[j] = p.DeepCopy()
		}
		out[i].States = slices.Clone(nodes[i].States)
	}
	return out
}

// badNames reports an empty or repeated node name.
func badNames(nodes []rollout.Node) bool {
	names := make([]string, len(nodes))
	for i, n := range nodes {
		names[i] = n.Name
	}
	slices.Sort(names)
	return slices.Contains(names, "") || len(slices.Compact(names)) != len(names)
}

// budgetError reports whether the budgets of ds cannot be scaled.
func budgetError(ds *appsv1.DaemonSet) bool {
	_, errU := rollout.UnavailableCount(ds, 1)
	_, errS := rollout.SurgeCount(ds, 1)
	return cmp.Or(errU, errS) != nil
}

// surgeOnMissing reports a missing node holding a live pod: the surge
// step fails on one with an old pod and no new one.
func surgeOnMissing(nodes []rollout.Node) bool {
	for _, n := range nodes {
		if n.Missing && slices.ContainsFunc(n.Pods, func(p *corev1.Pod) bool { return p != nil && p.DeletionTimestamp == nil }) {
			return true
		}
	}
	return false
}
