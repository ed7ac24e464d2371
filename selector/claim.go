package selector

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

// Owner is the controller that claims objects: a DaemonSet's identity and
// whether it is being deleted.
type Owner struct {
	Namespace string
	Name      string
	UID       types.UID
	// Kind is the controller reference kind pods must carry to be seen as
	// this owner's (see ClaimPods); "DaemonSet" for a DaemonSet.
	Kind string
	// Deleting is true when the owner has a deletionTimestamp: it then
	// neither adopts nor releases.
	Deleting bool
}

// OwnerOf returns the Owner of ds: its namespace, name, UID, Kind
// "DaemonSet" and whether it has a deletionTimestamp. A nil ds gives the
// zero Owner.
func OwnerOf(ds *appsv1.DaemonSet) Owner {
	if ds == nil {
		return Owner{}
	}
	return Owner{
		Namespace: ds.Namespace,
		Name:      ds.Name,
		UID:       ds.UID,
		Kind:      "DaemonSet",
		Deleting:  ds.DeletionTimestamp != nil,
	}
}

// PodClaims is the outcome of ClaimPods. Every slice is sorted by pod name,
// then UID, and holds the caller's pointers, unmodified.
type PodClaims struct {
	// Claimed are the pods the owner controls after this claim: the ones it
	// already owns and the orphans it adopts.
	Claimed []*corev1.Pod
	// Adopt are the orphans to adopt (a subset of Claimed): the caller adds
	// the owner's controller reference.
	Adopt []*corev1.Pod
	// Release are the pods the owner controls whose labels no longer match:
	// the caller removes the owner's controller reference.
	Release []*corev1.Pod
}

// ClaimPods decides, for every pod, what upstream's DaemonSet controller
// does with it (controller.FilterPodsByOwner followed by
// PodControllerRefManager.ClaimPods). A pod is considered only when it is in
// the owner's namespace and either has no controller reference or has a
// controller reference with the owner's Kind, Name and UID. Of those:
//  1. controlled by the owner and matched by sel: claimed;
//  2. controlled by the owner, not matched: released, unless the owner is
//     deleting (then ignored);
//  3. an orphan matched by sel, not being deleted itself, owner not
//     deleting: adopted (and claimed);
//  4. anything else: ignored.
//
// nil pods are skipped. It modifies nothing and costs O(len(pods)) label
// matches plus a sort of the results.
//
// Only the first ownerReference with controller set to true counts as the
// controller reference; other references that name the owner leave a pod an
// orphan. Kind, Name and UID are compared field by field (upstream joins
// them into an index key; both agree for names the API server accepts). A
// nil sel matches nothing, like labels.Nothing(). Pods with equal name and
// UID keep their input order. A slice with no pods is nil. Apart from the
// three result slices it allocates two scratch blocks: one byte per pod, and
// one sort key per kept pod.
func ClaimPods(owner Owner, sel labels.Selector, pods []*corev1.Pod) PodClaims {
	claimed, adopt, release := claim(owner, sel, pods, podMeta, podListed(owner))
	return PodClaims{Claimed: claimed, Adopt: adopt, Release: release}
}

// RevisionClaims is the outcome of ClaimRevisions. Every slice is sorted by
// name, then UID, and holds the caller's pointers, unmodified.
type RevisionClaims struct {
	// Claimed are the revisions the owner controls after this claim: the
	// ones it already owns and the orphans it adopts.
	Claimed []*appsv1.ControllerRevision
	// Adopt are the orphans to adopt (a subset of Claimed): the caller adds
	// the owner's controller reference.
	Adopt []*appsv1.ControllerRevision
	// Release are the revisions the owner controls whose labels no longer
	// match: the caller removes the owner's controller reference.
	Release []*appsv1.ControllerRevision
}

// ClaimRevisions is ClaimPods for ControllerRevisions, as upstream's
// ControllerRevisionControllerRefManager does: every revision of the owner's
// namespace is considered (revisions of other namespaces are ignored), a
// controller reference counts as the owner's when its UID is the owner's
// UID, whatever its kind or name, and rules 1-4 of ClaimPods apply with sel
// matched against the revision's labels. nil revisions are skipped.
//
// As in ClaimPods, only the first controller reference counts, a nil sel
// matches nothing, revisions with equal name and UID keep their input order,
// a slice with no revisions is nil, and it modifies nothing and costs
// O(len(revs)) label matches plus a sort of the results.
func ClaimRevisions(owner Owner, sel labels.Selector, revs []*appsv1.ControllerRevision) RevisionClaims {
	claimed, adopt, release := claim(owner, sel, revs, revisionMeta, func(*metav1.OwnerReference) bool {
		// Revisions are listed by namespace only: every controller
		// reference reaches the UID comparison.
		return true
	})
	return RevisionClaims{Claimed: claimed, Adopt: adopt, Release: release}
}
