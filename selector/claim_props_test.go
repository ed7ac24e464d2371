package selector_test

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/selector"
)

func TestClaimPodsInputUnchanged(t *testing.T) {
	for _, tt := range claimCases() {
		t.Run(tt.name, func(t *testing.T) {
			pods := tt.pods()
			before := deepCopyPods(pods)
			_ = selector.ClaimPods(tt.owner, tt.sel, pods)
			if diff := cmp.Diff(before, pods); diff != "" {
				t.Errorf("ClaimPods() modified its input (-before +after):\n%s", diff)
			}
		})
	}
}

func TestClaimRevisionsInputUnchanged(t *testing.T) {
	for _, tt := range claimCases() {
		t.Run(tt.name, func(t *testing.T) {
			revs := tt.revs()
			before := deepCopyRevs(revs)
			_ = selector.ClaimRevisions(tt.owner, tt.sel, revs)
			if diff := cmp.Diff(before, revs); diff != "" {
				t.Errorf("ClaimRevisions() modified its input (-before +after):\n%s", diff)
			}
		})
	}
}

func TestClaimPodsReturnsCallerPointers(t *testing.T) {
	owned := newPod("a", ownedByTestOwner())
	orphan := newPod("b")
	stale := newPod("c", ownedByTestOwner(), labelled(map[string]string{"app": "other"}))
	got := selector.ClaimPods(testOwner, appSelector(), []*corev1.Pod{stale, orphan, owned})
	if len(got.Claimed) != 2 || got.Claimed[0] != owned || got.Claimed[1] != orphan {
		t.Errorf("Claimed = %v, want the caller's pointers [a b]", podNames(got.Claimed))
	}
	if len(got.Adopt) != 1 || got.Adopt[0] != orphan {
		t.Errorf("Adopt = %v, want the caller's pointer [b]", podNames(got.Adopt))
	}
	if len(got.Release) != 1 || got.Release[0] != stale {
		t.Errorf("Release = %v, want the caller's pointer [c]", podNames(got.Release))
	}
}

func TestClaimPodsPermutationInvariant(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 10, 500} {
		pods := randomPods(rng, n)
		want := selector.ClaimPods(testOwner, appSelector(), pods)
		if diff := cmp.Diff(oracleClaimPods(testOwner, appSelector(), pods), want); diff != "" {
			t.Fatalf("n=%d: ClaimPods() differs from the reference (-reference +got):\n%s", n, diff)
		}
		for round := range 5 {
			got := selector.ClaimPods(testOwner, appSelector(), shuffled(rng, pods))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("n=%d round %d: shuffled input changed the outcome (-want +got):\n%s", n, round, diff)
			}
		}
	}
}

func TestClaimRevisionsPermutationInvariant(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 2, 10, 500} {
		revs := podsAsRevisions(randomPods(rng, n))
		want := selector.ClaimRevisions(testOwner, appSelector(), revs)
		if diff := cmp.Diff(oracleClaimRevisions(testOwner, appSelector(), revs), want); diff != "" {
			t.Fatalf("n=%d: ClaimRevisions() differs from the reference (-reference +got):\n%s", n, diff)
		}
		for round := range 5 {
			got := selector.ClaimRevisions(testOwner, appSelector(), shuffled(rng, revs))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("n=%d round %d: shuffled input changed the outcome (-want +got):\n%s", n, round, diff)
			}
		}
	}
}

// TestClaimPodsAllocs locks the allocation budget: two scratch blocks and
// the three result slices, whatever the number of pods.
func TestClaimPodsAllocs(t *testing.T) {
	pods := randomPods(rand.New(rand.NewPCG(5, 6)), 2000)
	sel := appSelector()
	for _, tc := range []struct {
		name   string
		pods   []*corev1.Pod
		budget float64
	}{
		{"no pods allocate nothing", nil, 0},
		{"one ignored pod allocates only the verdict block", []*corev1.Pod{newPod("x", inNamespace("default"))}, 1},
		{"2000 mixed pods allocate at most five blocks", pods, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := testing.AllocsPerRun(20, func() { _ = selector.ClaimPods(testOwner, sel, tc.pods) })
			if got > tc.budget {
				t.Errorf("ClaimPods() allocs = %v, want <= %v", got, tc.budget)
			}
		})
	}
}

func TestClaimRevisionsAllocs(t *testing.T) {
	revs := podsAsRevisions(randomPods(rand.New(rand.NewPCG(7, 8)), 2000))
	sel := appSelector()
	got := testing.AllocsPerRun(20, func() { _ = selector.ClaimRevisions(testOwner, sel, revs) })
	if got > 5 {
		t.Errorf("ClaimRevisions() allocs = %v, want <= 5", got)
	}
}

func deepCopyPods(pods []*corev1.Pod) []*corev1.Pod {
	if pods == nil {
		return nil
	}
	out := make([]*corev1.Pod, len(pods))
	for i, p := range pods {
		out[i] = p.DeepCopy() // nil stays nil
	}
	return out
}

func deepCopyRevs(revs []*appsv1.ControllerRevision) []*appsv1.ControllerRevision {
	if revs == nil {
		return nil
	}
	out := make([]*appsv1.ControllerRevision, len(revs))
	for i, r := range revs {
		out[i] = r.DeepCopy()
	}
	return out
}

// podsAsRevisions returns revisions with the pods' metadata.
func podsAsRevisions(pods []*corev1.Pod) []*appsv1.ControllerRevision {
	out := make([]*appsv1.ControllerRevision, len(pods))
	for i, p := range pods {
		if p != nil {
			out[i] = &appsv1.ControllerRevision{ObjectMeta: *p.ObjectMeta.DeepCopy(), Revision: int64(i)}
		}
	}
	return out
}
