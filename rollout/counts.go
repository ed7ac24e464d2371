package rollout

import (
	appsv1 "k8s.io/api/apps/v1"
)

// SurgeCount returns how many pods above numberToSchedule a rolling update
// may run: 0 unless ds uses the RollingUpdate strategy with a non-nil
// rollingUpdate.maxSurge, otherwise maxSurge scaled against
// numberToSchedule, with percentages rounded up (as upstream's
// util.SurgeCount). An invalid value (a string that is not a percentage, a
// malformed number) is a field error at
// spec.updateStrategy.rollingUpdate.maxSurge naming the DaemonSet. A nil ds
// returns 0 and an error. Negative values are returned as they are, as
// upstream does.
func SurgeCount(ds *appsv1.DaemonSet, numberToSchedule int) (int, error) {
	panic("unimplemented")
}

// UnavailableCount returns how many pods a rolling update may take down at
// once: 0 unless ds uses the RollingUpdate strategy with a non-nil
// rollingUpdate, otherwise rollingUpdate.maxUnavailable scaled against
// numberToSchedule, with percentages rounded up (as upstream's
// util.UnavailableCount). A nil maxUnavailable inside a non-nil
// rollingUpdate is an error, as upstream; so is an invalid value. Errors are
// field errors at spec.updateStrategy.rollingUpdate.maxUnavailable naming the
// DaemonSet. A nil ds returns 0 and an error.
func UnavailableCount(ds *appsv1.DaemonSet, numberToSchedule int) (int, error) {
	panic("unimplemented")
}

// AllowsSurge reports whether ds may run more than one pod on a node during
// an update: SurgeCount(ds, 1) is positive and valid. Any positive
// percentage allows surge. A nil ds does not.
func AllowsSurge(ds *appsv1.DaemonSet) bool {
	panic("unimplemented")
}
