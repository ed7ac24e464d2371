package syncer

import (
	"errors"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/daemon"
)

// Reasons of the warnings (both modes) and of the companion's
// RolloutProgressing condition when the rollout annotations cannot be
// planned.
const (
	// ReasonInvalidAnnotations: an annotation does not parse, or
	// contradicts another or the spec.
	ReasonInvalidAnnotations = "InvalidAnnotations"
	// ReasonSurgeUnsupported: an OnDelete DaemonSet asks for surge.
	ReasonSurgeUnsupported = "SurgeUnsupported"
)

// Rollout is what a DaemonSet's rollout annotations
// (daemon.ParseRolloutAnnotations) make of it: the one reading of them
// both modes share.
type Rollout struct {
	// Annotations are the parsed annotations; nil when the DaemonSet has
	// none (and Err is nil) or they do not parse.
	Annotations *daemon.RolloutAnnotations
	// Planned is the DaemonSet to plan with: a copy with the annotated
	// update strategy (an OnDelete DaemonSet rolls as RollingUpdate with
	// the annotated budget; a RollingUpdate one keeps its own budget,
	// surge included). Nil when there are no annotations or Err is set.
	Planned *appsv1.DaemonSet
	// Err says why the annotations cannot be planned: they do not parse,
	// or contradict the spec's budget. Reason is its reason,
	// ReasonSurgeUnsupported or ReasonInvalidAnnotations.
	Err    error
	Reason string
}

// OptedIn reports whether the DaemonSet has rollout annotations, valid or
// not.
func (r Rollout) OptedIn() bool { return r.Annotations != nil || r.Err != nil }

// RolloutOf reads ds's rollout annotations. ds is not modified.
func RolloutOf(ds *appsv1.DaemonSet) Rollout {
	a, err := daemon.ParseRolloutAnnotations(ds.Annotations)
	if err != nil {
		return Rollout{Err: err, Reason: ReasonInvalidAnnotations}
	}
	if a == nil {
		return Rollout{}
	}
	strategy, err := a.Strategy(ds)
	if err != nil {
		return Rollout{Annotations: a, Err: err, Reason: strategyReason(err)}
	}
	planned := *ds
	planned.Spec.UpdateStrategy = strategy
	return Rollout{Annotations: a, Planned: &planned}
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
