package controller

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	k8stesting "k8s.io/client-go/testing"

	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// TestWriteStatusConflict pins what a status write does when the API server
// answers 409 Conflict: read the stored DaemonSet and write the same status
// onto it once, unless the name now belongs to another object (then the
// conflict is returned); a second failure is returned.
func TestWriteStatusConflict(t *testing.T) {
	status := appsv1.DaemonSetStatus{DesiredNumberScheduled: 3, CurrentNumberScheduled: 3, ObservedGeneration: 1}
	tests := []struct {
		name      string
		conflicts int       // how many status updates answer 409
		storedUID types.UID // the UID of the stored DaemonSet
		wantErr   bool
		wantCalls int // status updates attempted
		want      appsv1.DaemonSetStatus
	}{
		{name: "no conflict", storedUID: "uid-ds", wantCalls: 1, want: status},
		{name: "one conflict, retried on the stored object", conflicts: 1, storedUID: "uid-ds", wantCalls: 2, want: status},
		{name: "two conflicts", conflicts: 2, storedUID: "uid-ds", wantErr: true, wantCalls: 2},
		{name: "replaced under the same name", conflicts: 1, storedUID: "uid-other", wantErr: true, wantCalls: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cached := testDS("ns", "ds")
			stored := cached.DeepCopy()
			stored.UID = tt.storedUID
			h := newHarness(t, syncer.Config{}, stored)
			calls := 0
			h.Client.PrependReactor("update", "daemonsets", func(a k8stesting.Action) (bool, runtime.Object, error) {
				if a.GetSubresource() != "status" {
					return false, nil, nil
				}
				calls++ // reactors run under the fake's lock
				if calls <= tt.conflicts {
					return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "daemonsets"}, "ds", nil)
				}
				return false, nil, nil
			})
			err := h.Mode.writeStatus(context.Background(), cached, status)
			if (err != nil) != tt.wantErr {
				t.Fatalf("writeStatus error = %v, want error %v", err, tt.wantErr)
			}
			if calls != tt.wantCalls {
				t.Errorf("status updates = %d, want %d", calls, tt.wantCalls)
			}
			got, err := h.Client.AppsV1().DaemonSets("ns").Get(context.Background(), "ds", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.Status); diff != "" {
				t.Errorf("stored status (-want,+got):\n%s", diff)
			}
		})
	}
}
