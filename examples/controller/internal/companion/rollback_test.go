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
	o := progressive.Outcome{Reason: progressive.OutcomeRolledBack, Revision: h[0], From: h[1], By: progressive.RolledBackOnFailure}
	patch, err := rollbackPatch(ds, revs[0], o)
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
	wantAnn := map[string]string{progressive.AnnotationOnFailure: "rollback", "team": "net", progressive.AnnotationRolledBackFrom: h[1],
		progressive.AnnotationOutcome: o.Format()}
	if diff := cmp.Diff(wantAnn, got.Annotations); diff != "" {
		t.Errorf("annotations (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(ds.Spec.UpdateStrategy, got.Spec.UpdateStrategy); diff != "" {
		t.Errorf("the patch changed more than the template (-want +got):\n%s", diff)
	}

	bad := revs[0].DeepCopy()
	bad.Data = runtime.RawExtension{Raw: []byte(`{"metadata":{}}`)}
	if _, err := rollbackPatch(ds, bad, o); err == nil || !strings.Contains(err.Error(), "controllerrevision ns/"+bad.Name+": data") {
		t.Errorf("a revision without a template: error %v", err)
	}
}

// TestCompanionRollsBack: a rollout latched by a health gate under
// on-failure: rollback writes the previous revision's template back with
// rolled-back-from and the outcome (in one patch), records RolledBack
// naming both revisions, and deletes nothing; it neither pauses nor
// blocks the rollout, nor asks to change the template (the issue's
// finding 8). The change then reads as failed (Stalled True RolledBack)
// while the restored revision rolls out, until a person resumes. Without
// a revision to go back to, it stays paused and says why.
func TestCompanionRollsBack(t *testing.T) {
	for _, tt := range []struct {
		name, rolledBackFrom string
		// fresh: the health gate fails in this sync (a crash-looping new
		// pod); else the rollout is latched already.
		fresh      bool
		wantWrites []string
		wantPaused string
	}{
		{name: "to the previous revision", wantWrites: []string{"patch daemonsets", "patch daemonsets/status"}},
		{name: "in the sync the gate fails", fresh: true, wantWrites: []string{"patch daemonsets", "patch daemonsets/status"}},
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
			crashing(newPod, 2)
			if !tt.fresh {
				ds.Annotations[progressive.AnnotationOutcome] = progressive.Outcome{Reason: progressive.OutcomeHealthGateFailed, Revision: h[1]}.Format()
			}
			objs := []runtime.Object{ds, revs[0], revs[1], testNode("n1", nil), testNode("n2", nil),
				newPod, daemonPod(ds, "old-n2", "n2", h[0], t0.Add(-time.Hour))}
			h2 := newHarness(t, syncer.Config{}, objs...)
			if diff := cmp.Diff(tt.wantWrites, h2.syncCompanion("ns/ds")); diff != "" {
				t.Errorf("writes (-want +got):\n%s", diff)
			}
			got := h2.refreshDS("ns", "ds")
			events := h2.Events()
			if tt.rolledBackFrom != "" {
				if c := findCondition(got.Status.Conditions, ConditionPaused); c == nil || !strings.Contains(c.Message, tt.wantPaused) {
					t.Errorf("RolloutPaused %+v, want it to say %q", c, tt.wantPaused)
				}
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
			o, err := progressive.ParseOutcome(got.Annotations[progressive.AnnotationOutcome])
			if err != nil || o.Reason != progressive.OutcomeRolledBack || o.From != h[1] || o.Revision != h[0] || o.By != progressive.RolledBackOnFailure {
				t.Errorf("outcome %+v (%v), want RolledBack from %s to %s", o, err, h[1], h[0])
			}
			want := "Warning RolledBack rolled back from revision 2 (" + h[1] + ") to revision 1 (" + h[0] + ")"
			if !hasEvent(events, want) {
				t.Errorf("events %q, want one starting %q", events, want)
			}
			for _, e := range events {
				if strings.Contains(e, "change the template") || strings.Contains(e, "RolloutBlocked") || strings.Contains(e, "RolloutPaused") {
					t.Errorf("an automatic rollback recorded %q", e)
				}
			}
			rolledBack := []string{
				"RolloutProgressing False RolledBack", "RolloutPaused False NotPaused", "RolloutBlocked False NotBlocked",
				"Reconciling False RolledBack", "Stalled True RolledBack",
			}
			if diff := cmp.Diff(rolledBack, h2.conditionsOf()); diff != "" {
				t.Errorf("in the sync that rolls back: conditions (-want +got):\n%s", diff)
			}

			// The next sync: a new template, the latch is over, and the
			// failing pod (now of an old revision) is replaced first; the
			// change still reads as rolled back, naming both revisions.
			h2.Clock.Step(messageInterval)
			if diff := cmp.Diff([]string{"delete pods", "patch daemonsets/status"}, h2.syncCompanion("ns/ds")); diff != "" {
				t.Errorf("after the rollback: writes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"old-n2"}, podNames(t, h2)); diff != "" {
				t.Errorf("after the rollback: pods (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(rolledBack, h2.conditionsOf()); diff != "" {
				t.Errorf("after the rollback: conditions (-want +got):\n%s", diff)
			}
			p := findCondition(h2.refreshDS("ns", "ds").Status.Conditions, ConditionProgressing)
			for _, s := range []string{"rolled back from revision 2 (" + h[1] + ") to revision 1 (" + h[0] + ") by on-failure: rollback", "kubectl dsplan rollout resume ns/ds"} {
				if !strings.Contains(p.Message, s) {
					t.Errorf("RolloutProgressing %q does not say %q", p.Message, s)
				}
			}
			if !hasEvent(h2.Events(), "Normal RolloutReplace Deleted 1 old pod for the rollout to revision 1 ("+h[0]+"): new-n1 (node n1)") {
				t.Errorf("no delete event on the DaemonSet: %q", h2.Events())
			}

			// A person acknowledges it (rollout resume): the outcome goes,
			// and the DaemonSet is judged as any other.
			h2.update(func(ds *appsv1.DaemonSet) { ds.Annotations[progressive.AnnotationPaused] = "false" })
			h2.Clock.Step(messageInterval)
			writes := h2.syncCompanion("ns/ds")
			if len(writes) == 0 || writes[0] != "patch daemonsets" {
				t.Errorf("acknowledged: writes %q, want the outcome removed first", writes)
			}
			after := h2.refreshDS("ns", "ds")
			if _, ok := after.Annotations[progressive.AnnotationOutcome]; ok {
				t.Errorf("acknowledged: the outcome annotation stays: %v", after.Annotations)
			}
			if got := cond(after, ConditionStalled); strings.HasPrefix(got, "True") {
				t.Errorf("acknowledged: Stalled %s", got)
			}
		})
	}
}
