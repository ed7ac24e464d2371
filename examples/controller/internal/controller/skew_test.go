package controller

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// TestSyncHoldsOnTemplateSkew: while the newest revision holds fields of
// the template this build does not know (a newer controller wrote it),
// replace mode writes nothing at all: no revision created, raised,
// labelled or adopted, no pod created or deleted, no status. It warns once
// and is not retried; once the history is one it reads, it plans again.
func TestSyncHoldsOnTemplateSkew(t *testing.T) {
	ds := testDS("ns", "ds", func(ds *appsv1.DaemonSet) {
		ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType}
	})
	newer := dt.NewerRevision(ds, 2, "futureResponders", []any{map[string]any{"name": "drain"}})
	// An older revision this build would raise above the newer one, and an
	// orphan it would adopt.
	mine, _ := revisionOf(t, ds)
	mine.Name, mine.Revision = "ds-mine", 1
	orphan := dt.Revision(dt.DaemonSet("ds", dt.WithImage("other")), 0)
	orphan.Namespace, orphan.OwnerReferences, orphan.Labels = "ns", nil, map[string]string{"app": "ds"}
	h := newHarness(t, syncer.Config{}, ds, newer, mine, orphan,
		testNode("n1", nil), testNode("n2", nil),
		daemonPod(ds, "old-n1", "n1", "old", t0.Add(-time.Hour)))
	ctx := context.Background()
	for i := range 2 {
		if err := h.Mode.sync(ctx, "ns/ds"); err != nil {
			t.Fatalf("sync %d returned %v; a template skew is held, not retried", i, err)
		}
		if w := h.Writes(); len(w) > 0 {
			t.Errorf("sync %d under a template skew wrote %v", i, w)
		}
	}
	events := h.Events()
	want := `Warning TemplateSkew this build does not know fields of this DaemonSet's template (spec.template.spec.futureResponders in controllerrevision "ds-newer"); upgrade daemonplan`
	if len(events) != 1 || !strings.HasPrefix(events[0], want) {
		t.Errorf("events = %q, want one starting %q", events, want)
	}

	// The history this build reads: it plans and writes again.
	if err := h.Client.AppsV1().ControllerRevisions("ns").Delete(ctx, newer.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := h.Factory.Apps().V1().ControllerRevisions().Informer().GetIndexer().Delete(newer); err != nil {
		t.Fatal(err)
	}
	h.Client.ClearActions()
	if err := h.Mode.sync(ctx, "ns/ds"); err != nil {
		t.Fatal(err)
	}
	got := h.Writes()
	for _, w := range []string{"create pods", "patch controllerrevisions"} {
		if !contains(got, w) {
			t.Errorf("writes once the skew is gone = %v, want %q among them", got, w)
		}
	}
	for _, e := range h.Events() {
		if strings.HasPrefix(e, "Warning ") {
			t.Errorf("a warning once the skew is gone: %q", e)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
