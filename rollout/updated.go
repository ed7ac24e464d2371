package rollout

import (
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// GetTemplateGeneration returns the template generation recorded in ds's
// deprecated annotation deprecated.daemonset.template.generation: nil and no
// error when the annotation is absent (or ds is nil), nil and an error
// naming the annotation when it is not a base-10 int64.
//
// The error is a *field.Error of type Invalid at
// metadata.annotations[deprecated.daemonset.template.generation]. An empty
// value is present, hence invalid, as upstream. The result is a new
// pointer; it modifies nothing.
func GetTemplateGeneration(ds *appsv1.DaemonSet) (*int64, error) {
	if ds == nil {
		return nil, nil
	}
	v, ok := ds.Annotations[appsv1.DeprecatedTemplateGeneration]
	if !ok {
		return nil, nil
	}
	gen, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		path := field.NewPath("metadata", "annotations").Key(appsv1.DeprecatedTemplateGeneration)
		return nil, field.Invalid(path, v, "must be a base-10 64-bit integer")
	}
	return &gen, nil
}

// IsPodUpdated reports whether pod runs the current template: its
// controller-revision-hash label equals a non-empty hash, or
// dsTemplateGeneration is non-nil and its pod-template-generation label
// equals it in base 10. A nil pod is not updated.
//
// The generation label must be the canonical decimal form ("7", not "07"
// or "+7"), as upstream compares strings. It does not allocate.
func IsPodUpdated(pod *corev1.Pod, hash string, dsTemplateGeneration *int64) bool {
	if pod == nil {
		return false
	}
	hashLabel := pod.Labels[appsv1.ControllerRevisionHashLabelKey]
	if hash != "" && hashLabel == hash {
		return true // the usual case, without the second lookup
	}
	label, ok := pod.Labels[extensionsv1beta1.DaemonSetTemplateGenerationKey]
	return revisionMatches(hashLabel, label, ok, hash, dsTemplateGeneration)
}
