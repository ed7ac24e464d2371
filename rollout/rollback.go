package rollout

import (
	appsv1 "k8s.io/api/apps/v1"
)

// RollbackTo returns the number of the older revision that ds's template
// is: the highest-numbered revision of revs that Match accepts, when a
// revision with a higher number exists. Writing such a template rolls the
// DaemonSet back: the controller reuses that revision (giving it the next
// number) instead of creating one. It returns 0 when ds matches no
// revision, or matches the newest (nothing to roll back to).
//
// Nil revisions are skipped. A nil ds, or one Patch cannot encode, returns
// Match's error. It modifies nothing.
func RollbackTo(ds *appsv1.DaemonSet, revs []*appsv1.ControllerRevision) (int64, error) {
	if ds == nil {
		return 0, ErrNilDaemonSet
	}
	var matched, newest int64
	for _, rev := range revs {
		if rev == nil {
			continue
		}
		newest = max(newest, rev.Revision)
		ok, err := Match(ds, rev)
		if err != nil {
			return 0, err
		}
		if ok {
			matched = max(matched, rev.Revision)
		}
	}
	if matched == 0 || matched == newest {
		return 0, nil
	}
	return matched, nil
}
