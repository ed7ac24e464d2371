package cli

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/snapshot"
)

// bigFleet is a cluster of n nodes as a large managed cluster has them,
// for the benchmarks: three zones, one node in a hundred a GPU node
// (tainted nvidia.com/gpu), two NotReady nodes; six node agents on every
// node (kube-proxy, aws-node, ebs-csi-node and efs-csi-node in
// kube-system, fluent-bit in logging, node-exporter in monitoring) and the
// NVIDIA device plugin on the GPU nodes, 6n + n/100 pods. Every DaemonSet is
// at template generation 2 (annotation and pods' pod-template-generation
// label, as the API server and the controller write them), settled, with
// maxUnavailable 10%; the pods were created and became Ready at times
// spread over the last day, so that simulate learns its delays from them.
func bigFleet(n int) *snapshot.Snapshot {
	now := dt.Epoch
	s := &snapshot.Snapshot{}
	zones := []string{"us-east-1a", "us-east-1b", "us-east-1c"}
	for i := range n {
		opts := []dt.NodeOption{
			dt.WithLabel("topology.kubernetes.io/zone", zones[i%len(zones)]),
			dt.WithLabel("kubernetes.io/os", "linux"),
			dt.WithLabel("node.kubernetes.io/instance-type", "m7i.2xlarge"),
		}
		if i%100 == 42 {
			opts = append(opts, dt.WithLabel("accelerator", "nvidia"), dt.WithTaint("nvidia.com/gpu", "present", corev1.TaintEffectNoSchedule))
		}
		if i == n/3 || i == 2*n/3+1 {
			opts = append(opts, dt.NotReady())
		}
		node := dt.Node(fmt.Sprintf("ip-10-%d-%d-%d.ec2.internal", i/65536%256, i/256%256, i%256), opts...)
		for j := range node.Status.Conditions {
			node.Status.Conditions[j].LastHeartbeatTime.Time = now
		}
		s.Nodes = append(s.Nodes, node)
	}
	tolerateAll := func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.Tolerations = append(ds.Spec.Template.Spec.Tolerations, corev1.Toleration{Operator: corev1.TolerationOpExists})
	}
	agents := []struct {
		ns, name, image string
		opts            []dt.DaemonSetOption
	}{
		{"kube-system", "kube-proxy", "registry.k8s.io/kube-proxy:v1.36.3", []dt.DaemonSetOption{tolerateAll}},
		{"kube-system", "aws-node", "602401143452.dkr.ecr.us-east-1.amazonaws.com/amazon-k8s-cni:v1.20.4", []dt.DaemonSetOption{tolerateAll}},
		{"kube-system", "ebs-csi-node", "public.ecr.aws/ebs-csi-driver/aws-ebs-csi-driver:v1.45.0", []dt.DaemonSetOption{tolerateAll}},
		{"kube-system", "efs-csi-node", "public.ecr.aws/efs-csi-driver/amazon/aws-efs-csi-driver:v2.1.9", []dt.DaemonSetOption{tolerateAll}},
		{"logging", "fluent-bit", "cr.fluentbit.io/fluent/fluent-bit:4.0.3", []dt.DaemonSetOption{tolerateAll}},
		{"monitoring", "node-exporter", "quay.io/prometheus/node-exporter:v1.9.1", []dt.DaemonSetOption{dt.WithMinReadySeconds(10)}},
		{"kube-system", "nvidia-device-plugin", "nvcr.io/nvidia/k8s-device-plugin:v0.17.2", []dt.DaemonSetOption{
			dt.WithNodeSelector("accelerator", "nvidia"), dt.WithToleration("nvidia.com/gpu", corev1.TaintEffectNoSchedule)}},
	}
	seq := 0
	for _, a := range agents {
		opts := append([]dt.DaemonSetOption{
			func(ds *appsv1.DaemonSet) { ds.Namespace = a.ns },
			dt.WithImage(a.image), dt.WithMaxUnavailable("10%"),
		}, a.opts...)
		old := dt.DaemonSet(a.name, append(opts, dt.WithImage(a.image+"-previous"))...)
		ds := dt.DaemonSet(a.name, append(opts, dt.WithTemplateGeneration(2))...)
		ds.Generation = 2
		elig := daemon.NewEligibility(ds, false)
		for i, node := range s.Nodes {
			if run, _ := elig.ShouldRun(node); !run {
				continue
			}
			seq++
			// Created 1–24 h ago; Ready 3–40 s later (a long tail), as
			// kubelets report it.
			created := now.Add(-time.Duration(1+seq%24) * time.Hour).Add(-time.Duration(seq%3600) * time.Second)
			ready := created.Add(time.Duration(3+seq%9+(seq%17)*(seq%17)/8) * time.Second)
			p := dt.Pod(ds, fmt.Sprintf("%s-%05x", a.name, (0x9a3c1*(i+1)+seq)%0xfffff), node.Name,
				dt.CreatedAt(created), dt.ReadySince(ready))
			p.APIVersion, p.Kind = "v1", "Pod"
			if !nodeIsReady(node) {
				p.Status.Conditions[0].Status = corev1.ConditionFalse
			}
			s.Pods = append(s.Pods, p)
		}
		s.Revisions = append(s.Revisions, dt.Revision(old, 1), dt.Revision(ds, 2))
		var pods []*corev1.Pod
		for _, p := range s.Pods {
			if p.Namespace == ds.Namespace {
				pods = append(pods, p)
			}
		}
		if plan, err := daemon.Compute(ds, s.Nodes, pods, daemon.Options{Now: now, Revisions: s.Revisions}); err == nil {
			ds.Status = plan.Status
		}
		s.DaemonSets = append(s.DaemonSets, ds)
	}
	return s
}
