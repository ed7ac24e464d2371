package simulate

import (
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SetNodeReady sets the status of n's Ready condition to ready, appending
// the condition when n has none, with lastTransitionTime at when the
// status changes (or the condition is new); and leaves the
// node.kubernetes.io/not-ready NoSchedule and NoExecute taints on n
// exactly when ready is false. It modifies n.
func SetNodeReady(n *corev1.Node, ready bool, at time.Time) {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	i := slices.IndexFunc(n.Status.Conditions, func(c corev1.NodeCondition) bool { return c.Type == corev1.NodeReady })
	if i < 0 {
		n.Status.Conditions = append(n.Status.Conditions, corev1.NodeCondition{Type: corev1.NodeReady})
		i = len(n.Status.Conditions) - 1
	}
	if cond := &n.Status.Conditions[i]; cond.Status != status {
		cond.Status, cond.LastTransitionTime = status, metav1.Time{Time: at}
	}
	n.Spec.Taints = slices.DeleteFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == corev1.TaintNodeNotReady })
	if !ready {
		n.Spec.Taints = append(n.Spec.Taints,
			corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule},
			corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute})
	}
}

// controllerRef returns the controller reference ds puts on the pods and
// revisions it owns.
func controllerRef(ds *appsv1.DaemonSet) metav1.OwnerReference {
	return *metav1.NewControllerRef(ds, appsv1.SchemeGroupVersion.WithKind("DaemonSet"))
}
