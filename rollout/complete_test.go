package rollout_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/rollout"
)

func completeDS(generation, observed int64, desired, updated, available int32) *appsv1.DaemonSet {
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "kube-system", Generation: generation},
		Spec:       appsv1.DaemonSetSpec{UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType}},
		Status: appsv1.DaemonSetStatus{
			ObservedGeneration: observed, DesiredNumberScheduled: desired, CurrentNumberScheduled: desired,
			UpdatedNumberScheduled: updated, NumberAvailable: available, NumberReady: max(available, updated),
		},
	}
}

func TestComplete(t *testing.T) {
	onDelete := completeDS(2, 2, 3, 1, 3)
	onDelete.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
	onDeleteDone := completeDS(2, 2, 3, 3, 3)
	onDeleteDone.Spec.UpdateStrategy = onDelete.Spec.UpdateStrategy
	deleting := completeDS(2, 2, 3, 3, 3)
	deleting.DeletionTimestamp = &metav1.Time{}
	misscheduled := completeDS(2, 2, 3, 3, 3)
	misscheduled.Status.NumberMisscheduled = 1

	tests := []struct {
		name       string
		ds         *appsv1.DaemonSet
		want       bool
		wantReason string
	}{
		{name: "a nil DaemonSet", ds: nil, wantReason: "no DaemonSet"},
		{name: "complete", ds: completeDS(2, 2, 3, 3, 3), want: true},
		{name: "nothing to run is complete", ds: completeDS(1, 1, 0, 0, 0), want: true},
		{
			name: "the controller has not seen the new spec", ds: completeDS(3, 2, 3, 3, 3),
			wantReason: `waiting for the controller to observe generation 3 (observed 2)`,
		},
		{
			name: "some nodes run an old revision", ds: completeDS(2, 2, 3, 1, 3),
			wantReason: `1 of 3 nodes run the current revision`,
		},
		{
			// Helm's legacy wait passes here (ready counts, not available).
			name: "all updated, one pod within minReadySeconds", ds: completeDS(2, 2, 3, 3, 2),
			wantReason: `2 of 3 nodes have an available pod`,
		},
		{
			// kubectl errors, Helm passes, kstatus waits, as Complete.
			name: "OnDelete with old pods left", ds: onDelete,
			wantReason: `1 of 3 nodes run the current revision`,
		},
		{name: "OnDelete with every pod replaced", ds: onDeleteDone, want: true},
		{name: "being deleted", ds: deleting, wantReason: `being deleted`},
		{name: "misscheduled pods do not hold the rollout", ds: misscheduled, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before *appsv1.DaemonSet
			if tt.ds != nil {
				before = tt.ds.DeepCopy()
			}
			got, reason := rollout.Complete(tt.ds)
			if got != tt.want {
				t.Errorf("Complete() = %v, want %v", got, tt.want)
			}
			if diff := cmp.Diff(tt.wantReason, reason); diff != "" {
				t.Errorf("Complete() reason (-want +got):\n%s", diff)
			}
			if tt.ds != nil {
				if diff := cmp.Diff(before, tt.ds); diff != "" {
					t.Errorf("Complete() modified the DaemonSet:\n%s", diff)
				}
			}
		})
	}
	done := completeDS(2, 2, 3, 3, 3)
	if allocs := testing.AllocsPerRun(100, func() { rollout.Complete(done) }); allocs != 0 {
		t.Errorf("Complete() on a complete rollout allocates %v times", allocs)
	}
}

func ExampleComplete() {
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "fluentd", Namespace: "logging", Generation: 4},
		Status: appsv1.DaemonSetStatus{
			ObservedGeneration: 4, DesiredNumberScheduled: 10, CurrentNumberScheduled: 10,
			UpdatedNumberScheduled: 10, NumberReady: 10, NumberAvailable: 8,
		},
	}
	fmt.Println(rollout.Complete(ds))
	ds.Status.NumberAvailable = 10
	fmt.Println(rollout.Complete(ds))
	// Output:
	// false 8 of 10 nodes have an available pod
	// true
}
