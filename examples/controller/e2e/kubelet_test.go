package e2e

import (
	"context"
	"encoding/json"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// kubeletStopped marks a node whose kubelet a scenario has stopped
// (stopKubelet): kwok's node-initialize stage, which makes every node whose
// Ready condition is not True Ready again, leaves it alone.
const kubeletStopped = "e2e.daemonplan.io/kubelet-stopped"

// spareStoppedNodes returns kwok's node-initialize stage with one more
// requirement: the node has no kubeletStopped annotation. The stage is
// returned as it is when its selector is not where kwok v0.8.0 has it;
// stopKubelet then finds the node Ready again and says so.
func spareStoppedNodes(stage string) string {
	const anchor = "  selector:\n    matchExpressions:\n"
	i := strings.Index(stage, anchor)
	if i < 0 {
		return stage
	}
	i += len(anchor)
	return stage[:i] + "    - key: '.metadata.annotations.\"" + kubeletStopped + "\"'\n      operator: 'DoesNotExist'\n" + stage[i:]
}

// stopKubelet makes node NotReady as a node whose kubelet stopped is: its
// Ready condition False (as the kubelet's missing heartbeats make the node
// lifecycle controller set it, which this control plane does not run), no
// room for a new pod (allocatable pods 0: nothing new starts there), and
// the Ready condition of its pods False (the node lifecycle controller's
// MarkPodsNotReady). kwok leaves the node so (see spareStoppedNodes).
func (c *cluster) stopKubelet(node string) {
	c.t.Helper()
	ctx := context.Background()
	patch := func(v any) []byte {
		data, err := json.Marshal(v)
		if err != nil {
			c.t.Fatal(err)
		}
		return data
	}
	if _, err := c.admin.CoreV1().Nodes().Patch(ctx, node, types.MergePatchType,
		patch(map[string]any{"metadata": map[string]any{"annotations": map[string]string{kubeletStopped: "true"}}}), metav1.PatchOptions{}); err != nil {
		c.t.Fatalf("annotating node %s: %v", node, err)
	}
	now := metav1.Now()
	if _, err := c.admin.CoreV1().Nodes().Patch(ctx, node, types.StrategicMergePatchType, patch(map[string]any{
		"status": map[string]any{
			"conditions": []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse, Reason: "KubeletStopped",
				Message: "the scenario stopped the kubelet", LastHeartbeatTime: now, LastTransitionTime: now}},
			"allocatable": map[string]string{"pods": "0"},
		},
	}), metav1.PatchOptions{}, "status"); err != nil {
		c.t.Fatalf("node %s NotReady: %v", node, err)
	}
	for _, p := range c.pods() {
		if p.Spec.NodeName != node || p.DeletionTimestamp != nil {
			continue
		}
		if _, err := c.admin.CoreV1().Pods(p.Namespace).Patch(ctx, p.Name, types.StrategicMergePatchType, patch(map[string]any{
			"status": map[string]any{"conditions": []corev1.PodCondition{
				{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "NodeNotReady", LastTransitionTime: now},
				{Type: corev1.ContainersReady, Status: corev1.ConditionFalse, Reason: "NodeNotReady", LastTransitionTime: now},
			}},
		}), metav1.PatchOptions{}, "status"); err != nil {
			c.t.Fatalf("pod %s NotReady: %v", p.Name, err)
		}
	}
}

// startKubelet undoes stopKubelet: the node Ready with room for pods, and
// kwok's again. Its pods stay as they are (a restarted kubelet would
// restart them; the rollout replaces them).
func (c *cluster) startKubelet(node string) {
	c.t.Helper()
	ctx := context.Background()
	now := metav1.Now()
	data, _ := json.Marshal(map[string]any{"status": map[string]any{
		"conditions": []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
			Message: "the scenario started the kubelet", LastHeartbeatTime: now, LastTransitionTime: now}},
		"allocatable": map[string]string{"pods": "1M"},
	}})
	if _, err := c.admin.CoreV1().Nodes().Patch(ctx, node, types.StrategicMergePatchType, data, metav1.PatchOptions{}, "status"); err != nil {
		c.t.Fatalf("node %s Ready: %v", node, err)
	}
	data, _ = json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{kubeletStopped: nil}}})
	if _, err := c.admin.CoreV1().Nodes().Patch(ctx, node, types.MergePatchType, data, metav1.PatchOptions{}); err != nil {
		c.t.Fatalf("node %s: %v", node, err)
	}
}

// nodeIsReady reads node's Ready condition from the API server.
func (c *cluster) nodeIsReady(node string) bool {
	c.t.Helper()
	n, err := c.admin.CoreV1().Nodes().Get(context.Background(), node, metav1.GetOptions{})
	if err != nil {
		c.t.Fatalf("node %s: %v", node, err)
	}
	return nodeReady(n)
}
