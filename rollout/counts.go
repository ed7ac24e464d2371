package rollout

import (
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Field paths of the two rolling-update budgets, used in the errors of
// SurgeCount and UnavailableCount.
var (
	maxSurgePath       = field.NewPath("spec", "updateStrategy", "rollingUpdate", "maxSurge")
	maxUnavailablePath = field.NewPath("spec", "updateStrategy", "rollingUpdate", "maxUnavailable")
)

// SurgeCount returns how many pods above numberToSchedule a rolling update
// may run: 0 unless ds uses the RollingUpdate strategy with a non-nil
// rollingUpdate.maxSurge, otherwise maxSurge scaled against
// numberToSchedule, with percentages rounded up (as upstream's
// util.SurgeCount). An invalid value (a string that is not a percentage, a
// malformed number) is a field error at
// spec.updateStrategy.rollingUpdate.maxSurge. A nil ds returns 0 and an
// error. Negative values are returned as they are, as upstream does.
//
// Errors are a *field.Error of type Invalid (test with errors.As), or
// ErrNilDaemonSet. It modifies nothing, costs O(1) and allocates only on
// error.
func SurgeCount(ds *appsv1.DaemonSet, numberToSchedule int) (int, error) {
	if ds == nil {
		return 0, ErrNilDaemonSet
	}
	if ds.Spec.UpdateStrategy.Type != appsv1.RollingUpdateDaemonSetStrategyType {
		return 0, nil
	}
	ru := ds.Spec.UpdateStrategy.RollingUpdate
	if ru == nil || ru.MaxSurge == nil {
		return 0, nil
	}
	return scaleBudget(ru.MaxSurge, maxSurgePath, numberToSchedule)
}

// UnavailableCount returns how many pods a rolling update may take down at
// once: 0 unless ds uses the RollingUpdate strategy with a non-nil
// rollingUpdate, otherwise rollingUpdate.maxUnavailable scaled against
// numberToSchedule, with percentages rounded up (as upstream's
// util.UnavailableCount). A nil maxUnavailable inside a non-nil
// rollingUpdate is an error, as upstream; so is an invalid value. Errors are
// field errors at spec.updateStrategy.rollingUpdate.maxUnavailable. A nil ds
// returns 0 and an error. Negative values are returned as they are, as
// upstream does.
//
// Errors are a *field.Error (Required for nil, Invalid otherwise; test with
// errors.As), or ErrNilDaemonSet. It modifies nothing, costs O(1) and
// allocates only on error.
func UnavailableCount(ds *appsv1.DaemonSet, numberToSchedule int) (int, error) {
	if ds == nil {
		return 0, ErrNilDaemonSet
	}
	if ds.Spec.UpdateStrategy.Type != appsv1.RollingUpdateDaemonSetStrategyType {
		return 0, nil
	}
	ru := ds.Spec.UpdateStrategy.RollingUpdate
	if ru == nil {
		return 0, nil
	}
	if ru.MaxUnavailable == nil {
		return 0, field.Required(maxUnavailablePath, "required when rollingUpdate is set")
	}
	return scaleBudget(ru.MaxUnavailable, maxUnavailablePath, numberToSchedule)
}

// AllowsSurge reports whether ds may run more than one pod on a node during
// an update: SurgeCount(ds, 1) is positive and valid. Any positive
// percentage allows surge. A nil ds does not.
func AllowsSurge(ds *appsv1.DaemonSet) bool {
	n, err := SurgeCount(ds, 1)
	return err == nil && n > 0
}

// scaleBudget scales v against total with apimachinery's rounding-up rule
// and turns a failure into an Invalid field error at path. v must be
// non-nil.
func scaleBudget(v *intstr.IntOrString, path *field.Path, total int) (int, error) {
	n, err := intstr.GetScaledValueFromIntOrPercent(v, total, true)
	if err != nil {
		return 0, field.Invalid(path, v.String(), `must be an integer or a percentage such as "25%"`)
	}
	return n, nil
}
