package affinity

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ErrNoTargetNode is wrapped by every error of GetTargetNodeName, so callers
// can tell "this pod names no node" apart from other failures with errors.Is.
var ErrNoTargetNode = errors.New("no target node")

// requiredPath is the path of the required node affinity in a pod.
func requiredPath() *field.Path {
	return field.NewPath("spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
}

// ReplaceDaemonSetPodNodeNameNodeAffinity returns the affinity a daemon pod
// bound to nodeName carries: the required node-selector terms are replaced
// by the single term matchFields metadata.name In [nodeName]; preferred
// terms, pod affinity and pod anti-affinity are kept. A nil affinity, or one
// without node affinity or without required terms, gets the new term. This
// is the value upstream's function of the same name produces, but unlike
// upstream it never modifies affinity: the result is a fresh value that
// shares no pointer, slice or map with its argument. nodeName is not
// validated; an empty name gives a term that no named node satisfies.
func ReplaceDaemonSetPodNodeNameNodeAffinity(affinity *corev1.Affinity, nodeName string) *corev1.Affinity {
	out := affinity.DeepCopy() // nil for nil
	if out == nil {
		out = &corev1.Affinity{}
	}
	if out.NodeAffinity == nil {
		out.NodeAffinity = &corev1.NodeAffinity{}
	}
	// The NodeSelector struct holds nothing but its terms, so replacing the
	// terms of an existing selector and installing a new one agree.
	out.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchFields: []corev1.NodeSelectorRequirement{{
				Key:      metav1.ObjectNameField,
				Operator: corev1.NodeSelectorOpIn,
				Values:   []string{nodeName},
			}},
		}},
	}
	return out
}

// GetTargetNodeName returns the node a daemon pod belongs to: pod.Spec.NodeName
// when set, otherwise the single value of the first matchFields requirement
// "metadata.name In [...]" among the required node-affinity terms (terms in
// order, and within a term its matchFields in order; matchExpressions are
// not consulted). That requirement's single value is returned even when it
// is empty, as upstream does. It fails, as upstream does, when the pod has
// no required node affinity, no terms, no such requirement, or when the
// first such requirement has other than one value (later ones are not
// consulted).
//
// Every error wraps ErrNoTargetNode and, except for a nil pod, a
// *field.Error whose path locates the problem under
// spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution;
// its message names the pod as pod "namespace/name". A nil pod is an error
// too. It modifies nothing and runs in O(number of matchFields) time.
func GetTargetNodeName(pod *corev1.Pod) (string, error) {
	if pod == nil {
		return "", fmt.Errorf("nil pod: %w", ErrNoTargetNode)
	}
	if pod.Spec.NodeName != "" {
		return pod.Spec.NodeName, nil
	}
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return "", targetErr(pod, field.Required(requiredPath(), "needed when spec.nodeName is empty"))
	}
	terms := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	termsPath := requiredPath().Child("nodeSelectorTerms")
	if len(terms) == 0 {
		return "", targetErr(pod, field.Required(termsPath, "needs a term when spec.nodeName is empty"))
	}
	for i := range terms {
		for j, req := range terms[i].MatchFields {
			if req.Key != metav1.ObjectNameField || req.Operator != corev1.NodeSelectorOpIn {
				continue
			}
			if len(req.Values) != 1 {
				p := termsPath.Index(i).Child("matchFields").Index(j).Child("values")
				return "", targetErr(pod, field.Invalid(p, req.Values, "must hold exactly one node name"))
			}
			return req.Values[0], nil
		}
	}
	return "", targetErr(pod, field.Required(termsPath,
		fmt.Sprintf("no matchFields requirement %s %s [node] when spec.nodeName is empty", metav1.ObjectNameField, corev1.NodeSelectorOpIn)))
}

// targetErr names pod and wraps both ErrNoTargetNode and the field error.
func targetErr(pod *corev1.Pod, fe *field.Error) error {
	return fmt.Errorf("pod %q: %w: %w", pod.Namespace+"/"+pod.Name, ErrNoTargetNode, fe)
}
