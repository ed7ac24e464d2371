package apply

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Change says what an Update changed.
type Change struct {
	// Template is true when the pod template changed: the generation and
	// the template generation went up, and the controller will roll out a
	// new revision.
	Template bool
	// Spec is true when the spec changed, the template or anything else:
	// the generation went up.
	Spec bool
	// Dropped lists the labels and annotations of the stored object and
	// of its template that the manifest leaves out, as field paths
	// (metadata.annotations[KEY], spec.template.metadata.labels[KEY]), in
	// that order of the four maps and by key within each. The update
	// removes them, where kubectl apply keeps those it did not set
	// itself. The template-generation and kubectl's last-applied
	// annotations are not listed: the API server and kubectl rewrite them.
	Dropped []string
}

// Create returns the DaemonSet the API server stores when manifest is
// created: Defaults applied; uid and creationTimestamp now (to the
// second) set; generation 1; the template generation that of manifest's
// deprecated.daemonset.template.generation annotation when it is 1 or
// more, 1 otherwise, written back to the annotation; status, deletion
// timestamp, resourceVersion and managedFields cleared. The result is
// what the API server returns: it has been through its internal type
// (serviceAccount set to serviceAccountName, its alias; the pre-1.8
// init-container annotations of the template dropped) and its JSON
// encoding (canonical quantities, no empty lists), so that it reads as a
// stored object does and hashes as the controller will hash it.
//
// It returns an error, naming the field, for a nil manifest or an
// annotation that is not a base-10 integer (the API server cannot decode
// such an object). It does not validate otherwise: call validation.Validate
// first. It modifies nothing.
func Create(manifest *appsv1.DaemonSet, uid types.UID, now time.Time) (*appsv1.DaemonSet, error) {
	if manifest == nil {
		return nil, field.Required(field.NewPath("daemonSet"), "a DaemonSet is required")
	}
	gen, err := templateGeneration(manifest)
	if err != nil {
		return nil, err
	}
	out := Defaults(manifest)
	out.UID = uid
	out.CreationTimestamp = metav1.NewTime(now.Truncate(time.Second))
	out.DeletionTimestamp, out.DeletionGracePeriodSeconds = nil, nil
	out.ResourceVersion, out.ManagedFields = "", nil
	out.Generation = 1
	out.Status = appsv1.DaemonSetStatus{}
	setTemplateGeneration(out, max(gen, 1))
	return roundTrip(out)
}

// Update returns the DaemonSet the API server stores when manifest is
// written over stored (a PUT, or a kubectl apply of a manifest that sets
// every field), and what changed:
//
//  1. the manifest, with Defaults applied, gives the spec, labels,
//     annotations, owner references and finalizers;
//  2. stored gives the identity (uid, creationTimestamp, resourceVersion
//     as read, deletion timestamp) and the status: an update does not
//     write the status;
//  3. the template generation is stored's (its annotation; 0 without
//     one), whatever the manifest's annotation says; when the template
//     changed (compared semantically, after defaulting both), it and the
//     generation go up by one, and when only the rest of the spec
//     changed, the generation alone; the annotation is written back;
//  4. when the template is semantically unchanged, stored's template is
//     kept as it is, so that the revision hash does not move.
//
// As for Create, the result has been through the API server's internal
// type and JSON encoding. It returns an error, naming the field, for a nil argument, a
// name or namespace that differ (an empty namespace in manifest is
// stored's, as a request's URL supplies it), an unparsable
// template-generation annotation on either, and a changed
// spec.selector, which the API server refuses as immutable. It does not
// validate otherwise: call validation.Validate on manifest first. It modifies
// nothing.
func Update(stored, manifest *appsv1.DaemonSet) (*appsv1.DaemonSet, Change, error) {
	switch {
	case stored == nil:
		return nil, Change{}, field.Required(field.NewPath("stored"), "a stored DaemonSet is required")
	case manifest == nil:
		return nil, Change{}, field.Required(field.NewPath("daemonSet"), "a DaemonSet is required")
	}
	meta := field.NewPath("metadata")
	ns := manifest.Namespace
	if ns == "" {
		ns = stored.Namespace
	}
	switch {
	case manifest.Name != stored.Name:
		return nil, Change{}, field.Invalid(meta.Child("name"), manifest.Name, fmt.Sprintf("the stored object is %q", stored.Name))
	case ns != stored.Namespace:
		return nil, Change{}, field.Invalid(meta.Child("namespace"), manifest.Namespace, fmt.Sprintf("the stored object is in %q", stored.Namespace))
	}
	if _, err := templateGeneration(manifest); err != nil {
		return nil, Change{}, err
	}
	gen, err := templateGeneration(stored)
	if err != nil {
		return nil, Change{}, fmt.Errorf("the stored object: %w", err)
	}
	out := Defaults(manifest)
	if errs := apimachineryvalidation.ValidateImmutableField(out.Spec.Selector, stored.Spec.Selector, field.NewPath("spec", "selector")); len(errs) > 0 {
		return nil, Change{}, errs[0]
	}
	out.Namespace = ns
	out.UID, out.CreationTimestamp, out.ResourceVersion = stored.UID, stored.CreationTimestamp, stored.ResourceVersion
	out.DeletionTimestamp, out.DeletionGracePeriodSeconds = stored.DeletionTimestamp, stored.DeletionGracePeriodSeconds
	out.ManagedFields = stored.ManagedFields
	out.Generation = stored.Generation
	out.Status = *stored.Status.DeepCopy()
	if out, err = roundTrip(out); err != nil {
		return nil, Change{}, err
	}

	old, err := roundTrip(Defaults(stored))
	if err != nil {
		return nil, Change{}, fmt.Errorf("the stored object: %w", err)
	}
	var ch Change
	ch.Template = !apiequality.Semantic.DeepEqual(old.Spec.Template, out.Spec.Template)
	if ch.Template {
		gen++
	} else {
		out.Spec.Template = *stored.Spec.Template.DeepCopy()
		old.Spec.Template = out.Spec.Template
	}
	ch.Spec = !apiequality.Semantic.DeepEqual(old.Spec, out.Spec)
	if !ch.Spec {
		out.Spec = *stored.Spec.DeepCopy()
	} else {
		out.Generation++
	}
	setTemplateGeneration(out, gen)
	ch.Dropped = dropped(stored, out)
	return out, ch, nil
}

// templateGeneration reads the deprecated template-generation annotation,
// as the API server decodes it into spec.templateGeneration: 0 without
// it.
func templateGeneration(ds *appsv1.DaemonSet) (int64, error) {
	v, ok := ds.Annotations[appsv1.DeprecatedTemplateGeneration]
	if !ok {
		return 0, nil
	}
	gen, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, field.Invalid(field.NewPath("metadata", "annotations").Key(appsv1.DeprecatedTemplateGeneration), v, err.Error())
	}
	return gen, nil
}

// setTemplateGeneration writes the annotation, as the API server encodes
// spec.templateGeneration; it modifies ds, whose annotations are its own.
func setTemplateGeneration(ds *appsv1.DaemonSet, gen int64) {
	if ds.Annotations == nil {
		ds.Annotations = map[string]string{}
	}
	ds.Annotations[appsv1.DeprecatedTemplateGeneration] = strconv.FormatInt(gen, 10)
}

// initContainerAnnotations are the pod template annotations of the
// pre-1.8 init containers, which the API server drops on decoding.
var initContainerAnnotations = []string{
	"pod.beta.kubernetes.io/init-containers", "pod.alpha.kubernetes.io/init-containers",
	"pod.beta.kubernetes.io/init-container-statuses", "pod.alpha.kubernetes.io/init-container-statuses",
}

// roundTrip returns ds as the API server gives it back after storing it:
// through its internal type (serviceAccount and serviceAccountName, one
// an alias of the other, both set, serviceAccountName winning; the old
// init-container annotations of the template dropped) and its JSON
// encoding (quantities canonical, empty lists and maps gone). ds is the
// caller's own copy and may be modified.
func roundTrip(ds *appsv1.DaemonSet) (*appsv1.DaemonSet, error) {
	spec := &ds.Spec.Template.Spec
	if spec.ServiceAccountName == "" {
		spec.ServiceAccountName = spec.DeprecatedServiceAccount
	}
	spec.DeprecatedServiceAccount = spec.ServiceAccountName
	for _, k := range initContainerAnnotations {
		delete(ds.Spec.Template.Annotations, k)
	}
	data, err := json.Marshal(ds)
	if err != nil {
		return nil, fmt.Errorf("encoding: %w", err)
	}
	out := &appsv1.DaemonSet{}
	if err := json.Unmarshal(data, out); err != nil {
		return nil, fmt.Errorf("decoding: %w", err)
	}
	return out, nil
}

// lastApplied is the annotation kubectl apply keeps its manifest in.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// dropped lists the keys of stored's label and annotation maps (its own
// and its template's) that out lacks.
func dropped(stored, out *appsv1.DaemonSet) []string {
	var paths []string
	missing := func(p *field.Path, had, has map[string]string) {
		for _, k := range slices.Sorted(maps.Keys(had)) {
			if _, ok := has[k]; !ok && k != appsv1.DeprecatedTemplateGeneration && k != lastApplied {
				paths = append(paths, p.Key(k).String())
			}
		}
	}
	meta, tmpl := field.NewPath("metadata"), field.NewPath("spec", "template", "metadata")
	missing(meta.Child("labels"), stored.Labels, out.Labels)
	missing(meta.Child("annotations"), stored.Annotations, out.Annotations)
	missing(tmpl.Child("labels"), stored.Spec.Template.Labels, out.Spec.Template.Labels)
	missing(tmpl.Child("annotations"), stored.Spec.Template.Annotations, out.Spec.Template.Annotations)
	return paths
}
