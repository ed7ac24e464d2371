package daemontest

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// PlacementOptions make a DaemonSet whose placement check has some work to
// do, the benchmarks' fixture of daemon and daemon/whatif: a nodeSelector, a
// two-term required node affinity and three tolerations.
func PlacementOptions() []DaemonSetOption {
	return []DaemonSetOption{
		WithNodeSelector("kubernetes.io/os", "linux"),
		WithToleration("dedicated", corev1.TaintEffectNoSchedule),
		WithToleration("gpu", corev1.TaintEffectNoSchedule),
		WithToleration("spot", corev1.TaintEffectNoExecute),
		func(ds *appsv1.DaemonSet) {
			ds.Spec.Template.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
					{MatchExpressions: []corev1.NodeSelectorRequirement{
						{Key: "node.kubernetes.io/instance-type", Operator: corev1.NodeSelectorOpIn, Values: []string{"m5.large", "m5.xlarge"}},
						{Key: "topology.kubernetes.io/zone", Operator: corev1.NodeSelectorOpExists},
					}},
					{MatchExpressions: []corev1.NodeSelectorRequirement{
						{Key: "pool", Operator: corev1.NodeSelectorOpIn, Values: []string{"general"}},
					}},
				}},
			}}
		},
	}
}

// PlacementNode is a node a DaemonSet built with PlacementOptions may run
// on: ten labels (zone, team and rack vary with i) and two taints, one
// tolerated by the template and one PreferNoSchedule.
func PlacementNode(name string, i int) *corev1.Node {
	return Node(name,
		WithLabel("kubernetes.io/os", "linux"),
		WithLabel("kubernetes.io/arch", "amd64"),
		WithLabel("node.kubernetes.io/instance-type", "m5.large"),
		WithLabel("topology.kubernetes.io/zone", fmt.Sprintf("zone-%d", i%3)),
		WithLabel("topology.kubernetes.io/region", "region-1"),
		WithLabel("pool", "general"),
		WithLabel("team", fmt.Sprintf("team-%d", i%7)),
		WithLabel("rack", fmt.Sprintf("rack-%d", i%40)),
		WithLabel("cpu-count", "8"),
		WithTaint("dedicated", "infra", corev1.TaintEffectNoSchedule),
		WithTaint("example.com/maintenance-window", "sunday", corev1.TaintEffectPreferNoSchedule),
	)
}
