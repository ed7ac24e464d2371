package companion

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// TestUnresolvedReferenceHolds: an annotation naming nothing of the
// cluster holds the rollout (no pod deleted), RolloutBlocked and Stalled
// name the key, the value and what there is, RolloutProgressing is False,
// and a Warning is recorded; also once the rollout is complete. Before,
// a pause-after typo rolled every node with no stop (finding 1), and an
// order label no node has was a note in the Progressing message.
func TestUnresolvedReferenceHolds(t *testing.T) {
	tests := []struct {
		name string
		ann  map[string]string
		// old: the pods run an old revision (a rollout under way).
		old  bool
		want string
	}{
		{name: "pause-after typo", old: true,
			ann:  map[string]string{progressive.AnnotationOrderBy: "zone", progressive.AnnotationCanary: "1", progressive.AnnotationPauseAfter: "zone-z"},
			want: `pause-after "zone-z" names no wave; did you mean zone-a? waves: canary, zone-a, zone-b, zone-c`},
		{name: "order-values typo", old: true,
			ann:  map[string]string{progressive.AnnotationOrderBy: "zone", progressive.AnnotationOrderValues: "zone-c,zone-x"},
			want: `order-values "zone-x" names no value of zone; did you mean zone-a? values of zone: zone-a, zone-b, zone-c`},
		{name: "order-by typo on a complete rollout",
			ann:  map[string]string{progressive.AnnotationOrderBy: "zoen"},
			want: `order-by "zoen" names no node label key; did you mean zone? node label keys: zone`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := companionDS(tt.ann)
			rev, hash := revisionOf(t, ds)
			objs := []runtime.Object{ds, rev}
			for i, z := range []string{"a", "b", "c", "a", "b", "c"} {
				n := fmt.Sprintf("n%d", i+1)
				h := hash
				if tt.old {
					h = "old"
				}
				objs = append(objs, testNode(n, map[string]string{"zone": "zone-" + z}), daemonPod(ds, "pod-"+n, n, h, t0.Add(-time.Hour)))
			}
			h := newHarness(t, syncer.Config{}, objs...)
			if diff := cmp.Diff([]string{"patch daemonsets/status"}, h.syncCompanion("ns/ds")); diff != "" {
				t.Fatalf("writes (-want +got), no delete:\n%s", diff)
			}
			conds := h.refreshDS("ns", "ds").Status.Conditions
			for _, c := range []struct {
				typ    string
				status corev1.ConditionStatus
			}{{string(ConditionBlocked), corev1.ConditionTrue}, {string(ConditionStalled), corev1.ConditionTrue},
				{string(ConditionProgressing), corev1.ConditionFalse}, {string(ConditionReconciling), corev1.ConditionFalse}} {
				got := findCondition(conds, ConditionBlocked)
				for i := range conds {
					if string(conds[i].Type) == c.typ {
						got = &conds[i]
					}
				}
				if got.Status != c.status || got.Reason != ReasonUnresolvedReference {
					t.Errorf("%s: %s %s, want %s %s", c.typ, got.Status, got.Reason, c.status, ReasonUnresolvedReference)
				}
			}
			if got := findCondition(conds, ConditionBlocked).Message; got != tt.want {
				t.Errorf("RolloutBlocked message:\n got %s\nwant %s", got, tt.want)
			}
			if !hasEvent(h.Events(), "Warning RolloutBlocked UnresolvedReference: "+tt.want) {
				t.Errorf("no Warning naming it: %q", h.Events())
			}
			// The next sync still deletes nothing, and writes nothing new.
			h.Clock.Step(time.Minute)
			if diff := cmp.Diff([]string(nil), h.syncCompanion("ns/ds")); diff != "" {
				t.Errorf("second sync writes (-want +got):\n%s", diff)
			}
		})
	}
}
