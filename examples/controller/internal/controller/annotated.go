package controller

import (
	"errors"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/daemon"
)

// annotatedRollout returns the DaemonSet to plan with and the policy, in
// ModeReplace, from ds's rollout annotations (daemon.ParseRolloutAnnotations),
// the one schema both modes read: without any, ds itself and the zero
// policy (upstream's rollout); with valid ones, ds planned with the
// annotated strategy (an OnDelete DaemonSet rolls as RollingUpdate with the
// annotated budget, as in ModeCompanion; a RollingUpdate one keeps its own
// budget, surge included) under the annotated policy. Invalid annotations,
// or a budget they contradict, get one Warning event per spec and
// annotations, and a paused rollout: pods are still created where missing
// and failed ones replaced, but no old pod is replaced until they are
// fixed (a typo must not mean "no policy").
func (c *Controller) annotatedRollout(key string, ds *appsv1.DaemonSet) (*appsv1.DaemonSet, daemon.RolloutPolicy) {
	a, err := daemon.ParseRolloutAnnotations(ds.Annotations)
	if a == nil && err == nil {
		return ds, daemon.RolloutPolicy{}
	}
	reason := ReasonInvalidAnnotations
	var strategy appsv1.DaemonSetUpdateStrategy
	if err == nil {
		strategy, err = a.Strategy(ds)
		reason = strategyReason(err)
	}
	if err != nil {
		c.warn(key, ds, reason, "no old pod is replaced until this is fixed: "+err.Error())
		return ds, daemon.RolloutPolicy{Paused: true}
	}
	planned := *ds
	planned.Spec.UpdateStrategy = strategy
	return &planned, a.Policy
}

// strategyReason is the reason of an error of RolloutAnnotations.Strategy:
// ReasonSurgeUnsupported when an OnDelete DaemonSet asks for surge,
// ReasonInvalidAnnotations otherwise.
func strategyReason(err error) string {
	var fe *field.Error
	if errors.As(err, &fe) && strings.HasSuffix(fe.Field, "maxSurge") {
		return ReasonSurgeUnsupported
	}
	return ReasonInvalidAnnotations
}
