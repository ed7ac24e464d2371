package rollout_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/rollout"
)

func TestConstructHistory(t *testing.T) {
	ds := histDS("registry.example/agent:v2")
	v1 := histDS("registry.example/agent:v1")
	v0 := histDS("registry.example/agent:v0")
	cur, old1, old0 := histData(t, ds), histData(t, v1), histData(t, v0)
	newHash := rollout.ComputeHash(&ds.Spec.Template, nil)
	newName := "agent-" + newHash

	annotated := histDS("registry.example/agent:v2")
	annotated.Annotations = map[string]string{"note": "kept"}
	collided := histDS("registry.example/agent:v2")
	collided.Status.CollisionCount = int32Ptr(3)
	collidedName := "agent-" + rollout.ComputeHash(&collided.Spec.Template, collided.Status.CollisionCount)
	sameRev := histRev("agent-v2", 2, cur, "v2")
	// Two objects with one name, the first given twice; dupA sorts first.
	dupA, dupB := histRev("agent-v2", 2, cur, "v2"), histRev("agent-v2", 1, old1, "v1")
	dupA.UID, dupB.UID = "uid-a", "uid-b"

	tests := []struct {
		name          string
		ds            *appsv1.DaemonSet
		claimed, inNS []*appsv1.ControllerRevision
		pods          []*corev1.Pod
		want          rollout.History
		wantErr       error
	}{
		{
			name: "no revisions creates revision 1",
			ds:   ds,
			want: rollout.History{
				Hash: newHash, Current: expectedNewRevision(t, ds, 1),
				Plan: rollout.HistoryPlan{Create: expectedNewRevision(t, ds, 1)},
			},
		},
		{
			name: "the new revision copies the annotations",
			ds:   annotated,
			want: rollout.History{
				Hash: newHash, Current: expectedNewRevision(t, annotated, 1),
				Plan: rollout.HistoryPlan{Create: expectedNewRevision(t, annotated, 1)},
			},
		},
		{
			name:    "only old revisions: create above the highest, Old sorted by revision",
			ds:      ds,
			claimed: []*appsv1.ControllerRevision{histRev("agent-v1", 4, old1, "v1"), histRev("agent-v0", 1, old0, "v0")},
			want: rollout.History{
				Hash: newHash, Current: expectedNewRevision(t, ds, 5),
				Old:  []*appsv1.ControllerRevision{histRev("agent-v0", 1, old0, "v0"), histRev("agent-v1", 4, old1, "v1")},
				Plan: rollout.HistoryPlan{Create: expectedNewRevision(t, ds, 5)},
			},
		},
		{
			name:    "old revisions with negative numbers count as 0",
			ds:      ds,
			claimed: []*appsv1.ControllerRevision{histRev("agent-v1", -4, old1, "v1")},
			want: rollout.History{
				Hash: newHash, Current: expectedNewRevision(t, ds, 1),
				Old:  []*appsv1.ControllerRevision{histRev("agent-v1", -4, old1, "v1")},
				Plan: rollout.HistoryPlan{Create: expectedNewRevision(t, ds, 1)},
			},
		},
		{
			name:    "a current revision with the highest number is a no-op",
			ds:      ds,
			claimed: []*appsv1.ControllerRevision{histRev("agent-v1", 1, old1, "v1"), histRev("agent-v2", 2, cur, "v2")},
			want: rollout.History{
				Hash: "v2", Current: histRev("agent-v2", 2, cur, "v2"),
				Old: []*appsv1.ControllerRevision{histRev("agent-v1", 1, old1, "v1")},
			},
		},
		{
			name:    "a current revision numbered below an old one is bumped",
			ds:      ds,
			claimed: []*appsv1.ControllerRevision{histRev("agent-v1", 5, old1, "v1"), histRev("agent-v2", 3, cur, "v2")},
			want: rollout.History{
				Hash: "v2", Current: histRev("agent-v2", 6, cur, "v2"),
				Old:  []*appsv1.ControllerRevision{histRev("agent-v1", 5, old1, "v1")},
				Plan: rollout.HistoryPlan{Update: []*appsv1.ControllerRevision{histRev("agent-v2", 6, cur, "v2")}},
			},
		},
		{
			name:    "a current revision numbered equal to an old one is bumped",
			ds:      ds,
			claimed: []*appsv1.ControllerRevision{histRev("agent-v1", 3, old1, "v1"), histRev("agent-v2", 3, cur, "v2")},
			want: rollout.History{
				Hash: "v2", Current: histRev("agent-v2", 4, cur, "v2"),
				Old:  []*appsv1.ControllerRevision{histRev("agent-v1", 3, old1, "v1")},
				Plan: rollout.HistoryPlan{Update: []*appsv1.ControllerRevision{histRev("agent-v2", 4, cur, "v2")}},
			},
		},
		{
			name:    "an old revision without the hash label gets its name as label",
			ds:      ds,
			claimed: []*appsv1.ControllerRevision{withoutHashLabel(histRev("agent-v1", 1, old1, "")), histRev("agent-v2", 2, cur, "v2")},
			want: rollout.History{
				Hash: "v2", Current: histRev("agent-v2", 2, cur, "v2"),
				Old:  []*appsv1.ControllerRevision{relabelled(histRev("agent-v1", 1, old1, ""))},
				Plan: rollout.HistoryPlan{Update: []*appsv1.ControllerRevision{relabelled(histRev("agent-v1", 1, old1, ""))}},
			},
		},
		{
			name: "a revision with nil labels gets a new label map",
			ds:   ds,
			claimed: []*appsv1.ControllerRevision{func() *appsv1.ControllerRevision {
				r := histRev("agent-v2", 1, cur, "")
				r.Labels = nil
				return r
			}()},
			want: func() rollout.History {
				r := histRev("agent-v2", 1, cur, "agent-v2")
				r.Labels = map[string]string{revHashKey: "agent-v2"}
				return rollout.History{Hash: "agent-v2", Current: r, Plan: rollout.HistoryPlan{Update: []*appsv1.ControllerRevision{r}}}
			}(),
		},
		{
			name:    "an empty hash label counts as present, and is the hash",
			ds:      ds,
			claimed: []*appsv1.ControllerRevision{histRev("agent-v2", 1, cur, "")},
			want:    rollout.History{Hash: "", Current: histRev("agent-v2", 1, cur, "")},
		},
		{
			name:    "a current revision missing the label and numbered low is updated once with both changes",
			ds:      ds,
			claimed: []*appsv1.ControllerRevision{histRev("agent-v1", 7, old1, "v1"), withoutHashLabel(histRev("agent-v2", 2, cur, ""))},
			want: rollout.History{
				Hash: "agent-v2", Current: renumbered(relabelled(histRev("agent-v2", 2, cur, "")), 8),
				Old:  []*appsv1.ControllerRevision{histRev("agent-v1", 7, old1, "v1")},
				Plan: rollout.HistoryPlan{Update: []*appsv1.ControllerRevision{renumbered(relabelled(histRev("agent-v2", 2, cur, "")), 8)}},
			},
		},
		{
			name: "duplicate current revisions: keep the highest, delete the rest, relabel pods",
			ds:   ds,
			claimed: []*appsv1.ControllerRevision{
				histRev("agent-a", 3, cur, "a"), histRev("agent-b", 5, cur, "b"), histRev("agent-v1", 4, old1, "v1"),
			},
			pods: []*corev1.Pod{
				hashPod("p-new", "b"), hashPod("p-dup", "a"), nil, hashPod("p-old", "v1"), hashPod("p-none", noHashLabel),
			},
			want: rollout.History{
				Hash: "b", Current: histRev("agent-b", 5, cur, "b"),
				Old: []*appsv1.ControllerRevision{histRev("agent-v1", 4, old1, "v1")},
				Plan: rollout.HistoryPlan{
					Delete:  []*appsv1.ControllerRevision{histRev("agent-a", 3, cur, "a")},
					Relabel: []*corev1.Pod{hashPod("p-dup", "a"), hashPod("p-none", noHashLabel), hashPod("p-old", "v1")},
				},
			},
		},
		{
			name: "duplicate current revisions with equal numbers keep the lowest name, then bump it",
			ds:   ds,
			claimed: []*appsv1.ControllerRevision{
				histRev("agent-z", 2, cur, "z"), histRev("agent-m", 2, cur, "m"), histRev("agent-v1", 2, old1, "v1"),
			},
			pods: []*corev1.Pod{hashPod("p1", "z"), hashPod("p2", "m")},
			want: rollout.History{
				Hash: "m", Current: histRev("agent-m", 3, cur, "m"),
				Old: []*appsv1.ControllerRevision{histRev("agent-v1", 2, old1, "v1")},
				Plan: rollout.HistoryPlan{
					Update:  []*appsv1.ControllerRevision{histRev("agent-m", 3, cur, "m")},
					Delete:  []*appsv1.ControllerRevision{histRev("agent-z", 2, cur, "z")},
					Relabel: []*corev1.Pod{hashPod("p1", "z")},
				},
			},
		},
		{
			name: "a deleted duplicate missing its label is labelled, then deleted, as upstream",
			ds:   ds,
			claimed: []*appsv1.ControllerRevision{
				histRev("agent-b", 5, cur, "b"), withoutHashLabel(histRev("agent-a", 3, cur, "")),
			},
			want: rollout.History{
				Hash: "b", Current: histRev("agent-b", 5, cur, "b"),
				Plan: rollout.HistoryPlan{
					Update: []*appsv1.ControllerRevision{histRev("agent-a", 3, cur, "agent-a")},
					Delete: []*appsv1.ControllerRevision{withoutHashLabel(histRev("agent-a", 3, cur, ""))},
				},
			},
		},
		{
			name:    "the new name taken by a revision with the same data: reuse it, whatever its owner, after the create upstream still sends",
			ds:      ds,
			claimed: []*appsv1.ControllerRevision{histRev("agent-v1", 9, old1, "v1")},
			inNS:    []*appsv1.ControllerRevision{histRev("agent-v1", 9, old1, "v1"), histRev(newName, 2, cur, "theirs")},
			want: rollout.History{
				Hash: "theirs", Current: histRev(newName, 2, cur, "theirs"),
				Old: []*appsv1.ControllerRevision{histRev("agent-v1", 9, old1, "v1")},
				// Upstream still sends the create and shrugs off AlreadyExists.
				Plan: rollout.HistoryPlan{Create: expectedNewRevision(t, ds, 10)},
			},
		},
		{
			name: "a reused revision without a hash label gives an empty hash",
			ds:   ds,
			inNS: []*appsv1.ControllerRevision{withoutHashLabel(histRev(newName, 2, cur, ""))},
			want: rollout.History{
				Hash: "", Current: withoutHashLabel(histRev(newName, 2, cur, "")),
				Plan: rollout.HistoryPlan{Create: expectedNewRevision(t, ds, 1)},
			},
		},
		{
			name: "the new name taken in another namespace is not a collision",
			ds:   ds,
			inNS: []*appsv1.ControllerRevision{func() *appsv1.ControllerRevision {
				r := histRev(newName, 2, old1, "x")
				r.Namespace = "default"
				return r
			}()},
			want: rollout.History{
				Hash: newHash, Current: expectedNewRevision(t, ds, 1),
				Plan: rollout.HistoryPlan{Create: expectedNewRevision(t, ds, 1)},
			},
		},
		{
			name:    "the new name taken with other data: collision, count from nil to 1",
			ds:      ds,
			claimed: []*appsv1.ControllerRevision{withoutHashLabel(histRev("agent-v0", 1, old0, ""))},
			inNS:    []*appsv1.ControllerRevision{histRev(newName, 1, old1, "x")},
			want: rollout.History{
				Old:  []*appsv1.ControllerRevision{relabelled(histRev("agent-v0", 1, old0, ""))},
				Plan: rollout.HistoryPlan{Update: []*appsv1.ControllerRevision{relabelled(histRev("agent-v0", 1, old0, ""))}, CollisionCount: int32Ptr(1)},
			},
			wantErr: &rollout.CollisionError{Name: newName, CollisionCount: 1, Diff: imageDiff},
		},
		{
			name: "the new name taken with other data: collision, count from 3 to 4",
			ds:   collided,
			inNS: []*appsv1.ControllerRevision{histRev(collidedName, 1, old1, "x")},
			want: rollout.History{
				Plan: rollout.HistoryPlan{CollisionCount: int32Ptr(4)},
			},
			wantErr: &rollout.CollisionError{Name: collidedName, CollisionCount: 4, Diff: imageDiff},
		},
		{
			name:    "a claimed old revision holding the new name is a collision even if missing from the namespace list",
			ds:      ds,
			claimed: []*appsv1.ControllerRevision{histRev(newName, 1, old1, "x")},
			want: rollout.History{
				Old:  []*appsv1.ControllerRevision{histRev(newName, 1, old1, "x")},
				Plan: rollout.HistoryPlan{CollisionCount: int32Ptr(1)},
			},
			wantErr: &rollout.CollisionError{Name: newName, CollisionCount: 1, Diff: imageDiff},
		},
		{
			name:    "nil revisions and pods are skipped",
			ds:      ds,
			claimed: []*appsv1.ControllerRevision{nil, histRev("agent-v2", 1, cur, "v2"), nil},
			inNS:    []*appsv1.ControllerRevision{nil},
			pods:    []*corev1.Pod{nil},
			want:    rollout.History{Hash: "v2", Current: histRev("agent-v2", 1, cur, "v2")},
		},
		{
			name:    "a revision given twice counts once",
			ds:      ds,
			claimed: []*appsv1.ControllerRevision{sameRev, histRev("agent-v1", 1, old1, "v1"), sameRev},
			inNS:    []*appsv1.ControllerRevision{sameRev, sameRev},
			want: rollout.History{
				Hash: "v2", Current: histRev("agent-v2", 2, cur, "v2"),
				Old: []*appsv1.ControllerRevision{histRev("agent-v1", 1, old1, "v1")},
			},
		},
		{
			name:    "two claimed revisions with one name are an error",
			ds:      ds,
			claimed: []*appsv1.ControllerRevision{histRev("agent-v2", 2, cur, "v2"), histRev("agent-v1", 1, old1, "v1"), histRev("agent-v2", 1, old1, "v1")},
			wantErr: &field.Error{Type: field.ErrorTypeDuplicate, Field: "claimed[2].metadata.name", BadValue: "agent-v2"},
		},
		{
			name:    "a duplicate name is reported at the other object, not at a repeat of the first",
			ds:      ds,
			claimed: []*appsv1.ControllerRevision{dupA, dupB, dupA},
			wantErr: &field.Error{Type: field.ErrorTypeDuplicate, Field: "claimed[1].metadata.name", BadValue: "agent-v2"},
		},
		{
			name:    "two namespace revisions with the new name are an error",
			ds:      ds,
			inNS:    []*appsv1.ControllerRevision{histRev(newName, 1, cur, "x"), histRev("agent-v1", 1, old1, "v1"), histRev(newName, 1, old1, "y")},
			wantErr: &field.Error{Type: field.ErrorTypeDuplicate, Field: "namespaceRevisions[2].metadata.name", BadValue: newName},
		},
		{
			name: "two namespace revisions with another name are not looked at",
			ds:   ds,
			inNS: []*appsv1.ControllerRevision{histRev("agent-v1", 1, old1, "v1"), histRev("agent-v1", 2, old0, "v0")},
			want: rollout.History{
				Hash: newHash, Current: expectedNewRevision(t, ds, 1),
				Plan: rollout.HistoryPlan{Create: expectedNewRevision(t, ds, 1)},
			},
		},
		{name: "a nil DaemonSet is an error", ds: nil, wantErr: rollout.ErrNilDaemonSet},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := rollout.ConstructHistory(tt.ds, tt.claimed, tt.inNS, tt.pods)
			checkHistoryError(t, err, tt.wantErr)
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("ConstructHistory() mismatch (-want +got):\n%s", diff)
			}
			if (got.Current == nil) != (err != nil) {
				t.Errorf("ConstructHistory() Current = %v with error %v: want exactly one", got.Current, err)
			}
		})
	}
}

func checkHistoryError(t *testing.T, err, want error) {
	t.Helper()
	var wantField *field.Error
	if errors.As(want, &wantField) {
		var got *field.Error
		if !errors.As(err, &got) {
			t.Fatalf("error = %v, want a wrapped *field.Error", err)
		}
		if diff := cmp.Diff(wantField, got, ignoreDetail); diff != "" {
			t.Errorf("field error mismatch (-want +got):\n%s", diff)
		}
		if err != error(got) {
			t.Errorf("error %q is not the field error alone: the DaemonSet is the caller's", err)
		}
		return
	}
	var wantCollision *rollout.CollisionError
	if errors.As(want, &wantCollision) {
		var got *rollout.CollisionError
		if !errors.As(err, &got) {
			t.Fatalf("error = %v, want a *CollisionError", err)
		}
		if diff := cmp.Diff(wantCollision, got); diff != "" {
			t.Errorf("CollisionError mismatch (-want +got):\n%s", diff)
		}
		return
	}
	if !errors.Is(err, want) {
		t.Fatalf("error = %v, want %v", err, want)
	}
}

func TestConstructHistoryPatchError(t *testing.T) {
	ds := histDS("registry.example/agent:v2")
	ds.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &intstr.IntOrString{Type: 9}}
	got, err := rollout.ConstructHistory(ds, nil, nil, nil)
	if err == nil {
		t.Fatal("ConstructHistory() error = nil, want the encoding error")
	}
	if diff := cmp.Diff(rollout.History{}, got); diff != "" {
		t.Errorf("ConstructHistory() with an error returned a History (-want +got):\n%s", diff)
	}
}

// TestConstructHistoryPointers checks which results are the caller's
// pointers and which are new objects.
func TestConstructHistoryPointers(t *testing.T) {
	ds := histDS("registry.example/agent:v2")
	ds.Annotations = map[string]string{"a": "b"}
	cur, old := histData(t, ds), histData(t, histDS("registry.example/agent:v1"))

	keep := histRev("agent-b", 5, cur, "b")
	dup := histRev("agent-a", 3, cur, "a")
	oldRev := histRev("agent-v1", 4, old, "v1")
	pod := hashPod("p", "a")
	h, err := rollout.ConstructHistory(ds, []*appsv1.ControllerRevision{dup, keep, oldRev}, nil, []*corev1.Pod{pod})
	if err != nil {
		t.Fatal(err)
	}
	if h.Current != keep || h.Old[0] != oldRev || h.Plan.Delete[0] != dup || h.Plan.Relabel[0] != pod {
		t.Errorf("unchanged objects must be the caller's pointers")
	}

	h, err = rollout.ConstructHistory(ds, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	h.Plan.Create.Annotations["a"] = "changed"
	h.Plan.Create.Labels["app"] = "changed"
	if ds.Annotations["a"] != "b" || ds.Spec.Template.Labels["app"] != "agent" {
		t.Errorf("the created revision shares maps with the DaemonSet")
	}
}

func TestConstructHistoryDoesNotModifyInput(t *testing.T) {
	ds := histDS("registry.example/agent:v2")
	ds.Annotations = map[string]string{"a": "b"}
	cur, old := histData(t, ds), histData(t, histDS("registry.example/agent:v1"))
	nilLabels := histRev("agent-c", 1, cur, "")
	nilLabels.Labels = nil
	claimed := []*appsv1.ControllerRevision{
		histRev("agent-b", 5, cur, "b"), withoutHashLabel(histRev("agent-a", 3, cur, "")), nilLabels,
		withoutHashLabel(histRev("agent-v1", 9, old, "")), nil,
	}
	inNS := append([]*appsv1.ControllerRevision{histRev("other", 1, old, "o")}, claimed...)
	pods := []*corev1.Pod{hashPod("p2", "a"), nil, hashPod("p1", noHashLabel)}
	before := []any{ds.DeepCopy(), deepCopyRevisions(claimed), deepCopyRevisions(inNS), deepCopyPods(pods)}
	h, err := rollout.ConstructHistory(ds, claimed, inNS, pods)
	if err != nil {
		t.Fatal(err)
	}
	_ = rollout.CleanupHistory(ds, h.Old, pods)
	after := []any{ds, claimed, inNS, pods}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("ConstructHistory() modified its input (-before +after):\n%s", diff)
	}
}

// imageDiff is the first difference between a revision of the v1 template
// and the v2 DaemonSet of these tests.
var imageDiff = &rollout.RevisionDiff{
	Kind: rollout.DiffValue, Path: "spec.template.spec.containers[0].image",
	Revision: `"registry.example/agent:v1"`, DaemonSet: `"registry.example/agent:v2"`,
}
