package rollout

import (
	"bytes"

	appsv1 "k8s.io/api/apps/v1"
)

// RollbackTo returns the number of the revision a template change rolls
// back to: ds is the DaemonSet after the change (its template new to the
// stored object), and the result is the highest-numbered revision of revs
// that Match accepts, whose template ds now has again. The controller
// reuses that revision (giving it the next number) instead of creating
// one, and its pods are the updated ones. It returns 0 when ds matches no
// revision: a new template. Called on a DaemonSet whose template did not
// change, it returns the current revision's number.
//
// Nil revisions are skipped. A nil ds, or one Patch cannot encode, returns
// Match's error. It modifies nothing.
func RollbackTo(ds *appsv1.DaemonSet, revs []*appsv1.ControllerRevision) (int64, error) {
	if ds == nil {
		return 0, ErrNilDaemonSet
	}
	// Match's comparison, with ds's patch encoded once for all revisions.
	patch, err := Patch(ds)
	if err != nil {
		return 0, err
	}
	var matched int64
	for _, rev := range revs {
		if rev != nil && bytes.Equal(patch, rev.Data.Raw) {
			matched = max(matched, rev.Revision)
		}
	}
	return matched, nil
}
