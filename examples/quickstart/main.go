// Command quickstart plans one sync of a DaemonSet in the middle of a
// rolling update and prints the plan.
//
// The cluster is built in code: four labelled workers, one of them NotReady,
// an unlabelled batch node the DaemonSet does not select, and a tainted
// control-plane node it does not tolerate. node-exporter is moving from v1
// to v2 with maxUnavailable 3 and minReadySeconds 30. Run it with
//
//	go run ./examples/quickstart
package main

import (
	"fmt"
	"io"
	"os"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/rollout"
)

// now is the controller clock of this sync.
var now = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

func run(out io.Writer) error {
	ds := daemonSet("registry.example/node-exporter:v2")
	v1 := daemonSet("registry.example/node-exporter:v1")
	oldHash := rollout.ComputeHash(&v1.Spec.Template, nil)
	newHash := rollout.ComputeHash(&ds.Spec.Template, nil)
	oldRevision, err := revision(v1, oldHash)
	if err != nil {
		return err
	}

	nodes := []*corev1.Node{
		node("cp-1", map[string]string{"monitoring": "enabled"}, corev1.Taint{Key: "node-role.kubernetes.io/control-plane", Effect: corev1.TaintEffectNoSchedule}),
		node("worker-1", map[string]string{"monitoring": "enabled"}),
		node("worker-2", map[string]string{"monitoring": "enabled"}),
		node("worker-3", map[string]string{"monitoring": "enabled"}),
		node("worker-4", map[string]string{"monitoring": "enabled"},
			corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule},
			corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute}),
		node("batch-1", nil),
	}
	pods := []*corev1.Pod{
		pod(ds, "node-exporter-7xk2p", "worker-1", newHash, now.Add(-10*time.Minute)), // updated, available
		pod(ds, "node-exporter-q9w4d", "worker-2", newHash, now.Add(-10*time.Second)), // updated, ready for 10s only
		pod(ds, "node-exporter-m3b8z", "worker-3", oldHash, now.Add(-48*time.Hour)),   // v1, available
		pod(ds, "node-exporter-h6t1c", "worker-4", oldHash, time.Time{}),              // v1, not ready: its node is NotReady
	}

	plan, err := daemon.Compute(ds, nodes, pods, daemon.Options{
		Now:       now,
		Revisions: []*appsv1.ControllerRevision{oldRevision},
	})
	if err != nil {
		return err
	}

	return plan.Format(out, daemon.FormatOptions{DaemonSet: ds, Nodes: nodes, Now: now})
}

func daemonSet(image string) *appsv1.DaemonSet {
	maxUnavailable := intstr.FromInt32(3)
	limit := int32(10)
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "node-exporter", Namespace: "monitoring", UID: "6d1c0f3e-node-exporter", Generation: 2},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "node-exporter"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "node-exporter"}},
				Spec: corev1.PodSpec{
					NodeSelector: map[string]string{"monitoring": "enabled"},
					HostNetwork:  true,
					Containers:   []corev1.Container{{Name: "node-exporter", Image: image}},
				},
			},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{
				Type:          appsv1.RollingUpdateDaemonSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &maxUnavailable},
			},
			MinReadySeconds:      30,
			RevisionHistoryLimit: &limit,
		},
		Status: appsv1.DaemonSetStatus{ObservedGeneration: 1},
	}
}

// revision is the ControllerRevision the controller recorded for ds.
func revision(ds *appsv1.DaemonSet, hash string) (*appsv1.ControllerRevision, error) {
	data, err := rollout.Patch(ds)
	if err != nil {
		return nil, err
	}
	return &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{
			Name: ds.Name + "-" + hash, Namespace: ds.Namespace,
			Labels:          map[string]string{"app": "node-exporter", appsv1.ControllerRevisionHashLabelKey: hash},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(ds, appsv1.SchemeGroupVersion.WithKind("DaemonSet"))},
		},
		Data:     runtime.RawExtension{Raw: data},
		Revision: 1,
	}, nil
}

func node(name string, labels map[string]string, taints ...corev1.Taint) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec:       corev1.NodeSpec{Taints: taints},
	}
}

// pod is a running pod of ds on nodeName with the given hash label, ready
// since readySince (not ready when zero).
func pod(ds *appsv1.DaemonSet, name, nodeName, hash string, readySince time.Time) *corev1.Pod {
	ready := corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionFalse}
	if !readySince.IsZero() {
		ready = corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Time{Time: readySince}}
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: ds.Namespace,
			Labels:            map[string]string{"app": "node-exporter", appsv1.ControllerRevisionHashLabelKey: hash},
			OwnerReferences:   []metav1.OwnerReference{*metav1.NewControllerRef(ds, appsv1.SchemeGroupVersion.WithKind("DaemonSet"))},
			CreationTimestamp: metav1.Time{Time: now.Add(-72 * time.Hour)},
		},
		Spec:   corev1.PodSpec{NodeName: nodeName, Containers: []corev1.Container{{Name: "node-exporter", Image: "img"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{ready}},
	}
}
