package controller

import (
	appsv1 "k8s.io/api/apps/v1"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// annotatedRollout returns the DaemonSet to plan with and the policy from
// ds's rollout annotations (syncer.RolloutOf, the one reading both modes
// share): without any, ds itself and the zero policy (upstream's rollout);
// with valid ones, ds planned with the annotated strategy under the
// annotated policy. Invalid annotations, or a budget they contradict, get
// one Warning event per spec and annotations, and a paused rollout: pods
// are still created where missing and failed ones replaced, but no old pod
// is replaced until they are fixed (a typo must not mean "no policy").
func (c *Controller) annotatedRollout(key string, ds *appsv1.DaemonSet) (*appsv1.DaemonSet, daemon.RolloutPolicy) {
	r := syncer.RolloutOf(ds)
	switch {
	case r.Err != nil:
		c.Warn(key, ds, r.Reason, "no old pod is replaced until this is fixed: "+r.Err.Error())
		return ds, daemon.RolloutPolicy{Paused: true}
	case r.Annotations == nil:
		return ds, daemon.RolloutPolicy{}
	}
	return r.Planned, r.Annotations.Policy
}
