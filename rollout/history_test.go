package rollout_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/rollout"
)

// limitDS returns the history DaemonSet with revisionHistoryLimit limit
// (nil: unset).
func limitDS(limit *int32) *appsv1.DaemonSet {
	ds := histDS("registry.example/agent:v9")
	ds.Spec.RevisionHistoryLimit = limit
	return ds
}

// oldRevs returns old revisions agent-r<n> numbered n, hash label h<n>.
func oldRevs(numbers ...int64) []*appsv1.ControllerRevision {
	var out []*appsv1.ControllerRevision
	for _, n := range numbers {
		name := fmt.Sprintf("r%d", n)
		out = append(out, histRev("agent-"+name, n, []byte("{}"), "h-"+name))
	}
	return out
}

func names(revs []*appsv1.ControllerRevision) []string {
	var out []string
	for _, r := range revs {
		out = append(out, r.Name)
	}
	return out
}

func TestCleanupHistory(t *testing.T) {
	twelve := oldRevs(12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1)
	tests := []struct {
		name     string
		ds       *appsv1.DaemonSet
		old      []*appsv1.ControllerRevision
		livePods []*corev1.Pod
		want     []string
	}{
		{name: "a nil DaemonSet deletes nothing", ds: nil, old: oldRevs(1, 2, 3)},
		{name: "no old revisions deletes nothing", ds: limitDS(int32Ptr(0))},
		{name: "limit 0 deletes every old revision", ds: limitDS(int32Ptr(0)), old: oldRevs(3, 1, 2), want: []string{"agent-r1", "agent-r2", "agent-r3"}},
		{name: "limit 1 keeps the newest", ds: limitDS(int32Ptr(1)), old: oldRevs(3, 1, 2), want: []string{"agent-r1", "agent-r2"}},
		{name: "a limit equal to the count deletes nothing", ds: limitDS(int32Ptr(3)), old: oldRevs(3, 1, 2)},
		{name: "limit 10 of 12 deletes the two oldest", ds: limitDS(int32Ptr(10)), old: twelve, want: []string{"agent-r1", "agent-r2"}},
		{name: "a nil limit means 10", ds: limitDS(nil), old: twelve, want: []string{"agent-r1", "agent-r2"}},
		{name: "a negative limit counts as 0", ds: limitDS(int32Ptr(-5)), old: oldRevs(1, 2), want: []string{"agent-r1", "agent-r2"}},
		{
			name: "live hashes are spared and the next oldest goes instead",
			ds:   limitDS(int32Ptr(1)), old: oldRevs(1, 2, 3, 4),
			livePods: []*corev1.Pod{hashPod("a", "h-r1"), hashPod("b", "h-r3")},
			want:     []string{"agent-r2", "agent-r4"},
		},
		{
			name: "when live hashes protect too many, fewer are deleted",
			ds:   limitDS(int32Ptr(0)), old: oldRevs(1, 2),
			livePods: []*corev1.Pod{hashPod("a", "h-r1"), hashPod("b", "h-r2")},
		},
		{
			name: "empty hash labels are never live",
			ds:   limitDS(int32Ptr(0)),
			old: func() []*appsv1.ControllerRevision {
				r := oldRevs(1)
				r[0].Labels[revHashKey] = ""
				return r
			}(),
			livePods: []*corev1.Pod{hashPod("a", ""), hashPod("b", noHashLabel)},
			want:     []string{"agent-r1"},
		},
		{
			name: "equal revision numbers go by name",
			ds:   limitDS(int32Ptr(1)),
			old: []*appsv1.ControllerRevision{
				histRev("agent-c", 1, nil, "c"), histRev("agent-a", 1, nil, "a"), histRev("agent-b", 1, nil, "b"),
			},
			want: []string{"agent-a", "agent-b"},
		},
		{
			name: "the result is sorted by name, not by revision",
			ds:   limitDS(int32Ptr(1)),
			old:  []*appsv1.ControllerRevision{histRev("agent-z", 1, nil, "z"), histRev("agent-a", 2, nil, "a"), histRev("agent-m", 3, nil, "m")},
			want: []string{"agent-a", "agent-z"},
		},
		{
			name:     "nil revisions and pods are skipped and do not count",
			ds:       limitDS(int32Ptr(2)),
			old:      append([]*appsv1.ControllerRevision{nil, nil, nil}, oldRevs(1, 2)...),
			livePods: []*corev1.Pod{nil},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := rollout.CleanupHistory(tt.ds, tt.old, tt.livePods)
			if diff := cmp.Diff(tt.want, names(got), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("CleanupHistory() mismatch (-want +got):\n%s", diff)
			}
			for _, r := range got {
				found := false
				for _, o := range tt.old {
					found = found || o == r
				}
				if !found {
					t.Errorf("CleanupHistory() returned %s, not one of the caller's pointers", r.Name)
				}
			}
		})
	}
}

func TestHistoryLimit(t *testing.T) {
	i32 := func(v int32) *int32 { return &v }
	tests := []struct {
		name string
		ds   *appsv1.DaemonSet
		want int
	}{
		{name: "nil DaemonSet", ds: nil, want: rollout.DefaultRevisionHistoryLimit},
		{name: "unset", ds: limitDS(nil), want: rollout.DefaultRevisionHistoryLimit},
		{name: "zero", ds: limitDS(i32(0)), want: 0},
		{name: "one", ds: limitDS(i32(1)), want: 1},
		{name: "negative counts as zero", ds: limitDS(i32(-3)), want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := rollout.HistoryLimit(tt.ds); got != tt.want {
				t.Errorf("HistoryLimit() = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestCleanupHistoryDoesNotModifyInput(t *testing.T) {
	ds := limitDS(int32Ptr(1))
	old := oldRevs(4, 2, 3, 1)
	pods := []*corev1.Pod{hashPod("a", "h-r2"), nil}
	before := []any{ds.DeepCopy(), deepCopyRevisions(old), deepCopyPods(pods)}
	_ = rollout.CleanupHistory(ds, old, pods)
	if diff := cmp.Diff(before, []any{ds, old, pods}); diff != "" {
		t.Errorf("CleanupHistory() modified its input (-before +after):\n%s", diff)
	}
}

func TestHistoryPlanIsZero(t *testing.T) {
	rev := histRev("r", 1, nil, "h")
	tests := []struct {
		name string
		plan rollout.HistoryPlan
		want bool
	}{
		{name: "the zero plan is zero", want: true},
		{name: "empty non-nil slices are zero", plan: rollout.HistoryPlan{Update: []*appsv1.ControllerRevision{}, Relabel: []*corev1.Pod{}}, want: true},
		{name: "a create is not zero", plan: rollout.HistoryPlan{Create: rev}},
		{name: "an update is not zero", plan: rollout.HistoryPlan{Update: []*appsv1.ControllerRevision{rev}}},
		{name: "a delete is not zero", plan: rollout.HistoryPlan{Delete: []*appsv1.ControllerRevision{rev}}},
		{name: "a relabel is not zero", plan: rollout.HistoryPlan{Relabel: []*corev1.Pod{hashPod("p", "h")}}},
		{name: "an adoption is not zero", plan: rollout.HistoryPlan{Adopt: []*appsv1.ControllerRevision{rev}}},
		{name: "a release is not zero", plan: rollout.HistoryPlan{Release: []*appsv1.ControllerRevision{rev}}},
		{name: "a collision count, even 0, is not zero", plan: rollout.HistoryPlan{CollisionCount: int32Ptr(0)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.plan.IsZero(); got != tt.want {
				t.Errorf("IsZero() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCollisionError(t *testing.T) {
	var err error = &rollout.CollisionError{Name: "agent-5d8f", CollisionCount: 2}
	want := `controllerrevision "agent-5d8f" already exists with different data; status.collisionCount must become 2`
	if got := err.Error(); got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	var ce *rollout.CollisionError
	if !errors.As(err, &ce) || ce.CollisionCount != 2 {
		t.Errorf("errors.As() did not recover the CollisionError")
	}
}

func TestPodsToRelabel(t *testing.T) {
	a, b, none, old := hashPod("a", "h1"), hashPod("b", "h1"), hashPod("c-none", noHashLabel), hashPod("d-old", "h0")
	twin := hashPod("d-old", "h0")
	twin.UID = "uid-0" // same name, lower UID: comes first
	empty := hashPod("e-empty", "")
	tests := []struct {
		name string
		pods []*corev1.Pod
		hash string
		want []*corev1.Pod
	}{
		{name: "no pods", hash: "h1", want: nil},
		{name: "every pod carries the hash", pods: []*corev1.Pod{b, a}, hash: "h1", want: nil},
		{
			name: "other hashes, no label and an empty label, in name then UID order; nil skipped",
			pods: []*corev1.Pod{old, nil, empty, b, none, a, twin},
			hash: "h1",
			want: []*corev1.Pod{none, twin, old, empty},
		},
		{name: "the empty hash keeps pods with an empty label", pods: []*corev1.Pod{empty, a}, hash: "", want: []*corev1.Pod{a}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := slices.Clone(tt.pods)
			got := rollout.PodsToRelabel(tt.pods, tt.hash)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("PodsToRelabel (-want,+got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tt.pods); diff != "" {
				t.Errorf("PodsToRelabel modified its input (-before,+after):\n%s", diff)
			}
		})
	}
}
