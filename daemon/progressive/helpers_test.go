package progressive_test

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
)

const zone = "topology.kubernetes.io/zone"

func pios(s string) *intstr.IntOrString {
	v := intstr.Parse(s)
	return &v
}

// oldCluster returns n nodes n1..n<n> in zones a and b alternately, each
// running an old (hash v1) pod.
func oldCluster(ds *appsv1.DaemonSet, n int) ([]*corev1.Node, []*corev1.Pod) {
	var nodes []*corev1.Node
	var pods []*corev1.Pod
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("n%d", i)
		nodes = append(nodes, dt.Node(name, dt.WithLabel(zone, string(rune('a'+(i-1)%2)))))
		pods = append(pods, dt.Pod(ds, ds.Name+"-"+name, name, dt.WithHash("v1")))
	}
	return nodes, pods
}
