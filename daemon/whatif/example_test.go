package whatif_test

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/eligibility"
	"github.com/daemonplan/daemonplan/daemon/whatif"
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

	pods, err := whatif.PodsForNode(node, daemonSets, whatif.Options{
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
	// default/kube-proxy-* hash=587484b49c
	// default/nvidia-device-plugin-* hash=5f7599f596
}

// ExampleCompileTemplate compiles a node group once and judges many
// DaemonSets against it without allocating.
func ExampleCompileTemplate() {
	group, err := whatif.CompileTemplate(whatif.NodeTemplate{
		Labels: map[string]string{"kubernetes.io/os": "linux", "kubernetes.io/arch": "arm64"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, ds := range []*appsv1.DaemonSet{
		dt.DaemonSet("kube-proxy", dt.WithNodeSelector("kubernetes.io/os", "linux")),
		dt.DaemonSet("amd64-only", dt.WithNodeSelector("kubernetes.io/arch", "amd64")),
		dt.DaemonSet("zonal", dt.WithNodeSelector("topology.kubernetes.io/zone", "eu-west-1a")),
	} {
		v := group.PlacementFor(eligibility.New(ds, false))
		fmt.Println(strings.TrimSpace(fmt.Sprint(ds.Name, " ", v.Placement, " ", v.Affinity.NodeSelectorKey)))
	}
	// Output:
	// kube-proxy Yes
	// amd64-only No kubernetes.io/arch
	// zonal Maybe topology.kubernetes.io/zone
}

func ExampleIsDaemonSetPod() {
	yes := true
	pod := &corev1.Pod{}
	pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "fluentd", Controller: &yes}}
	fmt.Println(whatif.IsDaemonSetPod(pod))
	pod.OwnerReferences[0].Kind = "ReplicaSet"
	fmt.Println(whatif.IsDaemonSetPod(pod))
	// Output:
	// true
	// false
}
