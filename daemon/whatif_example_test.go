package daemon_test

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
)

// ExamplePodsForNode asks which DaemonSet pods a new GPU node of a node
// group would get, ignoring the startup taint its network agent removes.
func ExamplePodsForNode() {
	daemonSets := []*appsv1.DaemonSet{
		dt.DaemonSet("kube-proxy"),
		dt.DaemonSet("nvidia-device-plugin", dt.WithNodeSelector("accelerator", "nvidia")),
		dt.DaemonSet("windows-exporter", dt.WithNodeSelector("kubernetes.io/os", "windows")),
	}
	node := dt.Node("template-gpu-pool",
		dt.WithLabel("kubernetes.io/os", "linux"),
		dt.WithLabel("accelerator", "nvidia"),
		dt.WithTaint("node.cilium.io/agent-not-ready", "true", corev1.TaintEffectNoSchedule))

	pods, err := daemon.PodsForNode(node, daemonSets, daemon.WhatIfOptions{
		IgnoreTaints: []corev1.Taint{{Key: "node.cilium.io/agent-not-ready"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range pods {
		fmt.Printf("%s/%s* hash=%s\n", p.Namespace, p.GenerateName, p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey])
	}
	// Output:
	// default/kube-proxy-* hash=689fdf849f
	// default/nvidia-device-plugin-* hash=6746774d76
}
