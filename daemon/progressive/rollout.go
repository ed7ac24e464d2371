package progressive

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/daemonplan/daemonplan/daemon"
)

// Rollout is what the planner needs to roll one DaemonSet out as its
// rollout annotations ask: the DaemonSet as planned, and the policy.
type Rollout struct {
	// DaemonSet is the DaemonSet to plan with: the caller's when it has no
	// rollout annotations, when it is not OnDelete, or on error; else a
	// shallow copy given the annotated strategy (see
	// Annotations.Strategy): an OnDelete DaemonSet is planned as
	// RollingUpdate with the annotated budget (max-unavailable, 1 when
	// absent) and maxSurge 0. Its spec.updateStrategy.rollingUpdate is the
	// rollout's budget.
	DaemonSet *appsv1.DaemonSet
	// Policy is the annotated policy (Options.Rollout); the zero policy
	// without annotations; Paused on error.
	Policy daemon.RolloutPolicy
	// Annotations are the parsed annotations, nil when the DaemonSet has
	// not opted in (or on error). Their ProgressDeadline is the rollout's.
	Annotations *Annotations
	// Warnings are AnnotationWarnings of the DaemonSet's annotations:
	// keys that look like rollout annotations with a misspelt prefix,
	// ignored. Set whether or not the DaemonSet has opted in.
	Warnings []string
}

// ForDaemonSet is the one step from a DaemonSet to what the planner needs:
// it parses ds's rollout annotations (ParseAnnotations) and gives the
// DaemonSet to plan with and the policy (see Rollout). A DaemonSet without
// rollout annotations is planned as it is, under the zero policy
// (upstream's rollout).
//
// Invalid annotations, or a budget they contradict (Annotations.Strategy),
// are an error (every one matches daemon.ErrInvalidInput, and
// errors.As finds each *field.Error); the Rollout is then ds itself under a
// paused policy: what a controller plans with until the annotations are
// fixed, since a typo must not mean "no policy" (missing pods are still
// created and failed ones replaced, but no old pod is replaced). A nil ds
// is an error. Annotations with a near-miss prefix are not an error but
// Warnings, whatever else happens. It modifies nothing.
func ForDaemonSet(ds *appsv1.DaemonSet) (Rollout, error) {
	if ds == nil {
		return Rollout{}, fmt.Errorf("%w: nil DaemonSet", daemon.ErrInvalidInput)
	}
	warnings := AnnotationWarnings(ds.Annotations)
	a, err := ParseAnnotations(ds.Annotations)
	if err != nil {
		return Rollout{DaemonSet: ds, Policy: daemon.RolloutPolicy{Paused: true}, Warnings: warnings}, err
	}
	if a == nil {
		return Rollout{DaemonSet: ds, Warnings: warnings}, nil
	}
	strategy, err := a.Strategy(ds)
	if err != nil {
		return Rollout{DaemonSet: ds, Policy: daemon.RolloutPolicy{Paused: true}, Warnings: warnings}, err
	}
	planned := ds
	if strategy.Type != ds.Spec.UpdateStrategy.Type {
		cp := *ds
		cp.Spec.UpdateStrategy = strategy
		planned = &cp
	}
	return Rollout{DaemonSet: planned, Policy: a.Policy, Annotations: a, Warnings: warnings}, nil
}

// Options returns opts set to plan r: Rollout is r.Policy and ReportStanding is
// on, so that Judge can read the plan.
func (r Rollout) Options(opts daemon.Options) daemon.Options {
	opts.Rollout = r.Policy
	opts.ReportStanding = true
	return opts
}

// Inert says why ds's rollout annotations will not be carried out beside
// kube-controller-manager, "" when they will be or ds has none: ds has a
// key under AnnotationPrefix (or one that misspells the prefix, which
// ParseAnnotations refuses), valid or not, and its spec.updateStrategy is
// not OnDelete. kube-controller-manager then rolls ds out by itself under
// that strategy, and a controller beside it (companion mode) acts only on
// OnDelete DaemonSets, so no canary, wave, gate, window or deadline of the
// annotations applies. The text names the strategy and says what to
// change. A controller that replaces kube-controller-manager carries the
// annotations out whatever the strategy: this is companion mode's fact. It
// modifies nothing; a nil ds gives "".
func Inert(ds *appsv1.DaemonSet) string {
	if ds == nil || ds.Spec.UpdateStrategy.Type == appsv1.OnDeleteDaemonSetStrategyType || !optedIn(ds.Annotations) {
		return ""
	}
	strategy := ds.Spec.UpdateStrategy.Type
	if strategy == "" {
		strategy = appsv1.RollingUpdateDaemonSetStrategyType // the API server's default
	}
	return fmt.Sprintf("the rollout annotations will not be carried out: the companion rolls out only OnDelete DaemonSets, "+
		"and kube-controller-manager rolls out this %s one by itself, under spec.updateStrategy; "+
		"set spec.updateStrategy.type to OnDelete (rollingUpdate removed) for the companion to carry them out, or remove them", strategy)
}

// optedIn reports whether annotations have a key under AnnotationPrefix,
// or one that misspells it (misspelt).
func optedIn(annotations map[string]string) bool {
	for k := range annotations {
		if strings.HasPrefix(k, AnnotationPrefix) || misspelt(k) {
			return true
		}
	}
	return false
}
