package rollout

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// Patch returns the data a ControllerRevision of ds stores: the compact JSON
// {"spec":{"template":{...,"$patch":"replace"}}} with every object key
// sorted, byte-identical to upstream's getPatch. It modifies nothing.
func Patch(ds *appsv1.DaemonSet) ([]byte, error) {
	panic("unimplemented")
}

// Match reports whether rev stores ds's current template: its data equals
// Patch(ds) byte for byte. Revisions whose data was written pretty-printed
// do not match, as upstream.
func Match(ds *appsv1.DaemonSet, rev *appsv1.ControllerRevision) (bool, error) {
	panic("unimplemented")
}

// ConstructHistory reproduces upstream's constructHistory for one sync.
//
// claimed are the revisions ds controls after claiming
// (selector.ClaimRevisions). namespaceRevisions are all revisions of ds's
// namespace, claimed or not, used to detect that the name of a new revision
// is taken. pods are ds's claimed pods, used to relabel pods when duplicate
// current revisions are merged. nil entries are skipped.
//
// The rules, in order:
//  1. A claimed revision without the controller-revision-hash label gets it,
//     set to its own name (an Update).
//  2. Claimed revisions whose data matches Patch(ds) are current; the others
//     are Old.
//  3. With no current revision, a new one named <ds.Name>-<ComputeHash(template,
//     status.collisionCount)> is created with revision max(old)+1, the
//     template labels plus the hash label, ds's annotations and a
//     controller reference to ds. If that name is already taken in the
//     namespace by a revision whose data matches, that revision is current
//     and nothing is created; if its data differs, the result is a
//     *CollisionError and Plan.CollisionCount = status.collisionCount+1.
//  4. With several current revisions, the one with the highest revision
//     number is kept (ties: the lowest name, where upstream's pick is
//     arbitrary); the others are deleted, and every pod whose hash label
//     differs from the kept one's is relabelled.
//  5. The current revision's number is raised to max(old)+1 when lower.
//
// It modifies nothing.
func ConstructHistory(ds *appsv1.DaemonSet, claimed, namespaceRevisions []*appsv1.ControllerRevision, pods []*corev1.Pod) (History, error) {
	panic("unimplemented")
}

// CleanupHistory returns the old revisions to delete so that at most
// revisionHistoryLimit (DefaultRevisionHistoryLimit when nil) remain, as
// upstream's cleanupHistory: old revisions are taken from the lowest
// revision number up (ties by name), skipping those whose hash label is
// carried by any of livePods. livePods are the pods whose hashes count as
// live: upstream uses ds's claimed pods that resolve to a target node,
// including terminal pods being deleted. The result is sorted by name. A
// negative limit counts as 0. It modifies nothing.
func CleanupHistory(ds *appsv1.DaemonSet, old []*appsv1.ControllerRevision, livePods []*corev1.Pod) []*appsv1.ControllerRevision {
	panic("unimplemented")
}
