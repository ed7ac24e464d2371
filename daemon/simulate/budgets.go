package simulate

import (
	"cmp"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/daemonplan/daemonplan/rollout"
)

// Budgets are a DaemonSet's rolling-update budgets scaled against a
// desired count, the way upstream scales them.
type Budgets struct {
	// Desired is the count the budgets are scaled against.
	Desired int
	// MaxUnavailable and MaxSurge are rollout.UnavailableCount and
	// rollout.SurgeCount of the DaemonSet for Desired: maxUnavailable and
	// maxSurge scaled against Desired, percentages rounded up; 0 for a
	// strategy other than RollingUpdate (OnDelete), a nil rollingUpdate or
	// a nil maxSurge. When both are 0 and Desired is positive,
	// MaxUnavailable is 1 (upstream's fallback), so OnDelete gives
	// MaxUnavailable 1: budgets its controller never uses.
	MaxUnavailable, MaxSurge int
	// Err is the first error of rollout.UnavailableCount and
	// rollout.SurgeCount: an unparsable value, a nil maxUnavailable in a
	// rollingUpdate, or a nil DaemonSet. Both budgets are then taken as 0
	// before the fallback, so MaxUnavailable is 1 when Desired is positive;
	// Compute's rolling step fails on such a DaemonSet instead.
	Err error
}

// BudgetsOf returns ds's rolling-update budgets for desired nodes, as the
// rolling step scales them: rollout.UnavailableCount and rollout.SurgeCount
// with upstream's both-zero fallback (see Budgets). It modifies nothing.
func BudgetsOf(ds *appsv1.DaemonSet, desired int) Budgets {
	b := Budgets{Desired: desired}
	var errU, errS error
	b.MaxUnavailable, errU = rollout.UnavailableCount(ds, desired)
	b.MaxSurge, errS = rollout.SurgeCount(ds, desired)
	if b.Err = cmp.Or(errU, errS); b.Err != nil {
		b.MaxUnavailable, b.MaxSurge = 0, 0
	}
	if desired > 0 && b.MaxUnavailable == 0 && b.MaxSurge == 0 {
		b.MaxUnavailable = 1
	}
	return b
}
