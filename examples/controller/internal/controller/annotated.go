package controller

import (
	"strings"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// annotatedRollout returns the DaemonSet to plan with and the policy from
// ds's rollout annotations (progressive.ForDaemonSet, the one reading of
// them every program shares): without any, ds itself and the zero policy
// (upstream's rollout); with valid ones, ds planned with the annotated
// strategy under the annotated policy. Invalid annotations, or a budget
// they contradict, get one Warning event per spec and annotations, and a
// paused rollout: pods are still created where missing and failed ones
// replaced, but no old pod is replaced until they are fixed (a typo must
// not mean "no policy").
func (c *Controller) annotatedRollout(key string, ds *appsv1.DaemonSet) (*appsv1.DaemonSet, daemon.RolloutPolicy) {
	r, err := progressive.ForDaemonSet(ds)
	if len(r.Warnings) > 0 {
		c.Warn(key, ds, "RolloutAnnotationMisspelt", strings.Join(r.Warnings, "; "))
	}
	if err != nil {
		c.Warn(key, ds, syncer.AnnotationsReason(err), "no old pod is replaced until this is fixed: "+err.Error())
	}
	return r.DaemonSet, r.Policy
}
