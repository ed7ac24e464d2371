package controller

import (
	"context"
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// BenchmarkSync is one sync of a settled DaemonSet (nothing to do, no
// write) on clusters of 1,000 and 5,000 nodes, planned through the
// workers' Planners (planner=pool, what the controller does) or through
// daemon.Compute (planner=none, a nil pool): the figures behind giving
// each worker a Planner (BENCHMARKS.md). rollout=upstream is a DaemonSet
// without rollout annotations (no standing, no judgement: what the gates
// must not make dearer); rollout=annotated an OnDelete one with
// max-unavailable, whose plan is judged and held by its gates.
func BenchmarkSync(b *testing.B) {
	for _, n := range []int{1000, 5000} {
		for _, pool := range []string{"pool", "none"} {
			for _, ro := range []string{"upstream", "annotated"} {
				b.Run(fmt.Sprintf("nodes=%d/planner=%s/rollout=%s", n, pool, ro), func(b *testing.B) {
					benchmarkSync(b, n, pool == "pool", ro == "annotated")
				})
			}
		}
	}
}

func benchmarkSync(b *testing.B, n int, pool, annotated bool) {
	ds := daemontest.DaemonSet("agent")
	if annotated {
		ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
		ds.Annotations = map[string]string{progressive.AnnotationMaxUnavailable: "2"}
	}
	cl := daemontest.SteadyCluster(ds, n)
	h := newHarness(b, syncer.Config{})
	h.Mode.Logger = klog.Logger{} // discards: the log line costs more than a plan
	h.Clock.SetTime(cl.Now)
	h.Cache(cl.DaemonSet)
	for _, o := range cl.Nodes {
		h.Cache(o)
	}
	for _, o := range cl.Pods {
		h.Cache(o)
	}
	for _, o := range cl.Revisions {
		h.Cache(o)
	}
	if !pool {
		h.Mode.Planners = nil
	}
	key := cache.MetaObjectToName(cl.DaemonSet).String()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := h.Mode.sync(ctx, key); err != nil {
			b.Fatal(err)
		}
	}
	if w := h.Writes(); len(w) > 0 {
		b.Fatalf("a settled sync wrote %v", w)
	}
	if e := h.Events(); len(e) > 0 {
		b.Fatalf("a settled sync recorded %q", e)
	}
}
