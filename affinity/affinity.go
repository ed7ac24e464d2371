package affinity

import (
	"errors"

	corev1 "k8s.io/api/core/v1"
)

// ErrNoTargetNode is wrapped by every error of GetTargetNodeName, so callers
// can tell "this pod names no node" apart from other failures with errors.Is.
var ErrNoTargetNode = errors.New("no target node")

// ReplaceDaemonSetPodNodeNameNodeAffinity returns the affinity a daemon pod
// bound to nodeName carries: the required node-selector terms are replaced
// by the single term matchFields metadata.name In [nodeName]; preferred
// terms, pod affinity and pod anti-affinity are kept. A nil affinity, or one
// without node affinity or without required terms, gets the new term. This
// is the value upstream's function of the same name produces, but unlike
// upstream it never modifies affinity: the result is a fresh value that
// shares no pointer, slice or map with its argument.
func ReplaceDaemonSetPodNodeNameNodeAffinity(affinity *corev1.Affinity, nodeName string) *corev1.Affinity {
	panic("unimplemented")
}

// GetTargetNodeName returns the node a daemon pod belongs to: pod.Spec.NodeName
// when set, otherwise the single value of the first matchFields requirement
// "metadata.name In [...]" among the required node-affinity terms. It fails,
// as upstream does, when the pod has no required node affinity, no terms, a
// metadata.name In requirement with other than one value, or no such
// requirement; the messages name the pod as namespace/name and every error
// wraps ErrNoTargetNode. A nil pod is such an error too.
func GetTargetNodeName(pod *corev1.Pod) (string, error) {
	panic("unimplemented")
}
