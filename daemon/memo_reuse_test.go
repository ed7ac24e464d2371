package daemon

import (
	"reflect"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/rollout"
)

// TestClonePlanCoversPlan: clonePlan knows every field of Plan, and its
// copy equals the plan and shares none of the memory the plan owns.
func TestClonePlanCoversPlan(t *testing.T) {
	known := []string{"Skip", "Hash", "Creates", "Deletes", "Adopt", "Release", "DeferredCreates", "DeferredDeletes",
		"Unplaced", "History", "Rolling", "Status", "StatusChanged", "Events", "RequeueAfter", "FailedPodBackoff",
		"TemplateSkew", "Standing"}
	var fields []string
	for f := range reflect.TypeFor[Plan]().Fields() {
		fields = append(fields, f.Name)
	}
	if diff := cmp.Diff(known, fields); diff != "" {
		t.Fatalf("Plan's fields changed: teach clonePlan the new ones, then this list (-known +Plan):\n%s", diff)
	}

	callers := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "old"}}
	created := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "new", Labels: map[string]string{"a": "b"}}}
	rev := &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: "r"}}
	count := int32(2)
	p := Plan{
		Hash:     "h",
		Creates:  []Create{{NodeName: "n", Pod: created}},
		Deletes:  []Delete{{NodeName: "n", Pod: callers}},
		Adopt:    []*corev1.Pod{callers},
		Release:  []*corev1.Pod{callers},
		Unplaced: []*corev1.Pod{callers},
		History: rollout.HistoryPlan{Create: rev.DeepCopy(), Update: []*appsv1.ControllerRevision{rev.DeepCopy()},
			Delete: []*appsv1.ControllerRevision{rev}, Relabel: []*corev1.Pod{callers},
			Adopt: []*appsv1.ControllerRevision{rev}, Release: []*appsv1.ControllerRevision{rev}, CollisionCount: &count},
		Rolling: &RollingStep{Creates: []rollout.Create{{NodeName: "n", Pod: created}}, Deletes: []rollout.Delete{{Pod: callers}},
			Policy: &rollout.StepPolicy{Wave: &rollout.WaveProgress{Waiting: []string{"n"}}}},
		Status: appsv1.DaemonSetStatus{CollisionCount: &count, Conditions: []appsv1.DaemonSetCondition{{Type: "X"}}},
		Events: []Event{{Reason: "R"}},
	}
	c := clonePlan(&p)
	if diff := cmp.Diff(p, c, cmp.AllowUnexported(Plan{}.FailedPodBackoff)); diff != "" {
		t.Errorf("the copy differs (-plan +copy):\n%s", diff)
	}
	owned := []struct {
		name string
		a, b any
	}{
		{"Creates", &p.Creates[0], &c.Creates[0]},
		{"Creates[0].Pod", p.Creates[0].Pod, c.Creates[0].Pod},
		{"Deletes", &p.Deletes[0], &c.Deletes[0]},
		{"Adopt", &p.Adopt[0], &c.Adopt[0]},
		{"Release", &p.Release[0], &c.Release[0]},
		{"Unplaced", &p.Unplaced[0], &c.Unplaced[0]},
		{"History.Create", p.History.Create, c.History.Create},
		{"History.Update", &p.History.Update[0], &c.History.Update[0]},
		{"History.Update[0]", p.History.Update[0], c.History.Update[0]},
		{"History.Delete", &p.History.Delete[0], &c.History.Delete[0]},
		{"History.Relabel", &p.History.Relabel[0], &c.History.Relabel[0]},
		{"History.Adopt", &p.History.Adopt[0], &c.History.Adopt[0]},
		{"History.Release", &p.History.Release[0], &c.History.Release[0]},
		{"History.CollisionCount", p.History.CollisionCount, c.History.CollisionCount},
		{"Rolling", p.Rolling, c.Rolling},
		{"Rolling.Creates", &p.Rolling.Creates[0], &c.Rolling.Creates[0]},
		{"Rolling.Creates[0].Pod", p.Rolling.Creates[0].Pod, c.Rolling.Creates[0].Pod},
		{"Rolling.Deletes", &p.Rolling.Deletes[0], &c.Rolling.Deletes[0]},
		{"Rolling.Policy", p.Rolling.Policy, c.Rolling.Policy},
		{"Rolling.Policy.Wave", p.Rolling.Policy.Wave, c.Rolling.Policy.Wave},
		{"Rolling.Policy.Wave.Waiting", &p.Rolling.Policy.Wave.Waiting[0], &c.Rolling.Policy.Wave.Waiting[0]},
		{"Status.CollisionCount", p.Status.CollisionCount, c.Status.CollisionCount},
		{"Status.Conditions", &p.Status.Conditions[0], &c.Status.Conditions[0]},
		{"Events", &p.Events[0], &c.Events[0]},
	}
	for _, o := range owned {
		if reflect.ValueOf(o.a).Pointer() == reflect.ValueOf(o.b).Pointer() {
			t.Errorf("%s: the copy shares the plan's memory", o.name)
		}
	}
	// The caller's objects stay the caller's.
	if c.Deletes[0].Pod != callers || c.History.Delete[0] != rev || !slices.Equal(c.Adopt, p.Adopt) {
		t.Errorf("the copy replaced the caller's objects")
	}
}
