package rollout

import (
	"errors"
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// DefaultRevisionHistoryLimit is the revisionHistoryLimit used when a
// DaemonSet's is nil. The API server defaults the field to 10; upstream's
// controller dereferences it without a check and panics on nil.
const DefaultRevisionHistoryLimit = 10

// HistoryPlan is the ControllerRevision work of one sync. The zero value
// means no change. Objects in Create and Update are new values owned by the
// plan; those in Delete, Adopt, Release and Relabel are the caller's
// pointers, unmodified.
//
// # Order
//
// Apply the fields in this order, which is upstream's call order: Adopt and
// Release; Update; Create (or, with a collision, the status write of
// CollisionCount); Relabel; Delete. A revision may be in both Update and
// Delete: upstream first gives every claimed revision that lacks it the
// controller-revision-hash label, then deletes duplicates of the current
// revision and old revisions beyond the history limit, so a revision
// lacking the label is written and then deleted. Where upstream writes one
// revision twice (the label, then a raised revision number after the
// deletes), Update holds it once with both changes; where it labels
// several, Update holds them in name order rather than upstream's cache
// order.
type HistoryPlan struct {
	// Create is the current revision to create; nil when the DaemonSet
	// already controls it. When a revision with that name and the same data
	// exists but is not controlled by the DaemonSet, Create is still set, as
	// upstream still sends the create: the API answers AlreadyExists, which
	// the executor should take as success (History.Current is then the
	// existing revision).
	Create *appsv1.ControllerRevision
	// Update holds revisions to write back: the current revision with its
	// revision number raised above every old one, and revisions given the
	// missing controller-revision-hash label (set to their own name). A
	// revision needing both appears once, with both changes. Sorted by name.
	Update []*appsv1.ControllerRevision
	// Delete holds duplicates of the current revision and old revisions
	// beyond revisionHistoryLimit. Sorted by name.
	Delete []*appsv1.ControllerRevision
	// Relabel holds the pods whose controller-revision-hash label must be
	// set to the current hash because duplicate current revisions were
	// merged. Sorted by name.
	Relabel []*corev1.Pod
	// Adopt and Release are the revisions whose controller reference to the
	// DaemonSet must be added or removed. Sorted by name.
	Adopt, Release []*appsv1.ControllerRevision
	// CollisionCount, when non-nil, is the value status.collisionCount must
	// be set to because the name of the current revision is taken by a
	// revision with other data. It comes with a *CollisionError.
	CollisionCount *int32
}

// IsZero reports whether h asks for no change.
func (h HistoryPlan) IsZero() bool {
	return h.Create == nil && len(h.Update) == 0 && len(h.Delete) == 0 &&
		len(h.Relabel) == 0 && len(h.Adopt) == 0 && len(h.Release) == 0 &&
		h.CollisionCount == nil
}

// History is the outcome of ConstructHistory.
type History struct {
	// Hash is the controller-revision-hash label of the current revision:
	// the value new pods carry and IsPodUpdated compares against.
	Hash string
	// Current is the current revision as it is once Plan is applied (the
	// revision to create, the updated one, or the caller's pointer when it
	// needs no change).
	Current *appsv1.ControllerRevision
	// Old are the controlled revisions that do not match the template,
	// with the hash label they have once Plan is applied, sorted by
	// revision number, then name.
	Old []*appsv1.ControllerRevision
	// Plan holds Create, Update, the Delete of duplicates, Relabel and
	// CollisionCount. Adopt, Release and the cleanup of old revisions are
	// left to the caller (see CleanupHistory).
	Plan HistoryPlan
}

// ErrNilDaemonSet is the error the functions of this package that need a
// DaemonSet return when given nil. Test for it with errors.Is.
var ErrNilDaemonSet = errors.New("nil daemonset")

// CollisionError reports that the name of the revision for the current
// template is taken by a revision with different data. The plan that comes
// with it carries the bumped collision count; the next sync computes a new
// hash and name. Recover it with errors.As; its Diff says why the data
// differs (see the upgrade hazard on ConstructHistory).
type CollisionError struct {
	// Name is the revision name that is taken.
	Name string
	// CollisionCount is the bumped status.collisionCount.
	CollisionCount int32
	// Diff, when non-nil, is the first difference between the taken
	// revision's data and the DaemonSet's patch (see DiffRevision).
	// ConstructHistory always sets it.
	Diff *RevisionDiff
}

// Error describes the collision, naming the revision (the DaemonSet is
// the caller's), and ends with "; first difference: " and Diff when Diff
// is set.
func (e *CollisionError) Error() string {
	msg := fmt.Sprintf("controllerrevision %q already exists with different data; status.collisionCount must become %d",
		e.Name, e.CollisionCount)
	if e.Diff != nil {
		msg += "; first difference: " + e.Diff.String()
	}
	return msg
}

// HistoryLimit is how many old revisions ds keeps: its
// spec.revisionHistoryLimit, DefaultRevisionHistoryLimit when that is nil
// (upstream dereferences it and panics; nil is the API default), 0 when it
// is negative. CleanupHistory deletes nothing while old revisions number at
// most this. A nil ds gives DefaultRevisionHistoryLimit.
func HistoryLimit(ds *appsv1.DaemonSet) int {
	if ds == nil || ds.Spec.RevisionHistoryLimit == nil {
		return DefaultRevisionHistoryLimit
	}
	return max(int(*ds.Spec.RevisionHistoryLimit), 0)
}

// CleanupHistory returns the old revisions to delete so that at most
// revisionHistoryLimit (DefaultRevisionHistoryLimit when nil) remain, as
// upstream's cleanupHistory: old revisions are taken from the lowest
// revision number up (ties by name), skipping those whose hash label is
// carried by any of livePods. livePods are the pods whose hashes count as
// live: upstream uses ds's claimed pods that resolve to a target node,
// including terminal pods being deleted. The result is sorted by name. A
// negative limit counts as 0. It modifies nothing.
//
// Details: old is normally History.Old. nil entries of old and livePods are
// skipped and do not count. A pod's hash counts only when non-empty, so a
// revision with an empty or missing hash label is never spared. Upstream
// orders by revision number alone and leaves ties arbitrary; here ties go
// to the lowest name, then UID. A nil ds returns nil (upstream dereferences
// the limit and panics on a nil one; here nil means the API default). The
// result holds the caller's pointers, in (name, UID) order; it is nil when
// nothing is to be deleted. It costs O(r log r + p) for r revisions and p
// pods.
func CleanupHistory(ds *appsv1.DaemonSet, old []*appsv1.ControllerRevision, livePods []*corev1.Pod) []*appsv1.ControllerRevision {
	if ds == nil {
		return nil
	}
	limit := HistoryLimit(ds)
	candidates := make([]*appsv1.ControllerRevision, 0, len(old))
	for _, r := range old {
		if r != nil {
			candidates = append(candidates, r)
		}
	}
	toKill := len(candidates) - limit
	if toKill <= 0 {
		return nil
	}
	live := make(map[string]struct{}, len(livePods))
	for _, pod := range livePods {
		if pod == nil {
			continue
		}
		if hash := pod.Labels[hashLabel]; hash != "" {
			live[hash] = struct{}{}
		}
	}
	slices.SortFunc(candidates, compareRevisionNumbers)
	var doomed []*appsv1.ControllerRevision
	for _, r := range candidates {
		if toKill == 0 {
			break
		}
		if _, ok := live[r.Labels[hashLabel]]; ok {
			continue
		}
		doomed = append(doomed, r)
		toKill--
	}
	sortRevisionsByName(doomed)
	return doomed
}
