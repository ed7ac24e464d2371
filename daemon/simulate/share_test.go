package simulate_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/simulate"
)

// TestRunSharesWhatItDoesNotChange checks Run's contract on its input: c
// is left as it was (every object and slice), and Final holds c's own
// objects where the simulation did not change them (the nodes and another
// DaemonSet's pod; its own pods are replaced) rather than copies of every
// object, which cost most of a 5,000-node simulation.
func TestRunSharesWhatItDoesNotChange(t *testing.T) {
	old := dt.DaemonSet("fluentd")
	ds := dt.DaemonSet("fluentd", dt.WithImage("registry.example/fluentd:v2"))
	ds.Generation = 2
	c := &simulate.Cluster{
		DaemonSet: ds,
		Nodes:     []*corev1.Node{dt.Node("n1"), dt.Node("n2"), dt.Node("n3")},
		Pods:      []*corev1.Pod{dt.Pod(old, "a", "n1"), dt.Pod(old, "b", "n2"), dt.Pod(old, "c", "n3"), dt.Pod(dt.DaemonSet("other"), "x", "n1")},
		Now:       dt.Epoch,
	}
	want := c.DeepCopy()
	nodes, pods := append([]*corev1.Node(nil), c.Nodes...), append([]*corev1.Pod(nil), c.Pods...)
	res := simulate.Run(c, simulate.Config{ReadyDelay: 5 * time.Second, GracePeriod: 10 * time.Second, MaxSteps: 50})
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("Run modified its input (-want +got):\n%s", diff)
	}
	if !samePointers(nodes, c.Nodes) || !samePointers(pods, c.Pods) {
		t.Errorf("Run changed its input's slices")
	}
	if !samePointers(nodes, res.Final.Nodes) {
		t.Errorf("Final.Nodes are not the input's nodes")
	}
	shared := map[string]bool{}
	for _, p := range res.Final.Pods {
		for _, q := range pods {
			if p == q {
				shared[p.Name] = true
			}
		}
	}
	if diff := cmp.Diff(map[string]bool{"x": true}, shared); diff != "" {
		t.Errorf("pods of Final shared with the input (-want +got):\n%s", diff)
	}
}

func samePointers[T any](a, b []*T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
