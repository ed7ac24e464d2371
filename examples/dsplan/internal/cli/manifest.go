package cli

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/tools/cache"

	"github.com/daemonplan/daemonplan/daemon/apply"
	"github.com/daemonplan/daemonplan/daemon/validation"
	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot"
	"github.com/daemonplan/daemonplan/rollout"
)

// "What if I apply this?": a DaemonSet without metadata.uid in the input
// is a manifest (from git, a chart's output), not an object read from a
// cluster, which always has one. It is applied as kubectl apply and the
// API server would store it. Over the captured DaemonSet of the same
// namespace and name: kubectl apply's patch, computed from the manifest's
// own JSON (explicit empty values and nulls included; see attachRaw), the
// last-applied annotation and the captured object (apply.Merge), then the
// API server's validation of the merged object (validation.Validate, and
// the immutable selector), then the write (apply.Update: identity and
// status from the cluster's object, generation and template generation
// bumped on a change). With no such DaemonSet: the manifest decoded
// strictly and validated, then created with a uid derived from its
// namespace and name (apply.Create). A manifest the API server would
// reject is that error (exit 1). The plans and simulations then run on
// the result.

// manifest is a DaemonSet without a uid, and the file it came from.
type manifest struct {
	file string
	ds   *appsv1.DaemonSet
	// raw is the manifest's own JSON (see attachRaw): what kubectl apply
	// sends, explicit empty values and nulls included.
	raw []byte
}

// appliedManifest says what became of a manifest.
type appliedManifest struct {
	file, name string
	// over is the captured DaemonSet it was applied over; nil when it was
	// created.
	over   *appsv1.DaemonSet
	result *appsv1.DaemonSet
	change apply.Change
	// diff are the template's changed fields (apply.TemplateDiff);
	// rollback the older revision the template returns to
	// (rollout.RollbackTo), 0 when it is new.
	diff     []apply.FieldDiff
	rollback int64
}

// describe is the header line.
func (a appliedManifest) describe() string {
	if a.over == nil {
		return fmt.Sprintf("%s: DaemonSet %s created (no such DaemonSet in the capture; uid %s)", a.file, a.name, a.result.UID)
	}
	var what string
	switch {
	case a.change.Template && a.rollback > 0:
		what = fmt.Sprintf("the template is revision %d's: a rollback to revision %d starts", a.rollback, a.rollback)
	case a.change.Template:
		what = "the template changes: a rollout starts"
	case a.change.Spec:
		what = "the spec changes, the template does not: no rollout"
	default:
		what = "no change to the spec"
	}
	return fmt.Sprintf("%s: DaemonSet %s over the captured one (uid %s, generation %d -> %d, template generation %s -> %s): %s",
		a.file, a.name, a.over.UID, a.over.Generation, a.result.Generation,
		orDash(a.over.Annotations[appsv1.DeprecatedTemplateGeneration]), a.result.Annotations[appsv1.DeprecatedTemplateGeneration], what)
}

// takeManifests removes the DaemonSets without a uid from s and returns
// them.
func takeManifests(s *snapshot.Snapshot, file string) []manifest {
	var out []manifest
	s.DaemonSets = slices.DeleteFunc(s.DaemonSets, func(ds *appsv1.DaemonSet) bool {
		if ds != nil && ds.UID == "" {
			out = append(out, manifest{file: file, ds: ds})
			return true
		}
		return false
	})
	return out
}

// applyManifests applies the manifests, in the order of the files, over
// the snapshot's DaemonSets.
func (l *loaded) applyManifests() error {
	for _, m := range l.manifests {
		name := cache.MetaObjectToName(m.ds).String()
		a := appliedManifest{file: m.file, name: name}
		i := slices.IndexFunc(l.snap.DaemonSets, func(d *appsv1.DaemonSet) bool {
			return d != nil && d.Namespace == m.ds.Namespace && d.Name == m.ds.Name
		})
		if i >= 0 {
			a.over = l.snap.DaemonSets[i]
		}
		stored, err := m.asStored(a.over)
		if err != nil {
			return &inputError{fmt.Errorf("%s: daemonset %q: the API server would reject it: %w", m.file, name, err)}
		}
		if a.over != nil {
			a.result, a.change, err = apply.Update(a.over, stored)
			if err == nil && a.change.Template {
				a.diff, err = apply.TemplateDiff(a.over, a.result)
			}
		} else {
			a.result, err = apply.Create(stored, manifestUID(m.ds), l.now)
		}
		if err != nil {
			return &inputError{fmt.Errorf("%s: daemonset %q: %w", m.file, name, err)}
		}
		putDaemonSet(l.snap, a.result)
		if a.change.Template {
			if in, err := l.snap.For(a.result.Namespace, a.result.Name); err == nil {
				if a.rollback, err = rollout.RollbackTo(a.result, in.Revisions); err != nil {
					return &inputError{fmt.Errorf("%s: daemonset %q: %w", m.file, name, err)}
				}
			}
		}
		l.applied = append(l.applied, a)
	}
	return nil
}

// asStored returns the object the API server validates and stores when
// kubectl apply writes the manifest: with over, the captured object,
// kubectl's patch applied to it (apply.Merge); without, the manifest
// itself, decoded strictly. An error is what the API server would answer:
// a decoding error, or the object's field errors (validation.Validate; and
// a changed selector, which is immutable).
func (m manifest) asStored(over *appsv1.DaemonSet) (*appsv1.DaemonSet, error) {
	raw := m.raw
	if raw == nil {
		// A manifest of the embedded cluster, read without its JSON.
		var err error
		if raw, err = json.Marshal(m.ds); err != nil {
			return nil, err
		}
	}
	var ds *appsv1.DaemonSet
	var err error
	if over != nil {
		ds, err = apply.Merge(over, raw)
	} else if ds, err = apply.DecodeManifest(raw); err == nil && ds.Namespace == "" {
		ds.Namespace = m.ds.Namespace
	}
	if err != nil {
		return nil, err
	}
	errs := validation.Validate(ds)
	if over != nil {
		errs = append(errs, apimachineryvalidation.ValidateImmutableField(ds.Spec.Selector, over.Spec.Selector, field.NewPath("spec", "selector"))...)
	}
	if len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	return ds, nil
}

// manifestUID is the uid a created DaemonSet gets: derived from its
// namespace and name, so that the same input plans the same.
func manifestUID(ds *appsv1.DaemonSet) types.UID {
	sum := sha256.Sum256([]byte(cache.MetaObjectToName(ds).String()))
	h := hex.EncodeToString(sum[:16])
	return types.UID(h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32])
}

// putDaemonSet puts ds in s, replacing the one of the same namespace and
// name, keeping the DaemonSets sorted.
func putDaemonSet(s *snapshot.Snapshot, ds *appsv1.DaemonSet) {
	s.DaemonSets = put(s.DaemonSets, ds, func(d *appsv1.DaemonSet) (string, string) { return d.Namespace, d.Name }, nil)
}

// merge adds src's objects to dst, as if src's documents came after
// dst's: an object replaces one of the same kind, namespace and name (a
// Replaced note), each kind stays sorted, and src's notes join dst's.
func merge(dst, src *snapshot.Snapshot) {
	if len(dst.DaemonSets)+len(dst.Nodes)+len(dst.Pods)+len(dst.Revisions)+len(dst.Notes) == 0 {
		*dst = *src
		return
	}
	replaced := func(what string) func(ns, name string) {
		return func(ns, name string) {
			if ns != "" {
				name = ns + "/" + name
			}
			addNote(dst, snapshot.Note{Reason: snapshot.NoteReplaced, What: what, Count: 1, Names: []string{name}})
		}
	}
	for _, ds := range src.DaemonSets {
		dst.DaemonSets = put(dst.DaemonSets, ds, func(d *appsv1.DaemonSet) (string, string) { return d.Namespace, d.Name }, replaced("apps/v1 DaemonSet"))
	}
	for _, n := range src.Nodes {
		dst.Nodes = put(dst.Nodes, n, func(n *corev1.Node) (string, string) { return "", n.Name }, replaced("v1 Node"))
	}
	for _, p := range src.Pods {
		dst.Pods = put(dst.Pods, p, func(p *corev1.Pod) (string, string) { return p.Namespace, p.Name }, replaced("v1 Pod"))
	}
	for _, r := range src.Revisions {
		dst.Revisions = put(dst.Revisions, r, func(r *appsv1.ControllerRevision) (string, string) { return r.Namespace, r.Name }, replaced("apps/v1 ControllerRevision"))
	}
	for _, n := range src.Notes {
		addNote(dst, n)
	}
}

// addNote adds n to s's notes, summing it into a note of the same reason
// and kind, keeping them sorted by reason, then kind, as Add does.
func addNote(s *snapshot.Snapshot, n snapshot.Note) {
	i, found := slices.BinarySearchFunc(s.Notes, n, func(a, b snapshot.Note) int {
		return cmp.Or(strings.Compare(string(a.Reason), string(b.Reason)), strings.Compare(a.What, b.What))
	})
	if !found {
		s.Notes = slices.Insert(s.Notes, i, snapshot.Note{Reason: n.Reason, What: n.What})
	}
	m := &s.Notes[i]
	m.Count += n.Count
	for _, name := range n.Names {
		if len(m.Names) < 3 {
			m.Names = append(m.Names, name)
		}
	}
}

// put inserts v in the sorted list, replacing an entry of the same key
// (and calling replaced, when not nil).
func put[T any](list []T, v T, key func(T) (string, string), replaced func(ns, name string)) []T {
	ns, name := key(v)
	i, found := slices.BinarySearchFunc(list, v, func(e, _ T) int {
		ens, ename := key(e)
		return cmp.Or(strings.Compare(ens, ns), strings.Compare(ename, name))
	})
	if found {
		list[i] = v
		if replaced != nil {
			replaced(ns, name)
		}
		return list
	}
	return slices.Insert(list, i, v)
}
