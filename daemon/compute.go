package daemon

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// Compute returns the plan of one sync of ds over nodes and pods.
func Compute(ds *appsv1.DaemonSet, nodes []*corev1.Node, pods []*corev1.Pod, opts Options) (Plan, error) {
	panic("unimplemented")
}
