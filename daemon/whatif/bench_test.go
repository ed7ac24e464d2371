package whatif_test

import (
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/whatif"
)

// whatIfFleet is n DaemonSets of the placement fixture, with distinct names
// and images, their revisions, and a node every one of them runs on.
func whatIfFleet(n int) ([]*appsv1.DaemonSet, []*appsv1.ControllerRevision) {
	dss := make([]*appsv1.DaemonSet, n)
	revs := make([]*appsv1.ControllerRevision, n)
	for i := range n {
		name := fmt.Sprintf("agent-%03d", i)
		dss[i] = dt.DaemonSet(name, append(dt.PlacementOptions(), dt.WithImage("registry.example/"+name+":v1"))...)
		revs[i] = dt.Revision(dss[i], 1)
	}
	return dss, revs
}

// BenchmarkPodsForNode asks for the pods of 100 DaemonSets on one node,
// with their revisions (the steady case) and without (a first sync, which
// hashes every template).
func BenchmarkPodsForNode(b *testing.B) {
	dss, revs := whatIfFleet(100)
	node := dt.PlacementNode("node-1", 1)
	for _, tc := range []struct {
		name string
		opts whatif.Options
	}{
		{"daemonsets=100/revisions", whatif.Options{Revisions: revs}},
		{"daemonsets=100/first-sync", whatif.Options{}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = whatif.PodsForNode(node, dss, tc.opts)
			}
		})
	}
}

// TestPodsForNodeAllocsPerDaemonSet bounds the allocations per DaemonSet of
// PodsForNode with revisions given (see BENCHMARKS.md for the measured
// figure): the revision-history encoding and the pod's deep copies dominate.
func TestPodsForNodeAllocsPerDaemonSet(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation count")
	}
	const perDaemonSet = 450 // measured: 386, mostly the revision patch encoding
	dss, revs := whatIfFleet(20)
	node := dt.PlacementNode("node-1", 1)
	allocs := testing.AllocsPerRun(5, func() { _, _ = whatif.PodsForNode(node, dss, whatif.Options{Revisions: revs}) })
	if per := allocs / float64(len(dss)); per > perDaemonSet {
		t.Errorf("PodsForNode allocates %.0f times per DaemonSet, budget %d", per, perDaemonSet)
	} else {
		t.Logf("PodsForNode allocates %.0f times per DaemonSet", per)
	}
}

// BenchmarkOverhead sums the footprint of the 100 pods PodsForNode gives,
// with a LimitRange.
func BenchmarkOverhead(b *testing.B) {
	dss, revs := whatIfFleet(100)
	pods, err := whatif.PodsForNode(dt.PlacementNode("node-1", 1), dss, whatif.Options{Revisions: revs})
	if err != nil || len(pods) != 100 {
		b.Fatalf("PodsForNode() = %d pods, %v", len(pods), err)
	}
	opts := whatif.OverheadOptions{LimitRanges: []*corev1.LimitRange{{
		ObjectMeta: metav1.ObjectMeta{Name: "defaults", Namespace: "default"},
		Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
			Type: corev1.LimitTypeContainer, DefaultRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("50m")},
		}}},
	}}}
	b.ReportAllocs()
	for b.Loop() {
		_ = whatif.Overhead(pods, opts)
	}
}

// TestOverheadAllocsPerPod bounds Overhead's allocations per pod: one deep
// copy of the pod to admit it, and the resource lists component-helpers
// builds.
func TestOverheadAllocsPerPod(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation count")
	}
	const perPod = 40 // measured: 23
	dss, revs := whatIfFleet(20)
	pods, _ := whatif.PodsForNode(dt.PlacementNode("node-1", 1), dss, whatif.Options{Revisions: revs})
	allocs := testing.AllocsPerRun(5, func() { _ = whatif.Overhead(pods, whatif.OverheadOptions{}) })
	if per := allocs / float64(len(pods)); per > perPod {
		t.Errorf("Overhead allocates %.0f times per pod, budget %d", per, perPod)
	} else {
		t.Logf("Overhead allocates %.0f times per pod", per)
	}
}
