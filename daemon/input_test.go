package daemon_test

import (
	"errors"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/selector"
)

func TestComputeBadInput(t *testing.T) {
	ds := dt.DaemonSet("fluentd")
	with := func(f func(*appsv1.DaemonSet)) *appsv1.DaemonSet {
		c := ds.DeepCopy()
		f(c)
		return c
	}
	pod := dt.Pod(ds, "p1", "n1")
	rev := &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: "r1", Namespace: "default"}}

	tests := []struct {
		name      string
		ds        *appsv1.DaemonSet
		nodes     []*corev1.Node
		pods      []*corev1.Pod
		revisions []*appsv1.ControllerRevision
		// wantIs lists errors the returned error must wrap.
		wantIs []error
		// wantAs, when set, is called to check errors.As targets.
		wantAs func(error) bool
	}{
		{name: "nil DaemonSet", ds: nil, wantIs: []error{daemon.ErrInvalidInput}},
		{name: "DaemonSet without namespace", ds: with(func(d *appsv1.DaemonSet) { d.Namespace = "" }), wantIs: []error{daemon.ErrInvalidInput}},
		{name: "DaemonSet without UID", ds: with(func(d *appsv1.DaemonSet) { d.UID = "" }), wantIs: []error{daemon.ErrInvalidInput}},
		{name: "DaemonSet without name", ds: with(func(d *appsv1.DaemonSet) { d.Name = "" }), wantIs: []error{daemon.ErrInvalidInput}},
		{name: "nil node", ds: ds, nodes: []*corev1.Node{dt.Node("n1"), nil}, wantIs: []error{daemon.ErrInvalidInput}},
		{name: "node without name", ds: ds, nodes: []*corev1.Node{{}}, wantIs: []error{daemon.ErrInvalidInput}},
		{
			name: "duplicate node names", ds: ds, nodes: []*corev1.Node{dt.Node("n1"), dt.Node("n2"), dt.Node("n1")},
			wantIs: []error{daemon.ErrInvalidInput},
			wantAs: func(err error) bool {
				var dup *daemon.DuplicateNodeError
				return errors.As(err, &dup) && dup.Name == "n1" && dup.First == 0 && dup.Second == 2
			},
		},
		{name: "nil pod", ds: ds, pods: []*corev1.Pod{nil}, wantIs: []error{daemon.ErrInvalidInput}},
		{name: "duplicate pod names", ds: ds, nodes: []*corev1.Node{dt.Node("n1")}, pods: []*corev1.Pod{pod, pod.DeepCopy()}, wantIs: []error{daemon.ErrInvalidInput}},
		{name: "nil revision", ds: ds, revisions: []*appsv1.ControllerRevision{nil}, wantIs: []error{daemon.ErrInvalidInput}},
		{name: "duplicate revision names", ds: ds, revisions: []*appsv1.ControllerRevision{rev, rev.DeepCopy()}, wantIs: []error{daemon.ErrInvalidInput}},
		{
			name: "nil selector", ds: with(func(d *appsv1.DaemonSet) { d.Spec.Selector = nil }),
			wantAs: func(err error) bool { var fe *field.Error; return errors.As(err, &fe) },
		},
		{
			name: "unparsable selector",
			ds: with(func(d *appsv1.DaemonSet) {
				d.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpIn}}
			}),
		},
		{
			name: "invalid maxUnavailable when the rolling step runs",
			ds: with(func(d *appsv1.DaemonSet) {
				v := intstr.FromString("abc%")
				d.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = &v
			}),
			nodes: []*corev1.Node{dt.Node("n1")}, pods: []*corev1.Pod{pod},
			wantAs: func(err error) bool { var fe *field.Error; return errors.As(err, &fe) },
		},
		{
			name:  "nil maxUnavailable when the rolling step runs",
			ds:    with(func(d *appsv1.DaemonSet) { d.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = nil }),
			nodes: []*corev1.Node{dt.Node("n1")}, pods: []*corev1.Pod{pod},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := daemon.Compute(tt.ds, tt.nodes, tt.pods, daemon.Options{Now: dt.Epoch, Revisions: tt.revisions})
			if err == nil {
				t.Fatalf("Compute() = %+v, want an error", plan)
			}
			for _, target := range tt.wantIs {
				if !errors.Is(err, target) {
					t.Errorf("Compute() error = %v, want it to wrap %v", err, target)
				}
			}
			if tt.wantAs != nil && !tt.wantAs(err) {
				t.Errorf("Compute() error = %v (%T), not of the expected type", err, err)
			}
			if len(plan.Creates)+len(plan.Deletes) != 0 {
				t.Errorf("Compute() with an error asks for pod changes: %+v", actionsOf(plan))
			}
		})
	}
}

func TestComputeDocumentedOutcomes(t *testing.T) {
	t.Run("a nil revisionHistoryLimit defaults to 10", func(t *testing.T) {
		ds := dt.DaemonSet("fluentd")
		ds.Spec.RevisionHistoryLimit = nil
		var revs []*appsv1.ControllerRevision
		for i := range 12 {
			revs = append(revs, &appsv1.ControllerRevision{
				ObjectMeta: metav1.ObjectMeta{
					Name: "fluentd-old" + string(rune('a'+i)), Namespace: "default",
					Labels:          map[string]string{"app": "fluentd", appsv1.ControllerRevisionHashLabelKey: "old" + string(rune('a'+i))},
					OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(ds, appsv1.SchemeGroupVersion.WithKind("DaemonSet"))},
				},
				Revision: int64(i + 1),
			})
		}
		plan, err := daemon.Compute(ds, nil, nil, daemon.Options{Now: dt.Epoch, Revisions: revs})
		if err != nil {
			t.Fatalf("Compute() error = %v", err)
		}
		if got := len(plan.History.Delete); got != 2 {
			t.Errorf("Compute() deletes %d old revisions, want 2 (12 old, limit 10)", got)
		}
	})
	t.Run("pods of other namespaces are ignored", func(t *testing.T) {
		ds := dt.DaemonSet("fluentd")
		other := dt.Pod(ds, "p1", "n1", dt.WithPhase(corev1.PodFailed))
		other.Namespace = "elsewhere"
		plan, err := daemon.Compute(ds, []*corev1.Node{dt.Node("n1")}, []*corev1.Pod{other}, daemon.Options{Now: dt.Epoch})
		if err != nil {
			t.Fatal(err)
		}
		if got := actionsOf(plan); len(got.Deletes) != 0 || len(got.Creates) != 1 {
			t.Errorf("Compute() = %+v, want one create and no delete", got)
		}
	})
	t.Run("a pod with no resolvable node is reported and otherwise ignored", func(t *testing.T) {
		ds := dt.DaemonSet("fluentd")
		lost := dt.Pod(ds, "p1", "", dt.WithPhase(corev1.PodFailed))
		plan, err := daemon.Compute(ds, []*corev1.Node{dt.Node("n1")}, []*corev1.Pod{lost}, daemon.Options{Now: dt.Epoch})
		if err != nil {
			t.Fatal(err)
		}
		if len(plan.Unplaced) != 1 || plan.Unplaced[0] != lost {
			t.Errorf("Compute().Unplaced = %v, want [p1]", plan.Unplaced)
		}
		if got := actionsOf(plan); len(got.Deletes) != 0 {
			t.Errorf("Compute() deletes %v, want none", got.Deletes)
		}
	})
	t.Run("the empty selector is reported with ErrSelectsAll by the selector package", func(t *testing.T) {
		ds := dt.DaemonSet("fluentd")
		ds.Spec.Selector = &metav1.LabelSelector{}
		if _, err := selector.ForDaemonSet(ds); !errors.Is(err, selector.ErrSelectsAll) {
			t.Errorf("ForDaemonSet() error = %v, want ErrSelectsAll", err)
		}
	})
}
