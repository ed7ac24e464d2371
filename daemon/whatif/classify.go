package whatif

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// DaemonSetPodAnnotation marks a pod as a DaemonSet pod when set to "true":
// cluster-autoscaler honours it for pods of controllers it does not know.
const DaemonSetPodAnnotation = "cluster-autoscaler.kubernetes.io/daemonset-pod"

// KruiseDaemonSet is OpenKruise's Advanced DaemonSet, for
// PodClassifier.ExtraKinds.
var KruiseDaemonSet = schema.GroupKind{Group: "apps.kruise.io", Kind: "DaemonSet"}

// PodClassifier decides whether a pod is a DaemonSet pod, as autoscalers
// need to (a node's DaemonSet pods move with it; other pods are workload).
// The zero value is the common rule; see IsDaemonSetPod.
type PodClassifier struct {
	// ExtraKinds are further controller kinds whose pods are DaemonSet
	// pods, by API group and kind (KruiseDaemonSet, say). The group is
	// compared with the group of the owner reference's apiVersion; any
	// version matches.
	ExtraKinds []schema.GroupKind
	// IgnoreAnnotation disregards DaemonSetPodAnnotation.
	IgnoreAnnotation bool
}

// IsDaemonSetPod reports whether pod is a DaemonSet pod:
//  1. its controller reference (the owner reference with controller: true)
//     has kind DaemonSet and an apiVersion of group apps (any version), or
//     the group and kind of one of ExtraKinds; or
//  2. unless IgnoreAnnotation, it carries DaemonSetPodAnnotation with the
//     value "true" exactly.
//
// How it differs from the autoscalers' own rules: cluster-autoscaler's
// IsDaemonSetPod accepts a controller reference of kind DaemonSet in any
// group (an empty apiVersion included) and honours the annotation;
// Karpenter's IsOwnedByDaemonSet accepts any owner reference, controller
// or not, whose apiVersion is exactly apps/v1 and kind DaemonSet, and has
// no annotation. Rule 1 asks for the controller, as the DaemonSet
// controller itself claims pods, and names other groups explicitly. A nil
// pod is not a DaemonSet pod. It does not allocate.
func (c PodClassifier) IsDaemonSetPod(pod *corev1.Pod) bool {
	if pod == nil {
		return false
	}
	if ref := metav1.GetControllerOfNoCopy(pod); ref != nil {
		group := apiGroup(ref.APIVersion)
		if ref.Kind == "DaemonSet" && group == "apps" {
			return true
		}
		for _, gk := range c.ExtraKinds {
			if ref.Kind == gk.Kind && group == gk.Group {
				return true
			}
		}
	}
	return !c.IgnoreAnnotation && pod.Annotations[DaemonSetPodAnnotation] == "true"
}

// IsDaemonSetPod is PodClassifier{}.IsDaemonSetPod: a controller reference
// to an apps DaemonSet, or the cluster-autoscaler annotation.
func IsDaemonSetPod(pod *corev1.Pod) bool {
	return PodClassifier{}.IsDaemonSetPod(pod)
}

// apiGroup returns the group of an apiVersion ("apps/v1" gives "apps",
// "v1" gives "").
func apiGroup(apiVersion string) string {
	for i := len(apiVersion) - 1; i >= 0; i-- {
		if apiVersion[i] == '/' {
			return apiVersion[:i]
		}
	}
	return ""
}
