package daemon_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/eligibility"
)

// TestNodeShouldRunDaemonPod checks that upstream's helper gives the
// compiled check's verdict, and that neither it nor NewPod modifies its
// input.
func TestNodeShouldRunDaemonPod(t *testing.T) {
	ds := dt.DaemonSet("agent", dt.PlacementOptions()...)
	nodes := []*corev1.Node{
		nil,
		dt.PlacementNode("node-00001", 1),
		dt.Node("other"),
		dt.Node("tainted", dt.WithTaint("dedicated", "db", corev1.TaintEffectNoExecute)),
	}
	e := eligibility.New(ds, false)
	dsBefore := ds.DeepCopy()
	for i, n := range nodes {
		run, keep := daemon.NodeShouldRunDaemonPod(n, ds)
		wantRun, wantKeep := e.ShouldRun(n)
		if run != wantRun || keep != wantKeep {
			t.Errorf("NodeShouldRunDaemonPod(nodes[%d]) = %v, %v; want %v, %v", i, run, keep, wantRun, wantKeep)
		}
		if n != nil {
			daemon.NewPod(ds, n.Name)
		}
	}
	if diff := cmp.Diff(dsBefore, ds); diff != "" {
		t.Errorf("DaemonSet modified (-before +after):\n%s", diff)
	}
	if run, keep := daemon.NodeShouldRunDaemonPod(nodes[1], nil); run || keep {
		t.Errorf("NodeShouldRunDaemonPod(node, nil) = %v, %v; want false, false", run, keep)
	}
}

func BenchmarkNodeShouldRunDaemonPod(b *testing.B) {
	ds, node := dt.DaemonSet("agent", dt.PlacementOptions()...), dt.PlacementNode("node-00001", 1)
	b.Run("one-shot", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			daemon.NodeShouldRunDaemonPod(node, ds)
		}
	})
	b.Run("compiled", func(b *testing.B) {
		e := eligibility.New(ds, false)
		b.ReportAllocs()
		for b.Loop() {
			e.ShouldRun(node)
		}
	})
	b.Run("compile", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			eligibility.New(ds, false)
		}
	})
}
