package rollout_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/rollout"
)

// TestRollingUpdateIdleNodes pins that a node with nothing to roll (it may
// not run the pod and holds no pod) neither counts as unavailable nor
// stalls the step, which is what a caller passing every node gets.
func TestRollingUpdateIdleNodes(t *testing.T) {
	type counts struct {
		Desired, NumUnavailable, NumSurge, NumAvailable int
		Deletes, Creates                                []string
	}
	tests := []struct {
		name  string
		surge bool
		nodes []rollout.Node
		want  counts
	}{
		{
			name:  "idle node beside an old pod",
			nodes: []rollout.Node{node("a", true, oldAvail), node("y", false)},
			want:  counts{Desired: 1, Deletes: []string{"a-a"}},
		},
		{
			name:  "idle node with a nil pod entry",
			nodes: []rollout.Node{node("a", true, oldAvail), {Name: "y", Pods: nil}, {Name: "z", Pods: make([]*corev1.Pod, 2)}},
			want:  counts{Desired: 1, Deletes: []string{"a-a"}},
		},
		{
			name:  "idle missing node",
			nodes: []rollout.Node{node("a", true, oldAvail), missing(node("m", false))},
			want:  counts{Desired: 1, Deletes: []string{"a-a"}},
		},
		{
			// Upstream walks this node (it has a pod) and finds neither a
			// new nor an old pod: unavailable, as before.
			name:  "node holding only a pod being deleted still counts",
			nodes: []rollout.Node{node("a", true, oldAvail), node("y", false, oldDeleting)},
			want:  counts{Desired: 1, NumUnavailable: 1},
		},
		{
			name:  "eligible empty node still counts",
			nodes: []rollout.Node{node("a", true, oldAvail), node("e", true)},
			want:  counts{Desired: 2, NumUnavailable: 1},
		},
		{
			name:  "surge: idle node changes nothing",
			surge: true,
			nodes: []rollout.Node{node("a", true, oldAvail), node("y", false)},
			want:  counts{Desired: 1, NumAvailable: 1, Creates: []string{"a"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := stepDS(ip(1), nil)
			if tt.surge {
				ds = stepDS(ip(0), ip(1))
			}
			step, err := rollout.RollingUpdate(ds, tt.nodes, newHash, stepNow)
			if err != nil {
				t.Fatalf("RollingUpdate: %v", err)
			}
			got := counts{Desired: step.Desired, NumUnavailable: step.NumUnavailable, NumSurge: step.NumSurge, NumAvailable: step.NumAvailable}
			for _, d := range step.Deletes {
				got.Deletes = append(got.Deletes, d.Pod.Name)
			}
			for _, c := range step.Creates {
				got.Creates = append(got.Creates, c.NodeName)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("step (-want,+got):\n%s", diff)
			}
		})
	}
}

// TestRollingUpdateNodeNames pins the errors for node names the step cannot
// tell apart.
func TestRollingUpdateNodeNames(t *testing.T) {
	tests := []struct {
		name  string
		nodes []rollout.Node
		want  string
		path  string
	}{
		{
			name:  "duplicate",
			nodes: []rollout.Node{node("a", true, oldAvail), node("b", true), node("c", true), node("a", true)},
			want:  `nodes[3].name: Duplicate value: "a"`,
			path:  "nodes[3].name",
		},
		{
			name:  "duplicate of a missing node",
			nodes: []rollout.Node{node("b", false), missing(node("a", false, oldAvail)), node("a", true)},
			want:  `nodes[2].name: Duplicate value: "a"`,
			path:  "nodes[2].name",
		},
		{
			name:  "empty",
			nodes: []rollout.Node{node("a", true), node("", true)},
			want:  `nodes[1].name: Required value`,
			path:  "nodes[1].name",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := rollout.RollingUpdate(stepDS(ip(1), nil), tt.nodes, newHash, stepNow)
			if err == nil {
				t.Fatal("RollingUpdate: no error")
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error (-want,+got):\n%s", diff)
			}
			var fe *field.Error
			if !errors.As(err, &fe) {
				t.Fatalf("errors.As(*field.Error) failed on %v", err)
			}
			if diff := cmp.Diff(tt.path, fe.Field); diff != "" {
				t.Errorf("field (-want,+got):\n%s", diff)
			}
		})
	}
}

// TestRollingUpdateNilDaemonSet pins that a nil DaemonSet wraps
// ErrNilDaemonSet.
func TestRollingUpdateNilDaemonSet(t *testing.T) {
	_, err := rollout.RollingUpdate(nil, nil, newHash, stepNow)
	if !errors.Is(err, rollout.ErrNilDaemonSet) {
		t.Fatalf("err = %v, want ErrNilDaemonSet", err)
	}
}
