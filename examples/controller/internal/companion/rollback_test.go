package companion

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"

	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// versions returns the DaemonSet ns/ds at image img:1 .. img:n (the last
// is current, with annotations ann) and a revision of each, numbered 1 ..
// n, with their hashes.
func versions(t *testing.T, n int, ann map[string]string) (*appsv1.DaemonSet, []*appsv1.ControllerRevision, []string) {
	t.Helper()
	var ds *appsv1.DaemonSet
	var revs []*appsv1.ControllerRevision
	var hashes []string
	for i := 1; i <= n; i++ {
		ds = companionDS(ann, func(ds *appsv1.DaemonSet) {
			ds.Spec.Template.Spec.Containers[0].Image = "img:" + string(rune('0'+i))
			ds.ResourceVersion = "7"
		})
		rev, hash := revisionOf(t, ds)
		rev.Revision = int64(i)
		rev.UID = types.UID("uid-" + rev.Name)
		revs = append(revs, rev)
		hashes = append(hashes, hash)
	}
	return ds, revs, hashes
}

func TestRollbackTarget(t *testing.T) {
	ds, revs, h := versions(t, 3, map[string]string{progressive.AnnotationOnFailure: "rollback"})
	other := revs[0].DeepCopy()
	other.Revision, other.OwnerReferences[0].UID, other.Name = 9, "uid-other", "other"
	tests := []struct {
		name           string
		revs           []*appsv1.ControllerRevision
		rolledBackFrom string
		want           string // the revision's hash, "" for none
		wantWhy        string
	}{
		{name: "the newest other revision", revs: revs, want: h[1]},
		{name: "in any order", revs: []*appsv1.ControllerRevision{revs[2], revs[1], revs[0]}, want: h[1]},
		{name: "never the one rolled back from", revs: revs, rolledBackFrom: h[1], want: h[0]},
		{name: "only the one rolled back from", revs: revs[1:], rolledBackFrom: h[1], wantWhy: "the only earlier one, " + h[1] + ", is the one rolled back from before"},
		{name: "only the current one", revs: revs[2:], wantWhy: "the DaemonSet has no earlier revision"},
		{name: "another DaemonSet's revision is not a candidate", revs: []*appsv1.ControllerRevision{other, revs[2]}, wantWhy: "no earlier revision"},
		{name: "nil revisions are skipped", revs: []*appsv1.ControllerRevision{nil, revs[0], revs[2]}, want: h[0]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := rollbackTarget(ds, tt.revs, h[2], tt.rolledBackFrom)
			gotHash := ""
			if got != nil {
				gotHash = got.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]
			}
			if diff := cmp.Diff(tt.want, gotHash); diff != "" {
				t.Errorf("target (-want +got):\n%s", diff)
			}
			if !strings.Contains(why, tt.wantWhy) || (tt.wantWhy == "") != (why == "") {
				t.Errorf("why %q, want %q", why, tt.wantWhy)
			}
		})
	}
}

// TestRollbackPatch: applied as the API server applies a strategic merge
// patch, the patch gives the DaemonSet the revision's template exactly,
// adds rolled-back-from and keeps every other annotation and field; it
// carries the uid and resourceVersion as preconditions.
func TestRollbackPatch(t *testing.T) {
	ds, revs, h := versions(t, 2, map[string]string{progressive.AnnotationOnFailure: "rollback", "team": "net"})
	old, _, _ := versions(t, 1, nil)
	patch, err := rollbackPatch(ds, revs[0], h[1])
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal(patch, &meta); err != nil {
		t.Fatal(err)
	}
	if meta.Metadata.UID != ds.UID || meta.Metadata.ResourceVersion != "7" {
		t.Errorf("preconditions uid %q resourceVersion %q", meta.Metadata.UID, meta.Metadata.ResourceVersion)
	}
	current, err := json.Marshal(ds)
	if err != nil {
		t.Fatal(err)
	}
	patched, err := strategicpatch.StrategicMergePatch(current, patch, &appsv1.DaemonSet{})
	if err != nil {
		t.Fatal(err)
	}
	var got appsv1.DaemonSet
	if err := json.Unmarshal(patched, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(old.Spec.Template, got.Spec.Template); diff != "" {
		t.Errorf("template after the patch (-revision 1 +got):\n%s", diff)
	}
	wantAnn := map[string]string{progressive.AnnotationOnFailure: "rollback", "team": "net", progressive.AnnotationRolledBackFrom: h[1]}
	if diff := cmp.Diff(wantAnn, got.Annotations); diff != "" {
		t.Errorf("annotations (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(ds.Spec.UpdateStrategy, got.Spec.UpdateStrategy); diff != "" {
		t.Errorf("the patch changed more than the template (-want +got):\n%s", diff)
	}

	bad := revs[0].DeepCopy()
	bad.Data = runtime.RawExtension{Raw: []byte(`{"metadata":{}}`)}
	if _, err := rollbackPatch(ds, bad, h[1]); err == nil || !strings.Contains(err.Error(), "controllerrevision ns/"+bad.Name+": data") {
		t.Errorf("a revision without a template: error %v", err)
	}
}

// TestCompanionRollsBack: a rollout latched by a health gate under
// on-failure: rollback writes the previous revision's template back with
// rolled-back-from, records RolledBack naming both revisions, and deletes
// nothing; without a revision to go back to, it stays paused and says
// why.
func TestCompanionRollsBack(t *testing.T) {
	for _, tt := range []struct {
		name, rolledBackFrom string
		// fresh: the health gate fails in this sync (a crash-looping new
		// pod); else the rollout is latched already.
		fresh      bool
		wantWrites []string
		wantPaused string
	}{
		{name: "to the previous revision", wantWrites: []string{"patch daemonsets", "patch daemonsets/status"},
			wantPaused: "on-failure rollback wrote the template of revision 1"},
		{name: "in the sync the gate fails", fresh: true, wantWrites: []string{"patch daemonsets", "patch daemonsets/status"},
			wantPaused: "on-failure rollback wrote the template of revision 1"},
		{name: "not to the one rolled back from", rolledBackFrom: "h1", wantWrites: []string{"patch daemonsets/status"},
			wantPaused: "on-failure rollback: no revision to roll back to: the only earlier one"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ann := map[string]string{progressive.AnnotationOnFailure: "rollback", progressive.AnnotationMaxUnavailable: "1"}
			ds, revs, h := versions(t, 2, ann)
			if tt.rolledBackFrom != "" {
				ds.Annotations[progressive.AnnotationRolledBackFrom] = h[0]
			}
			newPod := daemonPod(ds, "new-n1", "n1", h[1], time.Time{})
			if tt.fresh {
				crashing(newPod, 2)
			} else {
				l := latch{Reason: ReasonHealthGateFailed, Hash: h[1], Paused: "unset"}
				ds.Status.Conditions = []appsv1.DaemonSetCondition{condition(ConditionPaused, true, ReasonHealthGateFailed, l.message(0, ""))}
			}
			objs := []runtime.Object{ds, revs[0], revs[1], testNode("n1", nil), testNode("n2", nil),
				newPod, daemonPod(ds, "old-n2", "n2", h[0], t0.Add(-time.Hour))}
			h2 := newHarness(t, syncer.Config{}, objs...)
			if ro, err := progressive.ForDaemonSet(ds); err != nil || ro.Annotations.OnFailure != progressive.OnFailureRollback {
				t.Skipf("the library does not parse on-failure yet (%v)", err)
			}
			if diff := cmp.Diff(tt.wantWrites, h2.syncCompanion("ns/ds")); diff != "" {
				t.Errorf("writes (-want +got):\n%s", diff)
			}
			got := h2.refreshDS("ns", "ds")
			if c := findCondition(got.Status.Conditions, ConditionPaused); c == nil || !strings.Contains(c.Message, tt.wantPaused) {
				t.Errorf("RolloutPaused %+v, want it to say %q", c, tt.wantPaused)
			}
			events := h2.Events()
			if tt.rolledBackFrom != "" {
				if got.Spec.Template.Spec.Containers[0].Image != "img:2" || hasEvent(events, "Warning RolledBack") {
					t.Errorf("rolled back to the revision it rolled back from: image %s, events %q", got.Spec.Template.Spec.Containers[0].Image, events)
				}
				return
			}
			if img := got.Spec.Template.Spec.Containers[0].Image; img != "img:1" {
				t.Errorf("image %s after the rollback, want img:1", img)
			}
			if v := got.Annotations[progressive.AnnotationRolledBackFrom]; v != h[1] {
				t.Errorf("rolled-back-from %q, want %q", v, h[1])
			}
			want := "Warning RolledBack rolled back from revision 2 (" + h[1] + ") to revision 1 (" + h[0] + ")"
			if !hasEvent(events, want) {
				t.Errorf("events %q, want one starting %q", events, want)
			}

			// The next sync: a new template, the latch is over, and the
			// failing pod (now of an old revision) is replaced first.
			h2.Clock.Step(messageInterval)
			if diff := cmp.Diff([]string{"delete pods", "patch daemonsets/status"}, h2.syncCompanion("ns/ds")); diff != "" {
				t.Errorf("after the rollback: writes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"old-n2"}, podNames(t, h2)); diff != "" {
				t.Errorf("after the rollback: pods (-want +got):\n%s", diff)
			}
			if got := cond(h2.refreshDS("ns", "ds"), ConditionPaused); got != "False NotPaused" {
				t.Errorf("after the rollback: RolloutPaused %s", got)
			}
		})
	}
}
