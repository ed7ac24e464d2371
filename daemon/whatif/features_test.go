package whatif_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/whatif"
)

// The feature names of component-helpers' registry that a pod's spec can
// require at scheduling time (v0.37.2).
const (
	restartAll = "RestartAllContainersOnContainerExits"
	usernsHost = "UserNamespacesHostNetworkSupport"
	bindMounts = "VolumeBindMountOptions"
)

// withRestartAllContainers gives the first container a restart rule that
// restarts every container, which requires restartAll.
func withRestartAllContainers(ds *appsv1.DaemonSet) {
	c := &ds.Spec.Template.Spec.Containers[0]
	c.RestartPolicyRules = []corev1.ContainerRestartRule{{
		Action:    corev1.ContainerRestartRuleActionRestartAllContainers,
		ExitCodes: &corev1.ContainerRestartRuleOnExitCodes{Operator: corev1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{42}},
	}}
}

// withUserNamespaceHostNetwork runs the pod on the host network in a user
// namespace, which requires usernsHost.
func withUserNamespaceHostNetwork(ds *appsv1.DaemonSet) {
	no := false
	ds.Spec.Template.Spec.HostNetwork = true
	ds.Spec.Template.Spec.HostUsers = &no
}

// withBindMountOptions mounts a volume with a bind mount option, which
// requires bindMounts.
func withBindMountOptions(ds *appsv1.DaemonSet) {
	spec := &ds.Spec.Template.Spec
	spec.Volumes = append(spec.Volumes, corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
	spec.Containers[0].VolumeMounts = append(spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "data", MountPath: "/data", BindMountOptions: []string{"noexec"}})
}

// featureDaemonSets are a DaemonSet that requires no feature, one per
// feature a pod can require, one that requires two, and one whose
// nodeSelector matches no node.
func featureDaemonSets() []*appsv1.DaemonSet {
	return []*appsv1.DaemonSet{
		dt.DaemonSet("plain"),
		dt.DaemonSet("restart-all", withRestartAllContainers),
		dt.DaemonSet("userns-hostnet", withUserNamespaceHostNetwork),
		dt.DaemonSet("bind-mounts", withBindMountOptions),
		dt.DaemonSet("two", withRestartAllContainers, withBindMountOptions),
		dt.DaemonSet("windows", dt.WithNodeSelector("kubernetes.io/os", "windows"), withRestartAllContainers),
	}
}

func withDeclaredFeatures(features ...string) dt.NodeOption {
	return func(n *corev1.Node) { n.Status.DeclaredFeatures = features }
}

// TestPlacementsForNodeDeclaredFeatures: a pod that requires a feature the
// node does not declare is created but stays Pending, as kube-scheduler's
// NodeDeclaredFeatures filter leaves it; PlacementsForNode names the
// features and PodsForNode leaves the pod out.
func TestPlacementsForNodeDeclaredFeatures(t *testing.T) {
	tests := []struct {
		name string
		node *corev1.Node
		opts whatif.Options
		want []string // DaemonSet and verdict of each pod PlacementsForNode gives
	}{
		{
			name: "a node that declares nothing (a kubelet before 1.36) satisfies no requirement, as in the scheduler",
			node: dt.Node("n"),
			want: []string{
				"bind-mounts Pending: UndeclaredFeatures (not declared: VolumeBindMountOptions)",
				"plain Yes",
				"restart-all Pending: UndeclaredFeatures (not declared: RestartAllContainersOnContainerExits)",
				"two Pending: UndeclaredFeatures (not declared: RestartAllContainersOnContainerExits, VolumeBindMountOptions)",
				"userns-hostnet Pending: UndeclaredFeatures (not declared: UserNamespacesHostNetworkSupport)",
			},
		},
		{
			name: "a node that declares every feature runs every pod",
			node: dt.Node("n", withDeclaredFeatures(restartAll, usernsHost, bindMounts)),
			want: []string{"bind-mounts Yes", "plain Yes", "restart-all Yes", "two Yes", "userns-hostnet Yes"},
		},
		{
			name: "one feature of two declared names the other",
			node: dt.Node("n", withDeclaredFeatures(restartAll)),
			want: []string{
				"bind-mounts Pending: UndeclaredFeatures (not declared: VolumeBindMountOptions)",
				"plain Yes",
				"restart-all Yes",
				"two Pending: UndeclaredFeatures (not declared: VolumeBindMountOptions)",
				"userns-hostnet Pending: UndeclaredFeatures (not declared: UserNamespacesHostNetworkSupport)",
			},
		},
		{
			name: "declared in any order, with duplicates and names the scheduler does not know",
			node: dt.Node("n", withDeclaredFeatures(usernsHost, "FutureFeature/sub", bindMounts, restartAll, bindMounts)),
			want: []string{"bind-mounts Yes", "plain Yes", "restart-all Yes", "two Yes", "userns-hostnet Yes"},
		},
		{
			name: "the gate off: nothing is Pending",
			node: dt.Node("n"),
			opts: whatif.Options{DisableNodeDeclaredFeatures: true},
			want: []string{"bind-mounts Yes", "plain Yes", "restart-all Yes", "two Yes", "userns-hostnet Yes"},
		},
		{
			name: "an untolerated taint is decided first: the controller creates no pod",
			node: dt.Node("n", dt.WithTaint("dedicated", "db", corev1.TaintEffectNoSchedule)),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nodeBefore := tt.node.DeepCopy()
			placed, err := whatif.PlacementsForNode(tt.node, featureDaemonSets(), tt.opts)
			if err != nil {
				t.Fatalf("PlacementsForNode() error = %v", err)
			}
			var got, wantYes, gotYes []string
			for _, p := range placed {
				got = append(got, p.Pod.OwnerReferences[0].Name+" "+p.Placement.String())
				if p.Placement.Placement == whatif.PlacementYes {
					wantYes = append(wantYes, p.Pod.OwnerReferences[0].Name)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("PlacementsForNode() (-want +got):\n%s", diff)
			}
			pods, err := whatif.PodsForNode(tt.node, featureDaemonSets(), tt.opts)
			if err != nil {
				t.Fatalf("PodsForNode() error = %v", err)
			}
			for _, p := range pods {
				gotYes = append(gotYes, p.OwnerReferences[0].Name)
			}
			if diff := cmp.Diff(wantYes, gotYes); diff != "" {
				t.Errorf("PodsForNode() gives other pods than the Yes of PlacementsForNode (-Yes +PodsForNode):\n%s", diff)
			}
			if diff := cmp.Diff(nodeBefore, tt.node); diff != "" {
				t.Errorf("the node was modified (-before +after):\n%s", diff)
			}
		})
	}
}

// TestPodsForTemplateDeclaredFeatures: the template's DeclaredFeatures are
// judged as a node's; Pending wins over Maybe, a No stays a No.
func TestPodsForTemplateDeclaredFeatures(t *testing.T) {
	zonal := dt.DaemonSet("zonal", dt.WithNodeSelector("topology.kubernetes.io/zone", "eu-west-1a"), withRestartAllContainers)
	tests := []struct {
		name     string
		template whatif.NodeTemplate
		opts     whatif.Options
		want     []string
	}{
		{
			name:     "nothing declared: every pod that requires a feature is Pending, a Maybe too",
			template: whatif.NodeTemplate{Labels: map[string]string{"kubernetes.io/os": "linux"}},
			want: []string{
				"bind-mounts Pending: UndeclaredFeatures (not declared: VolumeBindMountOptions)",
				"plain Yes",
				"restart-all Pending: UndeclaredFeatures (not declared: RestartAllContainersOnContainerExits)",
				"two Pending: UndeclaredFeatures (not declared: RestartAllContainersOnContainerExits, VolumeBindMountOptions)",
				"userns-hostnet Pending: UndeclaredFeatures (not declared: UserNamespacesHostNetworkSupport)",
				"zonal Pending: UndeclaredFeatures (not declared: RestartAllContainersOnContainerExits)",
			},
		},
		{
			name: "features declared in any order, copied from a node of the group",
			template: whatif.NodeTemplate{Labels: map[string]string{"kubernetes.io/os": "linux"},
				DeclaredFeatures: []string{restartAll, bindMounts}},
			want: []string{
				"bind-mounts Yes",
				"plain Yes",
				"restart-all Yes",
				"two Yes",
				"userns-hostnet Pending: UndeclaredFeatures (not declared: UserNamespacesHostNetworkSupport)",
				"zonal Maybe: NodeAffinityMismatch (nodeSelector topology.kubernetes.io/zone: Sometimes)",
			},
		},
		{
			name:     "the gate off",
			template: whatif.NodeTemplate{Labels: map[string]string{"kubernetes.io/os": "linux"}},
			opts:     whatif.Options{DisableNodeDeclaredFeatures: true},
			want: []string{"bind-mounts Yes", "plain Yes", "restart-all Yes", "two Yes", "userns-hostnet Yes",
				"zonal Maybe: NodeAffinityMismatch (nodeSelector topology.kubernetes.io/zone: Sometimes)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ct, err := whatif.CompileTemplate(tt.template)
			if err != nil {
				t.Fatal(err)
			}
			pods, err := whatif.PodsForTemplate(ct, append(featureDaemonSets(), zonal), tt.opts)
			if err != nil {
				t.Fatalf("PodsForTemplate() error = %v", err)
			}
			var got []string
			for _, p := range pods {
				got = append(got, p.Pod.OwnerReferences[0].Name+" "+p.Placement.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("PodsForTemplate() (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPlacementForDeclaredFeatures: the one-call PlacementFor judges the
// declared features too; CompiledTemplate.PlacementFor, which has no pod,
// does not.
func TestPlacementForDeclaredFeatures(t *testing.T) {
	ds := dt.DaemonSet("restart-all", withRestartAllContainers)
	tests := []struct {
		name     string
		template whatif.NodeTemplate
		ds       *appsv1.DaemonSet
		want     string
	}{
		{name: "undeclared", template: whatif.NodeTemplate{}, ds: ds, want: "Pending: UndeclaredFeatures (not declared: RestartAllContainersOnContainerExits)"},
		{name: "declared", template: whatif.NodeTemplate{DeclaredFeatures: []string{restartAll}}, ds: ds, want: "Yes"},
		{name: "a No is decided before the features", template: whatif.NodeTemplate{Taints: []corev1.Taint{{Key: "k", Effect: corev1.TaintEffectNoSchedule}}}, ds: ds, want: "No: UntoleratedTaint (k:NoSchedule)"},
		{name: "a nil DaemonSet", template: whatif.NodeTemplate{}, want: "No: NilNode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := whatif.PlacementFor(tt.template, tt.ds, false)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, v.String()); diff != "" {
				t.Errorf("PlacementFor() (-want +got):\n%s", diff)
			}
		})
	}
}

// ExamplePlacementsForNode shows a node whose kubelet declares no feature:
// the controller creates the pod of a DaemonSet that restarts all its
// containers on an exit code, and the scheduler leaves it Pending.
func ExamplePlacementsForNode() {
	daemonSets := []*appsv1.DaemonSet{
		dt.DaemonSet("node-exporter"),
		dt.DaemonSet("gpu-agent", withRestartAllContainers),
	}
	for _, declared := range [][]string{nil, {"RestartAllContainersOnContainerExits"}} {
		node := dt.Node("node-1", withDeclaredFeatures(declared...))
		placed, err := whatif.PlacementsForNode(node, daemonSets, whatif.Options{})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("declared %v:\n", declared)
		for _, p := range placed {
			fmt.Printf("  %s: %v\n", p.Pod.OwnerReferences[0].Name, p.Placement)
		}
	}
	// Output:
	// declared []:
	//   gpu-agent: Pending: UndeclaredFeatures (not declared: RestartAllContainersOnContainerExits)
	//   node-exporter: Yes
	// declared [RestartAllContainersOnContainerExits]:
	//   gpu-agent: Yes
	//   node-exporter: Yes
}
