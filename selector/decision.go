package selector

import (
	"cmp"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

// Decision is what a claim does with one object (see ClaimPods).
type Decision uint8

// The decisions of a claim.
const (
	// Ignore: not the owner's business (another namespace or controller, an
	// orphan that does not match or may not be adopted), or nil.
	Ignore Decision = iota
	// Own: controlled by the owner and matched: claimed.
	Own
	// Adopt: an orphan to adopt: claimed too.
	Adopt
	// Release: controlled by the owner, no longer matched.
	Release
)

// Claimed reports whether the owner controls the object after the claim:
// Own or Adopt.
func (d Decision) Claimed() bool { return d == Own || d == Adopt }

// String returns the decision's name.
func (d Decision) String() string {
	switch d {
	case Own:
		return "Own"
	case Adopt:
		return "Adopt"
	case Release:
		return "Release"
	default:
		return "Ignore"
	}
}

// DecidePod returns what ClaimPods does with pod, for callers that claim
// pods one at a time in a pass of their own (a nil pod is ignored). It
// costs one label-selector match and does not allocate.
func DecidePod(owner Owner, sel labels.Selector, pod *corev1.Pod) Decision {
	if pod == nil {
		return Ignore
	}
	return decide(owner, sel, &pod.ObjectMeta, podListed(owner))
}

// podListed reports whether upstream's pod index lists a pod with the
// controller reference ref for owner: only pods whose controller reference
// carries the owner's Kind, Name and UID; any other controller hides a pod.
func podListed(owner Owner) func(ref *metav1.OwnerReference) bool {
	return func(ref *metav1.OwnerReference) bool {
		return ref.Kind == owner.Kind && ref.Name == owner.Name && ref.UID == owner.UID
	}
}

func podMeta(p *corev1.Pod) *metav1.ObjectMeta                     { return &p.ObjectMeta }
func revisionMeta(r *appsv1.ControllerRevision) *metav1.ObjectMeta { return &r.ObjectMeta }

// claim sorts objs into claimed, adopted and released objects. listed
// reports whether an object with the given (non-nil) controller reference
// is among those upstream lists for the owner at all. Each result is sorted
// by name, then UID, then input position (so equal keys keep their input
// order), and nil when empty.
//
// One pass decides and counts; the kept objects' keys are then copied into
// a scratch slice and sorted there, so the sort compares contiguous keys
// instead of chasing a pointer per comparison; a last pass fills exactly
// sized results in that order (Adopt is the sorted subsequence of Claimed).
// Five allocations in all, whatever len(objs).
func claim[T any](owner Owner, sel labels.Selector, objs []*T, meta func(*T) *metav1.ObjectMeta, listed func(*metav1.OwnerReference) bool) (claimed, adopted, released []*T) {
	if len(objs) == 0 {
		return nil, nil, nil
	}
	decisions := make([]Decision, len(objs))
	var nClaimed, nAdopt, nRelease int
	for i, obj := range objs {
		if obj == nil {
			continue
		}
		v := decide(owner, sel, meta(obj), listed)
		decisions[i] = v
		switch v {
		case Own:
			nClaimed++
		case Adopt:
			nClaimed++
			nAdopt++
		case Release:
			nRelease++
		}
	}
	if nClaimed+nRelease == 0 {
		return nil, nil, nil
	}
	keys := make([]sortKey, 0, nClaimed+nRelease)
	for i, v := range decisions {
		if v != Ignore {
			m := meta(objs[i])
			keys = append(keys, sortKey{name: m.Name, uid: m.UID, index: i, decision: v})
		}
	}
	slices.SortFunc(keys, func(a, b sortKey) int {
		return cmp.Or(cmp.Compare(a.name, b.name), cmp.Compare(a.uid, b.uid), cmp.Compare(a.index, b.index))
	})
	claimed = makeOrNil[T](nClaimed)
	adopted = makeOrNil[T](nAdopt)
	released = makeOrNil[T](nRelease)
	for _, k := range keys {
		obj := objs[k.index]
		switch k.decision {
		case Own:
			claimed = append(claimed, obj)
		case Adopt:
			claimed = append(claimed, obj)
			adopted = append(adopted, obj)
		case Release:
			released = append(released, obj)
		}
	}
	return claimed, adopted, released
}

// sortKey is the sort key of one kept object and where to find it.
type sortKey struct {
	name     string
	uid      types.UID
	index    int
	decision Decision
}

// makeOrNil returns an empty slice with capacity n, or nil when n is 0.
func makeOrNil[T any](n int) []*T {
	if n == 0 {
		return nil
	}
	return make([]*T, 0, n)
}

// decide applies upstream's listing filter and then its claim rules to one
// object:
//   - another namespace: ignored (never listed);
//   - a controller reference that listed rejects: ignored (never listed);
//   - a controller reference with another UID: ignored (another owner);
//   - the owner's, matched: Own, even while the owner is deleting;
//   - the owner's, not matched: Release, or Ignore while the owner is
//     deleting;
//   - an orphan: Adopt when matched, the owner is not deleting and the
//     object has no deletionTimestamp; else ignored.
func decide(owner Owner, sel labels.Selector, m *metav1.ObjectMeta, listed func(*metav1.OwnerReference) bool) Decision {
	if m.Namespace != owner.Namespace {
		return Ignore
	}
	ref := controllerOf(m.OwnerReferences)
	matched := sel != nil && sel.Matches(labels.Set(m.Labels))
	if ref != nil {
		switch {
		case !listed(ref) || ref.UID != owner.UID:
			return Ignore
		case matched:
			return Own
		case owner.Deleting:
			return Ignore
		default:
			return Release
		}
	}
	if owner.Deleting || !matched || m.DeletionTimestamp != nil {
		return Ignore
	}
	return Adopt
}

// controllerOf returns a pointer into refs to the first reference whose
// controller field is true, or nil. Unlike metav1.GetControllerOf it does
// not copy.
func controllerOf(refs []metav1.OwnerReference) *metav1.OwnerReference {
	for i := range refs {
		if c := refs[i].Controller; c != nil && *c {
			return &refs[i]
		}
	}
	return nil
}
