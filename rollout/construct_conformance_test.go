package rollout_test

import (
	"errors"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/daemonplan/daemonplan/rollout"
)

// TestConstructHistoryConformance replays the revision work of every
// conformance scenario in which upstream reached constructHistory (the
// DaemonSet is live and its selector is valid and not {}), and judges
// ConstructHistory and CleanupHistory by the rules of the conformance
// README: the hash, the created, updated and deleted revision names, the
// relabelled pods, and for a name collision the error and the bumped
// collisionCount. Claiming is re-stated here in a few lines (this leaf's
// tests do not import the selector package); its result is an input.
func TestConstructHistoryConformance(t *testing.T) {
	ran := map[string]int{}
	for _, fx := range loadHistoryFixtures(t) {
		ds, revs := decodeHistoryFixture(t, fx)
		sel, ok := conformanceSelector(ds)
		if !ok {
			continue
		}
		t.Run(fx.Scenario, func(t *testing.T) {
			exp := fx.Expected
			var pods []*corev1.Pod
			for _, p := range fx.Pods {
				pods = append(pods, p.pod())
			}
			claimedRevs := claimForTest(ds, sel, revs, func(r *appsv1.ControllerRevision) metav1.Object { return r }, false)
			claimedPods := claimForTest(ds, sel, pods, func(p *corev1.Pod) metav1.Object { return p }, true)

			h, err := rollout.ConstructHistory(ds, claimedRevs, revs, claimedPods)
			if exp.isCollision() {
				ran["collision"]++
				var ce *rollout.CollisionError
				if !errors.As(err, &ce) {
					t.Fatalf("ConstructHistory() error = %v, want a *CollisionError (upstream: %s)", err, exp.Error)
				}
				if ce.Name != exp.RevisionsCreated[0] {
					t.Errorf("collision on %q, upstream tried to create %q", ce.Name, exp.RevisionsCreated[0])
				}
				if exp.CollisionCount == nil || h.Plan.CollisionCount == nil || *h.Plan.CollisionCount != *exp.CollisionCount {
					t.Errorf("Plan.CollisionCount = %v, upstream wrote %v", h.Plan.CollisionCount, exp.CollisionCount)
				}
				return
			}
			if err != nil {
				t.Fatalf("ConstructHistory() error = %v (upstream: %q)", err, exp.Error)
			}
			ran["history"]++
			if h.Hash != exp.Hash && !contains(exp.HashMay, h.Hash) {
				t.Errorf("Hash = %q, upstream %q (may %q)", h.Hash, exp.Hash, exp.HashMay)
			}
			var created []string
			if h.Plan.Create != nil {
				created = []string{h.Plan.Create.Name}
				if h.Current != h.Plan.Create {
					// Upstream sent the create, got AlreadyExists and went
					// on with the unclaimed revision with the same data.
					ran["reused"]++
				}
			}
			judgeNames(t, "created revisions", created, exp.RevisionsCreated, nil)
			judgeNames(t, "updated revisions", names(h.Plan.Update), exp.RevisionsUpdated, nil)
			var relabelled []string
			for _, p := range h.Plan.Relabel {
				relabelled = append(relabelled, p.Name)
			}
			judgeNames(t, "relabelled pods", relabelled, exp.Relabels, exp.RelabelsMay)

			deleted := names(h.Plan.Delete)
			if exp.Error == "" {
				// Upstream cleans up only when the rest of the sync succeeded.
				ran["cleanup"]++
				var live []*corev1.Pod
				for _, p := range claimedPods {
					if p.Spec.NodeName != "" { // the fixture's resolved target node
						live = append(live, p)
					}
				}
				deleted = append(deleted, names(rollout.CleanupHistory(ds, h.Old, live))...)
			}
			judgeNames(t, "deleted revisions", deleted, exp.RevisionsDeleted, exp.RevisionsDeletedMay)
		})
	}
	t.Logf("judged: %v", ran)
	if ran["history"] < 200 || ran["collision"] < 3 || ran["cleanup"] < 200 {
		t.Errorf("too few scenarios judged (%v): fixture selection broken?", ran)
	}
}

// judgeNames applies the README's rule want ⊆ got ⊆ want ∪ may, as sets.
func judgeNames(t *testing.T, what string, got, want, may []string) {
	t.Helper()
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("%s = %q, missing %q (upstream %q, may %q)", what, got, w, want, may)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) && !slices.Contains(may, g) {
			t.Errorf("%s = %q, unexpected %q (upstream %q, may %q)", what, got, g, want, may)
		}
	}
}

// conformanceSelector returns ds's selector when upstream would reach
// constructHistory: the DaemonSet is not being deleted and its selector is
// valid and not {}.
func conformanceSelector(ds *appsv1.DaemonSet) (labels.Selector, bool) {
	if ds.DeletionTimestamp != nil || ds.Spec.Selector == nil ||
		(len(ds.Spec.Selector.MatchLabels) == 0 && len(ds.Spec.Selector.MatchExpressions) == 0) {
		return nil, false
	}
	sel, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector)
	return sel, err == nil
}

// claimForTest is the claim rule of upstream's controller-ref managers for
// a live owner: objects of the owner's namespace controlled by it (by UID;
// for pods also by kind and name) are claimed while the selector matches
// them; orphans that match and are not being deleted are adopted.
func claimForTest[T any](ds *appsv1.DaemonSet, sel labels.Selector, objs []T, meta func(T) metav1.Object, strictKind bool) []T {
	var out []T
	for _, o := range objs {
		m := meta(o)
		if m.GetNamespace() != ds.Namespace {
			continue
		}
		matches := sel.Matches(labels.Set(m.GetLabels()))
		ref := metav1.GetControllerOfNoCopy(m)
		switch {
		case ref == nil:
			if matches && m.GetDeletionTimestamp() == nil {
				out = append(out, o)
			}
		case ref.UID == ds.UID && (!strictKind || (ref.Kind == "DaemonSet" && ref.Name == ds.Name)):
			if matches {
				out = append(out, o)
			}
		}
	}
	return out
}
