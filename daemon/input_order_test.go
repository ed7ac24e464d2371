package daemon_test

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
)

// TestComputeReportsObjectsFirst locks the precedence of input errors: a
// nil or unnamed node or pod is reported, with every such object, before
// anything else the plan would return instead (a skip, an invalid
// selector or update strategy, duplicate names), by Compute and a Planner
// alike.
func TestComputeReportsObjectsFirst(t *testing.T) {
	ds := dt.DaemonSet("x")
	pod := dt.Pod(ds, "pa", "a")
	node := dt.Node("a")
	with := func(f func(*appsv1.DaemonSet)) *appsv1.DaemonSet {
		c := ds.DeepCopy()
		f(c)
		return c
	}
	daemonSets := map[string]*appsv1.DaemonSet{
		"valid":            ds,
		"selects all":      with(func(d *appsv1.DaemonSet) { d.Spec.Selector = &metav1.LabelSelector{} }),
		"being deleted":    with(func(d *appsv1.DaemonSet) { d.DeletionTimestamp = &metav1.Time{Time: dt.Epoch} }),
		"invalid selector": with(func(d *appsv1.DaemonSet) { d.Spec.Selector.MatchLabels["bad key!"] = "v" }),
		"invalid budget": with(func(d *appsv1.DaemonSet) {
			v := intstr.FromString("ten%")
			d.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = &v
		}),
	}
	tests := []struct {
		name  string
		nodes []*corev1.Node
		pods  []*corev1.Pod
		want  string
	}{
		{
			name:  "nil pod after a valid one",
			nodes: []*corev1.Node{node},
			pods:  []*corev1.Pod{pod, nil},
			want:  `daemonset "default/x": invalid input: pods[1]: Required value: nil pod`,
		},
		{
			name:  "unnamed node and nil node",
			nodes: []*corev1.Node{node, {}, nil},
			want:  `daemonset "default/x": invalid input: nodes[1].metadata.name: Required value` + "\n" + `nodes[2]: Required value: nil node`,
		},
		{
			name:  "duplicate pods, then a nil node",
			nodes: []*corev1.Node{node, node.DeepCopy(), nil},
			pods:  []*corev1.Pod{pod, pod.DeepCopy()},
			want:  `daemonset "default/x": invalid input: nodes[2]: Required value: nil node`,
		},
		{
			name:  "nil pod and unnamed pod",
			nodes: []*corev1.Node{node},
			pods:  []*corev1.Pod{nil, {}},
			want:  `daemonset "default/x": invalid input: pods[0]: Required value: nil pod` + "\n" + `pods[1].metadata.name: Required value`,
		},
	}
	for dsName, d := range daemonSets {
		// With valid objects, each DaemonSet but the valid one stops the
		// plan: that is what the objects' errors must win over.
		plan, err := daemon.Compute(d, []*corev1.Node{node}, []*corev1.Pod{pod}, daemon.Options{Now: dt.Epoch})
		if stopped := err != nil || plan.Skip != daemon.SkipNone; stopped != (dsName != "valid") {
			t.Errorf("%s, valid objects: error %v, skip %q", dsName, err, plan.Skip)
		}
		for _, tt := range tests {
			t.Run(dsName+"/"+tt.name, func(t *testing.T) {
				for _, call := range []struct {
					name    string
					compute func() (daemon.Plan, error)
				}{
					{"Compute", func() (daemon.Plan, error) {
						return daemon.Compute(d, tt.nodes, tt.pods, daemon.Options{Now: dt.Epoch})
					}},
					{"Planner", func() (daemon.Plan, error) {
						return daemon.NewPlanner().Compute(d, tt.nodes, tt.pods, daemon.Options{Now: dt.Epoch})
					}},
				} {
					plan, err := call.compute()
					if err == nil {
						t.Fatalf("%s: no error, plan %+v", call.name, plan)
					}
					if got := err.Error(); got != tt.want {
						t.Errorf("%s: error\n%s\nwant\n%s", call.name, got, tt.want)
					}
				}
			})
		}
	}
}
