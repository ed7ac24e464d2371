package daemon

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// Planner computes plans exactly as Compute does, keeping its working
// memory (the per-pod and per-node slices of the cluster view and of the
// rolling-update step) from one call to the next, so that a controller that
// plans all day does not hand the garbage collector a fleet-sized heap on
// every sync. A warm Planner planning a steady cluster allocates a few
// hundred small objects (the revision patch, the compiled eligibility, the
// status) however many nodes there are; see BENCHMARKS.md.
//
// A Planner may plan any DaemonSets and inputs in any order: no result
// depends on an earlier call (TestPlannerMatchesCompute checks this over
// the conformance corpus and generated clusters). Its memory grows to fit
// the largest cluster it has planned and stays at that size; a plan works
// in as much of it as its own cluster needs, so a small DaemonSet planned
// after a large one costs what it costs alone. Until the next call the
// Planner still points to the last call's nodes and pods (a controller's
// informer cache holds them anyway), and to nothing of an earlier call;
// use one Planner per worker goroutine, or drop it to give the memory
// back.
//
// A Planner is not safe for concurrent use: one goroutine at a time. The
// zero value is ready to use; NewPlanner is the same.
type Planner struct {
	c cluster
}

// NewPlanner returns an empty Planner.
func NewPlanner() *Planner {
	return &Planner{}
}

// Compute returns what Compute(ds, nodes, pods, opts) returns, with the
// same guarantees: the inputs are not modified, and the plan shares no
// memory with the Planner, so it stays valid after later calls. A nil p
// plans as Compute does.
func (p *Planner) Compute(ds *appsv1.DaemonSet, nodes []*corev1.Node, pods []*corev1.Pod, opts Options) (Plan, error) {
	if p == nil {
		return Compute(ds, nodes, pods, opts)
	}
	p.c.kept = true
	return compute(ds, nodes, pods, opts, &p.c)
}
