package syncer

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// The informers keep only what a plan reads. Every object the API server
// sends passes through PlanningView (a cache.TransformFunc, set on the
// controller's four informers by New) before it reaches the cache and the
// event handlers, so the caches hold a fraction of each pod and node; at
// 5,000 nodes this is most of the controller's memory (README,
// "Footprint").
//
// What is kept, and who reads it (daemon.Compute and what it calls, the
// plan's standing and progressive.Judge, which the companion reads, the
// handlers, the executor):
//
//   - Pods: name, namespace, UID, resourceVersion (the informer's store
//     tracks it, the fence compares it); labels (selector, revision hash,
//     template generation); ownerReferences (claims, the handlers);
//     creationTimestamp (which of two pods on a node is the oldest);
//     deletionTimestamp (terminating pods); spec.nodeName; while the pod is
//     not bound, spec.affinity.nodeAffinity (affinity.GetTargetNodeName
//     reads the node a DaemonSet pod is pinned to from it; once
//     spec.nodeName is set, nothing reads it); status.phase (failed and
//     succeeded pods, pending ones); the first Ready condition of
//     status.conditions, its type, status and lastTransitionTime
//     (readiness, minReadySeconds; only the first counts, as upstream);
//     of each container and init container status, its name, restart
//     count, waiting reason and last termination's reason, start and
//     finish (the health gates, progressive.Gates.Hold).
//   - Nodes: name, UID, resourceVersion, labels (nodeSelector, node
//     affinity, rollout order and scope); spec.taints (tolerations); the
//     first Ready condition's type and status (the companion's
//     NodesNotReady).
//   - DaemonSets and ControllerRevisions: everything but managedFields.
//     The DaemonSet is written back whole by the status update (metadata
//     the update omits would be removed; a missing managedFields is kept
//     by the API server), and a revision's data is compared byte for byte.
//
// Dropped: managedFields everywhere; pods' annotations, finalizers, spec
// (containers, volumes, tolerations, …) and status but the above; nodes'
// annotations, spec but taints, and status but Ready (capacity,
// allocatable, images, addresses, nodeInfo, volumes). A placement or
// rollout decision never reads them: TestPlanningViewKeepsPlans plans
// generated clusters, their objects padded with every dropped field,
// before and after the transform and requires the same plans, rollout
// verdicts, unavailability and progress.
//
// PlanningView builds new objects and modifies nothing it is given; it is
// idempotent, as client-go requires. Other types pass through unchanged.
func PlanningView(obj any) (any, error) {
	switch o := obj.(type) {
	case *corev1.Pod:
		return planningPod(o), nil
	case *corev1.Node:
		return planningNode(o), nil
	case *appsv1.DaemonSet:
		return withoutManagedFields(o), nil
	case *appsv1.ControllerRevision:
		return withoutManagedFields(o), nil
	}
	return obj, nil
}

// withoutManagedFields returns obj itself when it has no managedFields,
// and otherwise a shallow copy of it without them (the rest shared with
// obj, which is not modified).
func withoutManagedFields[T any, PT interface {
	*T
	metav1.Object
}](obj PT) PT {
	if len(obj.GetManagedFields()) == 0 {
		return obj
	}
	out := *obj
	PT(&out).SetManagedFields(nil)
	return &out
}

var _ cache.TransformFunc = PlanningView

// planningPod returns the part of pod a plan reads (see PlanningView).
func planningPod(pod *corev1.Pod) *corev1.Pod {
	out := &corev1.Pod{
		TypeMeta: pod.TypeMeta,
		ObjectMeta: metav1.ObjectMeta{
			Name:              pod.Name,
			Namespace:         pod.Namespace,
			UID:               pod.UID,
			ResourceVersion:   pod.ResourceVersion,
			CreationTimestamp: pod.CreationTimestamp,
			DeletionTimestamp: pod.DeletionTimestamp,
			Labels:            pod.Labels,
			OwnerReferences:   pod.OwnerReferences,
		},
		Spec:   corev1.PodSpec{NodeName: pod.Spec.NodeName},
		Status: corev1.PodStatus{Phase: pod.Status.Phase},
	}
	if pod.Spec.NodeName == "" && pod.Spec.Affinity != nil && pod.Spec.Affinity.NodeAffinity != nil {
		out.Spec.Affinity = &corev1.Affinity{NodeAffinity: pod.Spec.Affinity.NodeAffinity}
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			// A slice of its own: a sub-slice would keep every condition.
			out.Status.Conditions = []corev1.PodCondition{{Type: c.Type, Status: c.Status, LastTransitionTime: c.LastTransitionTime}}
			break
		}
	}
	out.Status.InitContainerStatuses = gateStatuses(pod.Status.InitContainerStatuses)
	out.Status.ContainerStatuses = gateStatuses(pod.Status.ContainerStatuses)
	return out
}

// gateStatuses returns the part of container statuses the health gates
// read (progressive.HealthGates.Check, Gates.Hold): name, restart count,
// waiting reason, last termination's reason, start and finish; nil for
// none.
func gateStatuses(list []corev1.ContainerStatus) []corev1.ContainerStatus {
	if len(list) == 0 {
		return nil
	}
	out := make([]corev1.ContainerStatus, len(list))
	for i, cs := range list {
		out[i] = corev1.ContainerStatus{Name: cs.Name, RestartCount: cs.RestartCount}
		if w := cs.State.Waiting; w != nil {
			out[i].State.Waiting = &corev1.ContainerStateWaiting{Reason: w.Reason}
		}
		if t := cs.LastTerminationState.Terminated; t != nil {
			out[i].LastTerminationState.Terminated = &corev1.ContainerStateTerminated{Reason: t.Reason, StartedAt: t.StartedAt, FinishedAt: t.FinishedAt}
		}
	}
	return out
}

// planningNode returns the part of node a plan reads (see PlanningView).
func planningNode(node *corev1.Node) *corev1.Node {
	out := &corev1.Node{
		TypeMeta: node.TypeMeta,
		ObjectMeta: metav1.ObjectMeta{
			Name:            node.Name,
			UID:             node.UID,
			ResourceVersion: node.ResourceVersion,
			Labels:          node.Labels,
		},
		Spec: corev1.NodeSpec{Taints: node.Spec.Taints},
	}
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			out.Status.Conditions = []corev1.NodeCondition{{Type: c.Type, Status: c.Status}}
			break
		}
	}
	return out
}
