package selector_test

import (
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/daemonplan/daemonplan/selector"
)

// This file is the slow reference the claim tests compare against. It
// follows upstream's steps literally, one object at a time: list (the pod
// index keyed by "namespace" or "namespace/Kind/Name/UID", or the
// namespace lister for revisions), then the claim rules of
// BaseControllerRefManager.ClaimObject in their original order, then a
// stable sort by name and UID.

// oracleVerdict is the reference outcome for one object.
type oracleVerdict int

const (
	oracleIgnore oracleVerdict = iota
	oracleClaim
	oracleAdopt
	oracleRelease
)

// oracleClaimObject mirrors ClaimObject for an object already listed.
func oracleClaimObject(owner selector.Owner, sel labels.Selector, obj metav1.Object) oracleVerdict {
	if sel == nil {
		sel = labels.Nothing()
	}
	match := sel.Matches(labels.Set(obj.GetLabels()))
	if ref := metav1.GetControllerOf(obj); ref != nil {
		if ref.UID != owner.UID {
			return oracleIgnore
		}
		if match {
			return oracleClaim
		}
		if owner.Deleting {
			return oracleIgnore
		}
		return oracleRelease
	}
	if owner.Deleting || !match {
		return oracleIgnore
	}
	if obj.GetDeletionTimestamp() != nil {
		return oracleIgnore
	}
	if owner.Namespace != "" && owner.Namespace != obj.GetNamespace() {
		return oracleIgnore
	}
	return oracleAdopt
}

// podIndexKey is the key upstream's pod informer index files a pod under.
func podIndexKey(ns string, ref *metav1.OwnerReference) string {
	if ref == nil {
		return ns
	}
	return ns + "/" + ref.Kind + "/" + ref.Name + "/" + string(ref.UID)
}

func oracleClaimPods(owner selector.Owner, sel labels.Selector, pods []*corev1.Pod) selector.PodClaims {
	ownerKey := owner.Namespace + "/" + owner.Kind + "/" + owner.Name + "/" + string(owner.UID)
	var out selector.PodClaims
	for _, p := range pods {
		if p == nil {
			continue
		}
		k := podIndexKey(p.Namespace, metav1.GetControllerOf(p))
		if k != ownerKey && k != owner.Namespace {
			continue // not listed
		}
		switch oracleClaimObject(owner, sel, p) {
		case oracleClaim:
			out.Claimed = append(out.Claimed, p)
		case oracleAdopt:
			out.Claimed = append(out.Claimed, p)
			out.Adopt = append(out.Adopt, p)
		case oracleRelease:
			out.Release = append(out.Release, p)
		}
	}
	less := func(a, b *corev1.Pod) int { return byNameUID(&a.ObjectMeta, &b.ObjectMeta) }
	slices.SortStableFunc(out.Claimed, less)
	slices.SortStableFunc(out.Adopt, less)
	slices.SortStableFunc(out.Release, less)
	return out
}

func oracleClaimRevisions(owner selector.Owner, sel labels.Selector, revs []*appsv1.ControllerRevision) selector.RevisionClaims {
	var out selector.RevisionClaims
	for _, r := range revs {
		if r == nil || r.Namespace != owner.Namespace {
			continue // the lister is scoped to the owner's namespace
		}
		switch oracleClaimObject(owner, sel, r) {
		case oracleClaim:
			out.Claimed = append(out.Claimed, r)
		case oracleAdopt:
			out.Claimed = append(out.Claimed, r)
			out.Adopt = append(out.Adopt, r)
		case oracleRelease:
			out.Release = append(out.Release, r)
		}
	}
	less := func(a, b *appsv1.ControllerRevision) int { return byNameUID(&a.ObjectMeta, &b.ObjectMeta) }
	slices.SortStableFunc(out.Claimed, less)
	slices.SortStableFunc(out.Adopt, less)
	slices.SortStableFunc(out.Release, less)
	return out
}
