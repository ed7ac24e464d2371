package daemon

import (
	"reflect"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/selector"
)

// placementKey is what of a DaemonSet a node's eligibility is judged by
// (see eligibility.New): equal keys give equal verdicts on every node.
type placementKey struct {
	nodeName     string
	hostNetwork  bool
	comparison   bool
	nodeSelector map[string]string
	affinity     *corev1.Affinity
	tolerations  []corev1.Toleration
}

func placementKeyOf(ds *appsv1.DaemonSet, comparison bool) placementKey {
	spec := &ds.Spec.Template.Spec
	return placementKey{nodeName: spec.NodeName, hostNetwork: spec.HostNetwork, comparison: comparison,
		nodeSelector: spec.NodeSelector, affinity: spec.Affinity, tolerations: spec.Tolerations}
}

// same reports whether k and o give the same verdicts. It compares
// values, not pointers: a DaemonSet whose status or image changed keeps
// its verdicts.
func (k *placementKey) same(o *placementKey) bool {
	return k.nodeName == o.nodeName && k.hostNetwork == o.hostNetwork && k.comparison == o.comparison &&
		reflect.DeepEqual(k.nodeSelector, o.nodeSelector) && reflect.DeepEqual(k.affinity, o.affinity) &&
		reflect.DeepEqual(k.tolerations, o.tolerations)
}

// copied is k holding nothing of the DaemonSet it was read from, so that
// a caller's later edit of that object cannot change what it remembers.
func (k placementKey) copied() placementKey {
	if k.nodeSelector != nil {
		m := make(map[string]string, len(k.nodeSelector))
		for key, v := range k.nodeSelector {
			m[key] = v
		}
		k.nodeSelector = m
	}
	k.affinity = k.affinity.DeepCopy()
	if k.tolerations != nil {
		t := make([]corev1.Toleration, len(k.tolerations))
		for i := range k.tolerations {
			k.tolerations[i].DeepCopyInto(&t[i])
		}
		k.tolerations = t
	}
	return k
}

// claimKey is what of a DaemonSet a pod's claim is decided by (see
// selector.DecidePod).
type claimKey struct {
	owner    selector.Owner
	selector *metav1.LabelSelector
}

func (k *claimKey) same(o *claimKey) bool {
	return k.owner == o.owner && reflect.DeepEqual(k.selector, o.selector)
}
