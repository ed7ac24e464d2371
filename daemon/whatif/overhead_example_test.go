package whatif_test

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/whatif"
)

// ExampleFootprint_Remaining is an autoscaler's question "how much room is
// left on this node type once its DaemonSet pods run?": the pods a node of
// the type would get, what they take (a LimitRange fills in the agent that
// sets no resources), and what is left of the type's allocatable.
func ExampleFootprint_Remaining() {
	withResources := func(requests, limits corev1.ResourceList) dt.DaemonSetOption {
		return func(ds *appsv1.DaemonSet) {
			ds.Spec.Template.Spec.Containers[0].Resources = corev1.ResourceRequirements{Requests: requests, Limits: limits}
		}
	}
	daemonSets := []*appsv1.DaemonSet{
		dt.DaemonSet("kube-proxy", withResources(corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}, nil)),
		dt.DaemonSet("node-exporter", withResources(nil, corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("180Mi")})),
		dt.DaemonSet("log-agent"), // no resources: the namespace's LimitRange decides
	}
	limitRange := &corev1.LimitRange{
		ObjectMeta: metav1.ObjectMeta{Name: "defaults", Namespace: "default"},
		Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
			Type:           corev1.LimitTypeContainer,
			DefaultRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("50m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
		}}},
	}
	nodeType := dt.Node("m5.large-template", dt.WithLabel("node.kubernetes.io/instance-type", "m5.large"))
	allocatable := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("1930m"),
		corev1.ResourceMemory: resource.MustParse("7174Mi"),
		corev1.ResourcePods:   resource.MustParse("29"),
	}

	pods, err := whatif.PodsForNode(nodeType, daemonSets, whatif.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	f := whatif.Overhead(pods, whatif.OverheadOptions{LimitRanges: []*corev1.LimitRange{limitRange}})
	left := f.Remaining(allocatable)
	fmt.Printf("daemon pods: %d\n", f.Pods)
	fmt.Printf("requested:   cpu=%s memory=%s\n", f.Requests.Cpu(), f.Requests.Memory())
	fmt.Printf("left:        cpu=%s memory=%s pods=%s\n", left.Cpu(), left.Memory(), left.Pods())
	// Output:
	// daemon pods: 3
	// requested:   cpu=200m memory=308Mi
	// left:        cpu=1730m memory=6866Mi pods=26
}

// ExampleOverhead shows the requests of a pod whose init container is
// larger than its main container, and its host port.
func ExampleOverhead() {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "cni-x1"},
		Spec: corev1.PodSpec{
			HostNetwork: true,
			InitContainers: []corev1.Container{{Name: "install", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}}}},
			Containers: []corev1.Container{{Name: "agent", Ports: []corev1.ContainerPort{{ContainerPort: 9099}},
				Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("200m")}}}},
		},
	}
	f := whatif.Overhead([]*corev1.Pod{pod}, whatif.OverheadOptions{})
	fmt.Println("cpu:", f.Requests.Cpu())
	for _, p := range f.HostPorts {
		fmt.Printf("port: %s %s:%d (%s, container %s)\n", p.Protocol, p.HostIP, p.Port, p.Pod, p.Container)
	}
	// Output:
	// cpu: 500m
	// port: TCP 0.0.0.0:9099 (kube-system/cni-x1, container agent)
}

// ExampleOverhead_runtimeClass sizes a pod that sets no resources in a
// namespace with a LimitRange, running under a RuntimeClass with overhead.
func ExampleOverhead_runtimeClass() {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "sandboxed", GenerateName: "agent-"},
		Spec:       corev1.PodSpec{RuntimeClassName: ptr.To("kata"), Containers: []corev1.Container{{Name: "agent"}}},
	}
	f := whatif.Overhead([]*corev1.Pod{pod}, whatif.OverheadOptions{
		LimitRanges: []*corev1.LimitRange{{
			ObjectMeta: metav1.ObjectMeta{Namespace: "sandboxed", Name: "defaults"},
			Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
				Type: corev1.LimitTypeContainer, Default: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")},
			}}},
		}},
		RuntimeClasses: []*nodev1.RuntimeClass{{
			ObjectMeta: metav1.ObjectMeta{Name: "kata"},
			Overhead:   &nodev1.Overhead{PodFixed: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("160Mi")}},
		}},
	})
	fmt.Println("memory request:", f.Requests.Memory())
	// Output:
	// memory request: 416Mi
}

// ExamplePodsForTemplate sizes a node group before any of its nodes
// exists: the DaemonSet pods a new node of the group gets, for sure and
// maybe, and what they take from it.
func ExamplePodsForTemplate() {
	group, err := whatif.CompileTemplate(whatif.NodeTemplate{
		Labels: map[string]string{"kubernetes.io/os": "linux"},
		Requirements: []corev1.NodeSelectorRequirement{
			{Key: "node.kubernetes.io/instance-type", Operator: corev1.NodeSelectorOpIn, Values: []string{"g5.xlarge", "m5.large"}},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	withCPU := func(cpu string) dt.DaemonSetOption {
		return func(ds *appsv1.DaemonSet) {
			ds.Spec.Template.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}
		}
	}
	gpuOnly := func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
				{Key: "node.kubernetes.io/instance-type", Operator: corev1.NodeSelectorOpIn, Values: []string{"g5.xlarge"}},
			}}},
		}}}
	}
	daemonSets := []*appsv1.DaemonSet{
		dt.DaemonSet("kube-proxy", withCPU("100m")),
		dt.DaemonSet("dcgm-exporter", withCPU("50m"), gpuOnly),
		dt.DaemonSet("windows-exporter", withCPU("100m"), dt.WithNodeSelector("kubernetes.io/os", "windows")),
	}

	pods, err := whatif.PodsForTemplate(group, daemonSets, whatif.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	var sure, worst []*corev1.Pod
	for _, p := range pods {
		fmt.Println(p.Pod.GenerateName, p.Placement)
		if p.Placement.Placement == whatif.PlacementYes {
			sure = append(sure, p.Pod)
		}
		worst = append(worst, p.Pod)
	}
	sureCPU := whatif.Overhead(sure, whatif.OverheadOptions{}).Requests[corev1.ResourceCPU]
	worstCPU := whatif.Overhead(worst, whatif.OverheadOptions{}).Requests[corev1.ResourceCPU]
	fmt.Println("cpu, sure:", sureCPU.String())
	fmt.Println("cpu, worst case:", worstCPU.String())
	// Output:
	// dcgm-exporter- Maybe: NodeAffinityMismatch (required term 0, matchExpressions[0] node.kubernetes.io/instance-type: Sometimes)
	// kube-proxy- Yes
	// cpu, sure: 100m
	// cpu, worst case: 150m
}
