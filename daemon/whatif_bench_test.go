package daemon_test

import (
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
)

// whatIfFleet is n DaemonSets of the placement fixture, with distinct names
// and images, their revisions, and a node every one of them runs on.
func whatIfFleet(n int) ([]*appsv1.DaemonSet, []*appsv1.ControllerRevision) {
	dss := make([]*appsv1.DaemonSet, n)
	revs := make([]*appsv1.ControllerRevision, n)
	for i := range n {
		name := fmt.Sprintf("agent-%03d", i)
		dss[i] = dt.DaemonSet(name, append(placementOptions(), dt.WithImage("registry.example/"+name+":v1"))...)
		revs[i] = dt.Revision(dss[i], 1)
	}
	return dss, revs
}

// BenchmarkPodsForNode asks for the pods of 100 DaemonSets on one node,
// with their revisions (the steady case) and without (a first sync, which
// hashes every template).
func BenchmarkPodsForNode(b *testing.B) {
	dss, revs := whatIfFleet(100)
	node := placementNode("node-1", 1)
	for _, tc := range []struct {
		name string
		opts daemon.WhatIfOptions
	}{
		{"daemonsets=100/revisions", daemon.WhatIfOptions{Revisions: revs}},
		{"daemonsets=100/first-sync", daemon.WhatIfOptions{}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = daemon.PodsForNode(node, dss, tc.opts)
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
	const perDaemonSet = 400
	dss, revs := whatIfFleet(20)
	node := placementNode("node-1", 1)
	allocs := testing.AllocsPerRun(5, func() { _, _ = daemon.PodsForNode(node, dss, daemon.WhatIfOptions{Revisions: revs}) })
	if per := allocs / float64(len(dss)); per > perDaemonSet {
		t.Errorf("PodsForNode allocates %.0f times per DaemonSet, budget %d", per, perDaemonSet)
	} else {
		t.Logf("PodsForNode allocates %.0f times per DaemonSet", per)
	}
}
