package rollout

import (
	"errors"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// ErrTemplateSkew is what a *TemplateSkewError matches with errors.Is: the
// DaemonSet's revision history holds template fields this build's API
// types do not know, so the template it decoded cannot be matched to the
// revision kube-controller-manager recorded for it.
var ErrTemplateSkew = errors.New("template skew")

// TemplateSkewError reports that the newest ControllerRevision of a
// DaemonSet does not store the DaemonSet's template as this build encodes
// it, and that its data holds fields of the pod template that this build's
// k8s.io/api types do not know: the cluster (its API server and
// kube-controller-manager) is newer than the build. The template this
// build decoded has lost those fields, so its patch matches no revision
// kube-controller-manager wrote, and a hash computed from it is one
// kube-controller-manager never labels pods with. ConstructHistory returns
// it instead of planning a new revision; recover it with errors.As, or
// test for ErrTemplateSkew with errors.Is.
//
// The identity rule, which ConstructHistory applies only when the newest
// claimed revision's data differs from Patch(ds) (steady state costs
// nothing): kube-controller-manager gives the revision of the current
// template the highest revision number in every sync, so the newest
// claimed revision (highest number, ties: the lowest name) is the one it
// recorded for the current template, or for the one before while it has
// not synced the latest change. Its data is decoded strictly into this
// build's corev1.PodTemplateSpec; fields the types do not know make the
// skew. A revision whose data is not a template patch, does not decode, or
// decodes with known fields only is no evidence: it is matched byte for
// byte, as upstream does. Pod labels are no evidence either: a
// pod-template-generation or controller-revision-hash label may be stale
// or set by hand, and pods at the DaemonSet's template generation count as
// updated whatever their hash (IsPodUpdated).
type TemplateSkewError struct {
	// Revision is the name of the newest claimed revision, the one whose
	// data holds the unknown fields.
	Revision string
	// Hash is that revision's controller-revision-hash label ("" when it
	// has none): the hash kube-controller-manager labels the pods of that
	// template with.
	Hash string
	// Fields are the paths of the unknown fields in the revision's data,
	// from spec.template (e.g. "spec.template.spec.evictionResponders"),
	// sorted.
	Fields []string
}

// Error names the revision and the fields, and says what to do.
func (e *TemplateSkewError) Error() string {
	return "this build does not know fields of this DaemonSet's template (" + strings.Join(e.Fields, ", ") +
		" in controllerrevision " + `"` + e.Revision + `"` + "); upgrade daemonplan"
}

// Is reports whether target is ErrTemplateSkew.
func (e *TemplateSkewError) Is(target error) bool { return target == ErrTemplateSkew }

// templateSkew returns the *TemplateSkewError of newest, the newest
// claimed revision, whose data differs from the DaemonSet's patch: nil when
// its data holds no pod template field this build does not know (see
// TemplateSkewError). It decodes newest's data once.
func templateSkew(newest *appsv1.ControllerRevision) *TemplateSkewError {
	fields := unknownTemplateFields(newest.Data.Raw)
	if len(fields) == 0 {
		return nil
	}
	return &TemplateSkewError{Revision: newest.Name, Hash: newest.Labels[hashLabel], Fields: fields}
}

// unknownTemplateFields returns the sorted paths of the fields of the
// template in data, a revision's {"spec":{"template":{...}}}, that
// corev1.PodTemplateSpec does not know; nil when data is not of that shape
// or does not decode for another reason.
func unknownTemplateFields(data []byte) []string {
	if len(data) == 0 {
		return nil
	}
	var generic map[string]any
	if err := utiljson.Unmarshal(data, &generic); err != nil {
		return nil
	}
	spec, _ := generic["spec"].(map[string]any)
	template, ok := spec["template"].(map[string]any)
	if !ok {
		return nil
	}
	// The directive of a strategic merge patch is no field.
	delete(template, "$patch")
	var decoded corev1.PodTemplateSpec
	err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(template, &decoded, true)
	strict, ok := runtime.AsStrictDecodingError(err)
	if !ok {
		return nil
	}
	var fields []string
	for _, e := range strict.Errors() {
		// The converter says `unknown field "spec.x"`, the path from the
		// template.
		path, found := strings.CutPrefix(e.Error(), `unknown field "`)
		if !found {
			continue
		}
		fields = append(fields, "spec.template."+strings.TrimSuffix(path, `"`))
	}
	slices.Sort(fields)
	return fields
}
