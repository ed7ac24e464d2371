package companion

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"

	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// newerRevision is the revision a kube-controller-manager newer than this
// build wrote for ds's template, which sets a field this build does not
// know.
func newerRevision(ds *appsv1.DaemonSet) *appsv1.ControllerRevision {
	rev := dt.NewerRevision(ds, 2, "futureResponders", []any{map[string]any{"name": "drain"}})
	rev.ResourceVersion = "1"
	return rev
}

// TestCompanionHoldsOnTemplateSkew: while the newest revision holds fields
// of the template this build does not know, the companion deletes nothing
// (every pod would look old), says why in its conditions and a Warning,
// and writes nothing more while nothing changes; once the history is one
// it reads (an upgraded build sees the same), it rolls out again and the
// conditions clear.
func TestCompanionHoldsOnTemplateSkew(t *testing.T) {
	ds := companionDS(map[string]string{progressive.AnnotationMaxUnavailable: "1"})
	newer := newerRevision(ds)
	objs := []runtime.Object{ds, newer}
	for _, n := range []string{"n1", "n2"} {
		objs = append(objs, testNode(n, nil), daemonPod(ds, "old-"+n, n, "old", t0.Add(-2*time.Hour)))
	}
	// kube-controller-manager's pod of the current template, under its hash.
	objs = append(objs, testNode("n3", nil), daemonPod(ds, "new-n3", "n3", dt.NewerHash, t0.Add(-time.Hour)))
	h := newHarness(t, syncer.Config{}, objs...)

	if diff := cmp.Diff([]string{"patch daemonsets/status"}, h.syncCompanion("ns/ds")); diff != "" {
		t.Errorf("writes under a skew (-want,+got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"new-n3", "old-n1", "old-n2"}, podNames(t, h)); diff != "" {
		t.Errorf("pods (-want,+got):\n%s", diff)
	}
	got := h.refreshDS("ns", "ds")
	for _, c := range []struct {
		t    appsv1.DaemonSetConditionType
		want string
	}{
		{ConditionProgressing, "False TemplateSkew"},
		{ConditionBlocked, "True TemplateSkew"},
		{ConditionStalled, "True TemplateSkew"},
		{ConditionReconciling, "False TemplateSkew"},
	} {
		if s := cond(got, c.t); s != c.want {
			t.Errorf("%s = %s, want %s", c.t, s, c.want)
		}
	}
	wantMsg := `this build does not know fields of this DaemonSet's template (spec.template.spec.futureResponders in controllerrevision "ds-newer"); upgrade daemonplan`
	if c := findCondition(got.Status.Conditions, ConditionBlocked); c.Message != wantMsg {
		t.Errorf("RolloutBlocked message %q, want %q", c.Message, wantMsg)
	}
	events := h.Events()
	if !hasEvent(events, "Warning TemplateSkew "+wantMsg) {
		t.Errorf("no TemplateSkew warning naming the cause in %q", events)
	}

	h.Clock.Step(messageInterval)
	if w := h.syncCompanion("ns/ds"); len(w) > 0 {
		t.Errorf("a second sync under the same skew wrote %v", w)
	}
	if events := h.Events(); len(events) > 0 {
		t.Errorf("a second sync under the same skew recorded %q", events)
	}

	// The history this build reads: the companion rolls out again.
	rev, _ := revisionOf(t, ds)
	if err := h.Factory.Apps().V1().ControllerRevisions().Informer().GetIndexer().Delete(newer); err != nil {
		t.Fatal(err)
	}
	h.Cache(rev)
	h.Clock.Step(messageInterval)
	if diff := cmp.Diff([]string{"delete pods", "patch daemonsets/status"}, h.syncCompanion("ns/ds")); diff != "" {
		t.Errorf("writes once the skew is gone (-want,+got):\n%s", diff)
	}
	got = h.refreshDS("ns", "ds")
	if s := cond(got, ConditionBlocked); s != "False NotBlocked" {
		t.Errorf("RolloutBlocked = %s once the skew is gone", s)
	}
	if s := cond(got, ConditionProgressing); !strings.HasPrefix(s, "True ") {
		t.Errorf("RolloutProgressing = %s once the skew is gone", s)
	}
}
