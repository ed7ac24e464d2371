package controller

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// TestReplaceModeReadsTheAnnotations: in ModeReplace an annotated OnDelete
// DaemonSet is rolled out as in ModeCompanion (the annotated budget), and
// invalid annotations hold the rollout back with one warning.
func TestReplaceModeReadsTheAnnotations(t *testing.T) {
	for _, tt := range []struct {
		name        string
		ann         map[string]string
		wantDeletes int
		wantEvent   string
	}{
		{name: "budget 2", ann: map[string]string{progressive.AnnotationMaxUnavailable: "2"}, wantDeletes: 2},
		{name: "not opted in: OnDelete replaces nothing", ann: nil},
		{name: "invalid: nothing replaced", ann: map[string]string{progressive.AnnotationMaxUnavailable: "two"}, wantEvent: "Warning InvalidAnnotations"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ds := companionDS(tt.ann)
			rev, _ := revisionOf(t, ds)
			objs := []runtime.Object{ds, rev}
			for _, n := range []string{"n1", "n2", "n3"} {
				objs = append(objs, testNode(n, nil), daemonPod(ds, "old-"+n, n, "old", t0.Add(-time.Hour)))
			}
			h := newHarness(t, syncer.Config{}, objs...)
			for range 2 {
				if err := h.Mode.sync(context.Background(), "ns/ds"); err != nil {
					t.Fatal(err)
				}
			}
			deletes := 0
			for _, w := range h.Writes() {
				if w == "delete pods" {
					deletes++
				}
			}
			if deletes != tt.wantDeletes {
				t.Errorf("%d deletes, want %d", deletes, tt.wantDeletes)
			}
			events := h.Events()
			n := 0
			for _, e := range events {
				if tt.wantEvent != "" && len(e) >= len(tt.wantEvent) && e[:len(tt.wantEvent)] == tt.wantEvent {
					n++
				}
			}
			if tt.wantEvent != "" && n != 1 {
				t.Errorf("events %q, want one %q", events, tt.wantEvent)
			}
		})
	}
}
