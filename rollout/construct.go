package rollout

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// hashLabel is the label that carries a revision's hash on revisions and pods.
const hashLabel = appsv1.ControllerRevisionHashLabelKey

// Patch returns the data a ControllerRevision of ds stores: the compact JSON
// {"spec":{"template":{...,"$patch":"replace"}}} with every object key
// sorted, byte-identical to upstream's getPatch. It modifies nothing.
//
// Like upstream it encodes the whole DaemonSet, decodes it into generic
// maps (integers stay integers) and re-encodes the template alone, so it
// fails exactly when upstream does: when some field of ds cannot be
// encoded (an IntOrString of unknown type, invalid raw managedFields). A nil
// ds returns ErrNilDaemonSet. The cost is that of encoding ds twice.
func Patch(ds *appsv1.DaemonSet) ([]byte, error) {
	if ds == nil {
		return nil, ErrNilDaemonSet
	}
	encoded, err := json.Marshal(ds)
	if err != nil {
		return nil, fmt.Errorf("encoding for the revision data: %w", err)
	}
	var generic map[string]any
	if err := utiljson.Unmarshal(encoded, &generic); err != nil {
		return nil, fmt.Errorf("decoding for the revision data: %w", err)
	}
	spec, _ := generic["spec"].(map[string]any)
	template, ok := spec["template"].(map[string]any)
	if !ok {
		// Unreachable for a typed DaemonSet: spec.template is a struct and
		// always encodes as an object.
		return nil, errors.New("spec.template did not encode as an object")
	}
	template["$patch"] = "replace"
	out, err := json.Marshal(map[string]any{"spec": map[string]any{"template": template}})
	if err != nil {
		return nil, fmt.Errorf("encoding the revision data: %w", err)
	}
	return out, nil
}

// Match reports whether rev stores ds's current template: its data equals
// Patch(ds) byte for byte. Revisions whose data was written pretty-printed
// do not match, as upstream.
//
// A nil rev matches nothing (false, no error). A nil ds, or a ds Patch
// cannot encode, returns false and Patch's error. It modifies nothing.
func Match(ds *appsv1.DaemonSet, rev *appsv1.ControllerRevision) (bool, error) {
	patch, err := Patch(ds)
	if err != nil {
		return false, err
	}
	if rev == nil {
		return false, nil
	}
	return bytes.Equal(patch, rev.Data.Raw), nil
}

// claimedRevision is one claimed revision as ConstructHistory sees it.
type claimedRevision struct {
	orig *appsv1.ControllerRevision // the caller's pointer
	eff  *appsv1.ControllerRevision // orig, or a copy given the hash label
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
//     namespace by a revision whose data matches, that revision is current;
//     the plan still holds the Create, because upstream sends it and
//     shrugs off the AlreadyExists (Current then differs from Plan.Create,
//     and an executor should treat AlreadyExists as success). If its data
//     differs, the result is a *CollisionError and Plan.CollisionCount =
//     status.collisionCount+1.
//  4. With several current revisions, the one with the highest revision
//     number is kept (ties: the lowest name, where upstream's pick is
//     arbitrary); the others are deleted, and every pod whose hash label
//     differs from the kept one's is relabelled.
//  5. The current revision's number is raised to max(old)+1 when lower.
//
// Before rules 3 to 5, when the newest claimed revision (highest revision
// number, ties: the lowest name) does not match, its data is decoded
// strictly: when it holds pod template fields this build's types do not
// know, the result is a *TemplateSkewError (errors.Is ErrTemplateSkew)
// with the zero History, nothing of the history to write (see
// TemplateSkewError for the identity rule). Upstream never meets such data
// from its own types; a build older than the cluster does.
//
// Details:
//   - max(old) is the highest revision number of Old, or 0 when Old is
//     empty or holds only numbers below 0.
//   - A label present with an empty value counts as present (rule 1), as
//     upstream.
//   - Two revisions with the same name cannot exist in one namespace. A
//     pointer given twice counts once, but two distinct objects with one
//     name in claimed, or in namespaceRevisions under the name rule 3
//     looks up, are an error (a *field.Error of type Duplicate),
//     not a guess.
//   - In rule 3 the name is taken when a revision in claimed, or else one
//     of ds's namespace in namespaceRevisions, carries it; a matching one
//     is current whatever its owner, its hash label (possibly "") is Hash,
//     and its revision number is left alone, as upstream. The new
//     revision's annotations are a copy of ds's (nil stays nil); its
//     labels are a new map.
//   - On collision (rule 3) the History that comes with the
//     *CollisionError has an empty Hash, a nil Current, the Old revisions and
//     a Plan with the label Updates of rule 1 and CollisionCount, which the
//     caller must write to status.collisionCount; the next sync computes a
//     new name. The count wraps at the int32 limit, as upstream's does.
//   - A duplicate deleted in rule 4 that lacks the hash label is in both
//     Update (rule 1) and Delete, as upstream labels it and then deletes it.
//   - Relabel holds pods in (name, UID) order; a pod given twice appears
//     twice (pods sharing name and UID cannot exist; their relative order
//     is unspecified).
//
// Upgrade hazard: matching is byte-exact, as upstream's. Controllers built
// with older Kubernetes libraries wrote `"creationTimestamp":null` into the
// template metadata of every revision; the patch of today's libraries
// omits it. Such a revision is then not current: a revision is created
// under the same name, the name is taken by data that differs, and the
// result is a *CollisionError with a bumped collision count, after which
// the next sync computes a new hash and every pod counts as outdated and is
// replaced. Upstream's controller does exactly that, so ConstructHistory
// does too; the CollisionError's Diff (or DiffRevision) names the
// differing path, here spec.template.metadata.creationTimestamp.
//
// nil ds returns ErrNilDaemonSet; an error of Patch(ds), a duplicate
// name or a template skew is returned with the zero History. It modifies nothing: Create and
// Update hold new objects, Delete, Relabel and Current (when unchanged)
// the caller's pointers. It costs O(r log r + p log p) for r revisions and p pods, plus
// one encoding of ds, when no revision is current one ComputeHash, and when
// the newest revision does not match one strict decoding of its data.
func ConstructHistory(ds *appsv1.DaemonSet, claimed, namespaceRevisions []*appsv1.ControllerRevision, pods []*corev1.Pod) (History, error) {
	if ds == nil {
		return History{}, ErrNilDaemonSet
	}
	patch, err := Patch(ds)
	if err != nil {
		return History{}, err
	}

	revs, err := claimedByName(ds, claimed)
	if err != nil {
		return History{}, err
	}
	var current, old []claimedRevision
	var h History
	var newest *appsv1.ControllerRevision // highest number, ties: lowest name (revs is in name order)
	for _, r := range revs {
		if newest == nil || r.Revision > newest.Revision {
			newest = r
		}
		cr := claimedRevision{orig: r, eff: r}
		if _, ok := r.Labels[hashLabel]; !ok {
			cr.eff = r.DeepCopy()
			if cr.eff.Labels == nil {
				cr.eff.Labels = make(map[string]string, 1)
			}
			cr.eff.Labels[hashLabel] = cr.eff.Name
		}
		if bytes.Equal(patch, r.Data.Raw) {
			current = append(current, cr)
		} else {
			old = append(old, cr)
		}
	}

	if newest != nil && !bytes.Equal(patch, newest.Data.Raw) {
		// The newest revision is not this template: either the template
		// changed (a new revision, or an older one raised), or this build
		// dropped fields of it (see TemplateSkewError). Only then is a
		// revision decoded.
		if skew := templateSkew(newest); skew != nil {
			return History{}, skew
		}
	}

	next := int64(1)
	for _, cr := range old {
		h.Old = append(h.Old, cr.eff)
		if cr.eff.Revision >= next {
			next = cr.eff.Revision + 1
		}
		if cr.eff != cr.orig {
			h.Plan.Update = append(h.Plan.Update, cr.eff)
		}
	}
	slices.SortFunc(h.Old, compareRevisionNumbers)

	if len(current) == 0 {
		hash := ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount)
		name := ds.Name + "-" + hash
		taken, err := takenRevision(ds, name, revs, namespaceRevisions)
		if err != nil {
			return History{}, err
		}
		switch {
		case taken == nil:
			h.Current = newRevision(ds, name, hash, patch, next)
			h.Plan.Create = h.Current
			h.Hash = hash
		case bytes.Equal(patch, taken.Data.Raw):
			// Upstream does not see this revision among its own, so it
			// still sends the create, gets AlreadyExists, finds the data
			// equal and goes on with the existing revision.
			h.Plan.Create = newRevision(ds, name, hash, patch, next)
			h.Current = taken
			h.Hash = taken.Labels[hashLabel]
		default:
			count := int32(1)
			if ds.Status.CollisionCount != nil {
				count = *ds.Status.CollisionCount + 1
			}
			h.Plan.CollisionCount = &count
			sortRevisionsByName(h.Plan.Update)
			diff := diffData(taken.Data.Raw, patch)
			return h, &CollisionError{Name: name, CollisionCount: count, Diff: &diff}
		}
		sortRevisionsByName(h.Plan.Update)
		return h, nil
	}

	// Keep the highest revision number; ties go to the lowest name.
	slices.SortFunc(current, func(a, b claimedRevision) int {
		return cmp.Or(cmp.Compare(b.eff.Revision, a.eff.Revision), compareRevisionNames(a.eff, b.eff))
	})
	kept := current[0]
	for _, dup := range current[1:] {
		if dup.eff != dup.orig {
			// Upstream labels every claimed revision before it looks for
			// duplicates, so a duplicate without the label is written once
			// before it is deleted.
			h.Plan.Update = append(h.Plan.Update, dup.eff)
		}
		h.Plan.Delete = append(h.Plan.Delete, dup.orig)
	}
	keptHash := kept.eff.Labels[hashLabel]
	if len(current) > 1 {
		h.Plan.Relabel = PodsToRelabel(pods, keptHash)
	}
	cur := kept.eff
	if cur.Revision < next {
		if cur == kept.orig {
			cur = cur.DeepCopy()
		}
		cur.Revision = next
	}
	if cur != kept.orig {
		h.Plan.Update = append(h.Plan.Update, cur)
	}
	h.Current = cur
	h.Hash = keptHash
	sortRevisionsByName(h.Plan.Update)
	sortRevisionsByName(h.Plan.Delete)
	return h, nil
}

// newRevision builds the ControllerRevision that records ds's template under
// name with the given hash, data and revision number.
func newRevision(ds *appsv1.DaemonSet, name, hash string, data []byte, number int64) *appsv1.ControllerRevision {
	labels := make(map[string]string, len(ds.Spec.Template.Labels)+1)
	maps.Copy(labels, ds.Spec.Template.Labels)
	labels[hashLabel] = hash
	return &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Namespace:   ds.Namespace,
			Labels:      labels,
			Annotations: maps.Clone(ds.Annotations),
			OwnerReferences: []metav1.OwnerReference{
				*metav1.NewControllerRef(ds, appsv1.SchemeGroupVersion.WithKind("DaemonSet")),
			},
		},
		Data:     runtime.RawExtension{Raw: data},
		Revision: number,
	}
}

// takenRevision returns the revision named name in claimed, or else the
// one of ds's namespace in all, or nil. Two distinct objects with that name
// in all are an error.
func takenRevision(ds *appsv1.DaemonSet, name string, claimed, all []*appsv1.ControllerRevision) (*appsv1.ControllerRevision, error) {
	for _, r := range claimed {
		if r.Name == name {
			return r, nil
		}
	}
	var found *appsv1.ControllerRevision
	for i, r := range all {
		if r == nil || r.Name != name || r.Namespace != ds.Namespace || r == found {
			continue
		}
		if found != nil {
			return nil, field.Duplicate(field.NewPath("namespaceRevisions").Index(i).Child("metadata", "name"), name)
		}
		found = r
	}
	return found, nil
}

// claimedByName returns the non-nil entries of claimed in (name, UID)
// order, each pointer once. Two distinct objects with one name are an
// error naming the later one's index. claimed is not modified.
func claimedByName(ds *appsv1.DaemonSet, claimed []*appsv1.ControllerRevision) ([]*appsv1.ControllerRevision, error) {
	type indexed struct {
		rev   *appsv1.ControllerRevision
		index int
	}
	all := make([]indexed, 0, len(claimed))
	for i, r := range claimed {
		if r != nil {
			all = append(all, indexed{r, i})
		}
	}
	slices.SortFunc(all, func(a, b indexed) int {
		return cmp.Or(compareRevisionNames(a.rev, b.rev), cmp.Compare(a.index, b.index))
	})
	out := make([]*appsv1.ControllerRevision, 0, len(all))
	var kept indexed // the last entry put in out
	for _, e := range all {
		if kept.rev != nil && kept.rev.Name == e.rev.Name {
			if kept.rev == e.rev {
				continue // the same pointer again
			}
			later := max(e.index, kept.index)
			return nil, field.Duplicate(field.NewPath("claimed").Index(later).Child("metadata", "name"), e.rev.Name)
		}
		out = append(out, e.rev)
		kept = e
	}
	return out, nil
}

// sortRevisionsByName sorts revs in place by name, then UID.
func sortRevisionsByName(revs []*appsv1.ControllerRevision) {
	slices.SortFunc(revs, compareRevisionNames)
}

func compareRevisionNames(a, b *appsv1.ControllerRevision) int {
	return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.UID, b.UID))
}

// compareRevisionNumbers orders by revision number, then name, then UID.
func compareRevisionNumbers(a, b *appsv1.ControllerRevision) int {
	return cmp.Or(cmp.Compare(a.Revision, b.Revision), compareRevisionNames(a, b))
}

// PodsToRelabel returns the pods whose controller-revision-hash label is
// not hash (a pod without the label included), in (name, UID) order: the
// pods ConstructHistory relabels when it merges duplicate current revisions
// (rule 4), hash being the kept revision's, History.Hash. A caller that
// learns the pods only after the history (the hash judges them) runs
// ConstructHistory without pods and, when its Plan.Delete holds merged
// duplicates, asks this of them. nil entries are skipped; nil when no pod
// qualifies. It modifies nothing and costs O(p log p) for p pods.
func PodsToRelabel(pods []*corev1.Pod, hash string) []*corev1.Pod {
	var out []*corev1.Pod
	for _, pod := range pods {
		if pod != nil && pod.Labels[hashLabel] != hash {
			out = append(out, pod)
		}
	}
	slices.SortFunc(out, func(a, b *corev1.Pod) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.UID, b.UID))
	})
	return out
}
