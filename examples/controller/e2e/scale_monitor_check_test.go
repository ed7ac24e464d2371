package e2e

import (
	"fmt"
	"math/rand/v2"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// TestScaleMonitorMatchesChecks drives the scale monitor and the full
// checks (placementCheck from no pod, budgetCheck with one pod per node
// from a settled DaemonSet, as TestScale uses them) with the same random
// pod events: both must first see a violation at the same event, or
// neither; it needs no cluster.
func TestScaleMonitorMatchesChecks(t *testing.T) {
	desired := []string{"n1", "n2", "n3", "n4"}
	nodes := append([]string{"", "x1"}, desired...)
	for seed := range 2000 {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		budget := r.IntN(4) - 1 // -1: a fresh placement
		m := newScaleMonitor("agent", desired, budget)
		check := budgetCheck("agent", desired, budget, 1)
		if budget < 0 {
			check = placementCheck("agent", desired)
		}
		pods := map[string]*corev1.Pod{}
		if budget >= 0 {
			// A rollout starts settled: one available pod per desired
			// node.
			for _, n := range desired {
				p := testPod("settled-"+n, n, true, false)
				p.UID = types.UID(p.Name)
				pods[p.Name] = p
				m.observe(watch.Added, p)
			}
			m.violations = nil // on the way to settled
		}
		firstFull, firstInc := -1, -1
		for i := range 40 {
			var typ watch.EventType
			var p *corev1.Pod
			switch names := keys(pods); {
			case len(names) == 0 || r.IntN(3) == 0:
				p = testPod(fmt.Sprintf("p%d", i), nodes[r.IntN(len(nodes))], r.IntN(2) == 0, false)
				p.UID = types.UID(p.Name)
				if r.IntN(10) == 0 {
					p.Labels["app"] = "other"
				}
				typ = watch.Added
			case r.IntN(3) == 0:
				p, typ = pods[names[r.IntN(len(names))]], watch.Deleted
			default:
				p = pods[names[r.IntN(len(names))]].DeepCopy()
				p.Status.Conditions[0].Status = corev1.ConditionStatus(map[bool]string{true: "True", false: "False"}[r.IntN(2) == 0])
				if r.IntN(4) == 0 {
					p.DeletionTimestamp = p.CreationTimestamp.DeepCopy()
				}
				typ = watch.Modified
			}
			if typ == watch.Deleted {
				delete(pods, p.Name)
			} else {
				pods[p.Name] = p
			}
			m.observe(typ, p)
			if firstInc < 0 && len(m.violations) > 0 {
				firstInc = i
			}
			if firstFull < 0 && check(pods) != "" {
				firstFull = i
			}
		}
		if firstFull != firstInc {
			t.Errorf("seed %d, budget %d: the full check first fails at event %d, the scale monitor at %d (%q)", seed, budget, firstFull, firstInc, m.violations)
		}
	}
}

func keys(m map[string]*corev1.Pod) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	// Map order is random: sort for a deterministic draw.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
