package syncer

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
)

// Plan computes the plan of ds, the DaemonSet of key, with an idle Planner,
// and spaces the key's next sync by the time it took (see syncSpacer).
func (s *Syncer) Plan(key string, ds *appsv1.DaemonSet, nodes []*corev1.Node, pods []*corev1.Pod, opts daemon.Options) (daemon.Plan, error) {
	planner := s.Planners.get()
	start := s.Config.Clock.Now()
	plan, err := planner.Compute(ds, nodes, pods, opts)
	s.spacing.planned(key, start, s.Config.Clock.Since(start))
	s.Planners.put(planner)
	return plan, err
}

// plannerPool holds the idle daemon.Planners of the workers. A sync takes
// one for its Compute call and puts it back at once (the plan shares no
// memory with it). At most Config.Workers syncs run at a time, so the pool
// settles at one Planner per worker: each keeps the working memory of the
// plans it made warm, and a steady sync of a large cluster allocates next
// to nothing for its plan (daemon.Planner's doc; BenchmarkSync compares it
// with daemon.Compute).
//
// A nil pool hands out nil Planners, which plan as daemon.Compute.
type plannerPool struct {
	idle chan *daemon.Planner
}

// newPlannerPool returns a pool that keeps up to n idle Planners.
func newPlannerPool(n int) *plannerPool {
	return &plannerPool{idle: make(chan *daemon.Planner, n)}
}

// get returns an idle Planner, or a new one when none is idle.
func (p *plannerPool) get() *daemon.Planner {
	if p == nil {
		return nil
	}
	select {
	case pl := <-p.idle:
		return pl
	default:
		return daemon.NewPlanner()
	}
}

// put gives pl back; beyond the pool's size it is dropped, and its memory
// with it.
func (p *plannerPool) put(pl *daemon.Planner) {
	if p == nil || pl == nil {
		return
	}
	select {
	case p.idle <- pl:
	default:
	}
}
