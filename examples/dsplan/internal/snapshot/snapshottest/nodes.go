package snapshottest

import (
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// instanceType is one kind of node of the generated cluster.
type instanceType struct {
	name        string
	cpu, memKi  int64
	pods        int
	gpu         bool
	arch, group string
}

var instanceTypes = []instanceType{
	{name: "m6i.2xlarge", cpu: 8, memKi: 32_386_776, pods: 58, arch: "amd64", group: "general"},
	{name: "m6i.4xlarge", cpu: 16, memKi: 64_906_512, pods: 234, arch: "amd64", group: "general"},
	{name: "c6i.4xlarge", cpu: 16, memKi: 31_876_624, pods: 234, arch: "amd64", group: "compute"},
	{name: "r6g.2xlarge", cpu: 8, memKi: 64_649_908, pods: 58, arch: "arm64", group: "memory-arm"},
	{name: "g5.2xlarge", cpu: 8, memKi: 32_386_776, pods: 58, gpu: true, arch: "amd64", group: "gpu"},
}

var zones = []string{"us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d"}

// node returns the i-th node: a Ready EKS-style worker, a few of them
// NotReady, cordoned or with GPUs (and their taint).
func (g *gen) node(i int) *corev1.Node {
	r := g.r
	it := instanceTypes[pickWeighted(r.IntN(100), 40, 25, 15, 15, 5)]
	ip := fmt.Sprintf("10.%d.%d.%d", 16+i/16_000, (i/64)%250, 4*(i%64)+1+r.IntN(3))
	name := "ip-" + replaceDots(ip) + ".ec2.internal"
	zone := zones[r.IntN(len(zones))]
	created := Taken.Add(-time.Duration(1+r.IntN(90*24*60)) * time.Minute)
	instanceID := "i-0" + g.hex(16)
	labels := map[string]string{
		"beta.kubernetes.io/arch":                  it.arch,
		"beta.kubernetes.io/instance-type":         it.name,
		"beta.kubernetes.io/os":                    "linux",
		"eks.amazonaws.com/capacityType":           pick(r, "ON_DEMAND", "ON_DEMAND", "SPOT"),
		"eks.amazonaws.com/nodegroup":              it.group + "-" + zone,
		"eks.amazonaws.com/nodegroup-image":        "ami-0d8c1e7b5f2a3c4d6",
		"eks.amazonaws.com/sourceLaunchTemplateId": "lt-0a1b2c3d4e5f60718",
		"failure-domain.beta.kubernetes.io/region": "us-east-1",
		"failure-domain.beta.kubernetes.io/zone":   zone,
		"k8s.io/cloud-provider-aws":                "8e0f1c2a9b3d4e5f6a7b8c9d0e1f2a3b",
		"kubernetes.io/arch":                       it.arch,
		"kubernetes.io/hostname":                   name,
		"kubernetes.io/os":                         "linux",
		"node.kubernetes.io/instance-type":         it.name,
		"topology.ebs.csi.aws.com/zone":            zone,
		"topology.k8s.aws/zone-id":                 "use1-az" + strconv.Itoa(1+int(zone[len(zone)-1]-'a')),
		"topology.kubernetes.io/region":            "us-east-1",
		"topology.kubernetes.io/zone":              zone,
	}
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:              name,
			UID:               g.uid(),
			ResourceVersion:   strconv.Itoa(20_000_000 + r.IntN(5_000_000)),
			CreationTimestamp: metav1.Time{Time: created},
			Labels:            labels,
			Annotations: map[string]string{
				"alpha.kubernetes.io/provided-node-ip":                   ip,
				"csi.volume.kubernetes.io/nodeid":                        `{"ebs.csi.aws.com":"` + instanceID + `"}`,
				"io.cilium.network.ipv4-cilium-host":                     "10.200." + strconv.Itoa(i/250) + "." + strconv.Itoa(i%250),
				"io.cilium.network.ipv4-health-ip":                       "10.200." + strconv.Itoa(i/250) + "." + strconv.Itoa(i%250+1),
				"node.alpha.kubernetes.io/ttl":                           "0",
				"volumes.kubernetes.io/controller-managed-attach-detach": "true",
			},
		},
		Spec: corev1.NodeSpec{
			ProviderID: "aws:///" + zone + "/" + instanceID,
		},
	}
	if it.gpu {
		labels["nvidia.com/gpu.present"] = "true"
		labels["nvidia.com/gpu.product"] = "NVIDIA-A10G"
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: "nvidia.com/gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule})
	}
	heartbeat := Taken.Add(-time.Duration(5+r.IntN(40)) * time.Second)
	ready := corev1.NodeCondition{
		Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status",
		LastHeartbeatTime: metav1.Time{Time: heartbeat}, LastTransitionTime: metav1.Time{Time: created.Add(40 * time.Second)},
	}
	switch x := r.IntN(200); {
	case x < 2: // NotReady: the kubelet stopped reporting
		lost := Taken.Add(-time.Duration(2+r.IntN(30)) * time.Minute)
		ready = corev1.NodeCondition{
			Type: corev1.NodeReady, Status: corev1.ConditionUnknown, Reason: "NodeStatusUnknown", Message: "Kubelet stopped posting node status.",
			LastHeartbeatTime: metav1.Time{Time: lost.Add(-40 * time.Second)}, LastTransitionTime: metav1.Time{Time: lost},
		}
		heartbeat = lost.Add(-40 * time.Second)
		n.Spec.Taints = append(n.Spec.Taints,
			corev1.Taint{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoSchedule},
			corev1.Taint{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoExecute, TimeAdded: &metav1.Time{Time: lost}})
	case x < 3: // cordoned for maintenance
		n.Spec.Unschedulable = true
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule, TimeAdded: &metav1.Time{Time: Taken.Add(-time.Hour)}})
	}
	pressure := func(t corev1.NodeConditionType, reason, msg string) corev1.NodeCondition {
		st := corev1.ConditionFalse
		if ready.Status != corev1.ConditionTrue {
			st, reason, msg = corev1.ConditionUnknown, "NodeStatusUnknown", "Kubelet stopped posting node status."
		}
		return corev1.NodeCondition{Type: t, Status: st, Reason: reason, Message: msg,
			LastHeartbeatTime: metav1.Time{Time: heartbeat}, LastTransitionTime: metav1.Time{Time: created.Add(10 * time.Second)}}
	}
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:              *resource.NewQuantity(it.cpu, resource.DecimalSI),
		corev1.ResourceEphemeralStorage: resource.MustParse("104845292Ki"),
		"hugepages-1Gi":                 resource.MustParse("0"),
		"hugepages-2Mi":                 resource.MustParse("0"),
		corev1.ResourceMemory:           resource.MustParse(strconv.FormatInt(it.memKi, 10) + "Ki"),
		corev1.ResourcePods:             *resource.NewQuantity(int64(it.pods), resource.DecimalSI),
	}
	allocatable := corev1.ResourceList{
		corev1.ResourceCPU:              resource.MustParse(strconv.FormatInt(it.cpu*1000-90, 10) + "m"),
		corev1.ResourceEphemeralStorage: resource.MustParse("95551679124"),
		"hugepages-1Gi":                 resource.MustParse("0"),
		"hugepages-2Mi":                 resource.MustParse("0"),
		corev1.ResourceMemory:           resource.MustParse(strconv.FormatInt(it.memKi-1_000_000, 10) + "Ki"),
		corev1.ResourcePods:             *resource.NewQuantity(int64(it.pods), resource.DecimalSI),
	}
	if it.gpu {
		capacity["nvidia.com/gpu"] = resource.MustParse("1")
		allocatable["nvidia.com/gpu"] = resource.MustParse("1")
	}
	n.Status = corev1.NodeStatus{
		Capacity:    capacity,
		Allocatable: allocatable,
		Conditions: []corev1.NodeCondition{
			{Type: corev1.NodeNetworkUnavailable, Status: corev1.ConditionFalse, Reason: "CiliumIsUp", Message: "Cilium is running on this node",
				LastHeartbeatTime: metav1.Time{Time: created.Add(90 * time.Second)}, LastTransitionTime: metav1.Time{Time: created.Add(90 * time.Second)}},
			pressure(corev1.NodeMemoryPressure, "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
			pressure(corev1.NodeDiskPressure, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
			pressure(corev1.NodePIDPressure, "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
			ready,
		},
		Addresses: []corev1.NodeAddress{
			{Type: corev1.NodeInternalIP, Address: ip},
			{Type: corev1.NodeInternalDNS, Address: name},
			{Type: corev1.NodeHostName, Address: name},
		},
		DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}},
		NodeInfo: corev1.NodeSystemInfo{
			MachineID: g.hex(32), SystemUUID: "ec2" + g.hex(5) + "-" + g.hex(4) + "-" + g.hex(4) + "-" + g.hex(4) + "-" + g.hex(12),
			BootID: string(g.uid()), KernelVersion: "6.12.40-64.114.amzn2023." + map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[it.arch],
			OSImage: "Amazon Linux 2023.8.20250818", ContainerRuntimeVersion: "containerd://2.0.5",
			KubeletVersion: "v1.36.3-eks-3abbec1", OperatingSystem: "linux", Architecture: it.arch,
		},
		Images:   g.nodeImages(),
		Features: &corev1.NodeFeatures{SupplementalGroupsPolicy: ptr(true)},
		RuntimeHandlers: []corev1.NodeRuntimeHandler{
			{Name: "nvidia", Features: &corev1.NodeRuntimeHandlerFeatures{RecursiveReadOnlyMounts: ptr(true), UserNamespaces: ptr(true)}},
			{Name: "runc", Features: &corev1.NodeRuntimeHandlerFeatures{RecursiveReadOnlyMounts: ptr(true), UserNamespaces: ptr(true)}},
			{Name: "", Features: &corev1.NodeRuntimeHandlerFeatures{RecursiveReadOnlyMounts: ptr(true), UserNamespaces: ptr(true)}},
		},
	}
	n.ManagedFields = []metav1.ManagedFieldsEntry{
		g.managed("kubelet", "", created, "v1", fieldsOfSub(n, map[string][]string{"metadata": {"annotations", "labels"}, "spec": {"providerID"}})),
		g.managed("kube-controller-manager", "", created.Add(30*time.Second), "v1", fieldsOfSub(n, map[string][]string{"spec": {"taints", "unschedulable"}})),
		g.managed("cilium-agent", "status", created.Add(90*time.Second), "v1", `{"f:status":{"f:conditions":{"k:{\"type\":\"NetworkUnavailable\"}":{".":{},"f:lastHeartbeatTime":{},"f:lastTransitionTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}}}}}`),
		g.managed("kubelet", "status", heartbeat, "v1", fieldsOfSub(n, map[string][]string{"status": {"allocatable", "capacity", "conditions", "daemonEndpoints", "features", "images", "nodeInfo", "runtimeHandlers", "addresses"}})),
	}
	return n
}

// nodeImages returns the images a node has pulled: those of the
// DaemonSets and a random draw of workload images.
func (g *gen) nodeImages() []corev1.ContainerImage {
	if g.images == nil {
		g.images = g.imagePool()
	}
	var out []corev1.ContainerImage
	for i, im := range g.images {
		if i < 8 || g.r.IntN(12) == 0 {
			out = append(out, im)
		}
	}
	return out
}

// imagePool draws the images of the cluster: the add-ons' and workloads'.
func (g *gen) imagePool() []corev1.ContainerImage {
	names := []string{
		"quay.io/cilium/cilium:v1.18.2", "602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/kube-proxy:v1.36.3-minimal-eksbuild.2",
		"602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/aws-ebs-csi-driver:v1.48.0", "cr.fluentbit.io/fluent/fluent-bit:3.2.5",
		"cr.fluentbit.io/fluent/fluent-bit:3.2.4", "quay.io/prometheus/node-exporter:v1.9.1", "quay.io/brancz/kube-rbac-proxy:v0.19.1",
		"registry.k8s.io/dns/k8s-dns-node-cache:1.26.4", "602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/csi-node-driver-registrar:v2.14.0-eks-1-33-8",
		"602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/livenessprobe:v2.16.0-eks-1-33-8", "602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/pause:3.10",
		"quay.io/cilium/operator-aws:v1.18.2",
	}
	for i := range 60 {
		names = append(names, fmt.Sprintf("123456789012.dkr.ecr.us-east-1.amazonaws.com/team-%d/service-%d:v%d.%d.%d", i%9, i, 1+i%4, i%17, i%5))
	}
	out := make([]corev1.ContainerImage, len(names))
	for i, n := range names {
		repo := n[:lastIndex(n, ':')]
		out[i] = corev1.ContainerImage{Names: []string{repo + "@sha256:" + g.hex(64), n}, SizeBytes: int64(5_000_000 + g.r.IntN(900_000_000))}
	}
	return out
}

func replaceDots(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c == '.' {
			b[i] = '-'
		}
	}
	return string(b)
}

func lastIndex(s string, c byte) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == c {
			return i
		}
	}
	return len(s)
}

// hex returns n random hexadecimal digits.
func (g *gen) hex(n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[g.r.IntN(16)]
	}
	return string(b)
}

// pickWeighted returns the index of the weight x (0 <= x < sum) falls in.
func pickWeighted(x int, weights ...int) int {
	for i, w := range weights {
		if x < w {
			return i
		}
		x -= w
	}
	return len(weights) - 1
}

func pick[T any](r interface{ IntN(int) int }, vs ...T) T { return vs[r.IntN(len(vs))] }

func ptr[T any](v T) *T { return &v }
