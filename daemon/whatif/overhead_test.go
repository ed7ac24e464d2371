package whatif_test

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	resourcehelper "k8s.io/component-helpers/resource"
	"k8s.io/utils/ptr"

	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/whatif"
)

// rl builds a resource list from name, quantity pairs.
func rl(pairs ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		out[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return out
}

// ctr is a container with requests and limits.
func ctr(name string, requests, limits corev1.ResourceList) corev1.Container {
	return corev1.Container{Name: name, Image: "img", Resources: corev1.ResourceRequirements{Requests: requests, Limits: limits}}
}

// sidecar is a restartable init container.
func sidecar(name string, requests corev1.ResourceList) corev1.Container {
	c := ctr(name, requests, nil)
	c.RestartPolicy = ptr.To(corev1.ContainerRestartPolicyAlways)
	return c
}

func podOf(spec corev1.PodSpec) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "kube-system"}, Spec: spec}
}

// quantityCmp compares quantities by value.
var quantityCmp = cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })

// TestOverheadAutoscalerReports pins, case by case, the behaviours that
// autoscaler users reported wrong (see the field notes): each case names it.
func TestOverheadAutoscalerReports(t *testing.T) {
	limitRange := &corev1.LimitRange{
		ObjectMeta: metav1.ObjectMeta{Name: "defaults", Namespace: "kube-system"},
		Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
			Type: corev1.LimitTypeContainer, Default: rl("cpu", "500m", "memory", "512Mi"), DefaultRequest: rl("cpu", "100m"),
		}}},
	}
	maxOnly := &corev1.LimitRange{
		ObjectMeta: metav1.ObjectMeta{Name: "max", Namespace: "kube-system"},
		Spec:       corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer, Max: rl("memory", "1Gi")}}},
	}
	otherNS := limitRange.DeepCopy()
	otherNS.Namespace = "default"
	kata := &nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "kata"}, Handler: "kata", Overhead: &nodev1.Overhead{PodFixed: rl("cpu", "250m", "memory", "160Mi")}}

	tests := []struct {
		name         string
		pods         []*corev1.Pod
		opts         whatif.OverheadOptions
		wantRequests corev1.ResourceList
		wantLimits   corev1.ResourceList
		wantPorts    []whatif.HostPort
	}{
		{
			name: "empty requests in a LimitRange namespace take defaultRequest and default (aws/karpenter-provider-aws#3199)",
			pods: []*corev1.Pod{podOf(corev1.PodSpec{Containers: []corev1.Container{ctr("agent", nil, nil)}})},
			opts: whatif.OverheadOptions{LimitRanges: []*corev1.LimitRange{limitRange}},
			// memory has a default limit only: its request defaults to it.
			wantRequests: rl("cpu", "100m", "memory", "512Mi"),
			wantLimits:   rl("cpu", "500m", "memory", "512Mi"),
		},
		{
			name:         "a LimitRange max alone becomes the default limit and request",
			pods:         []*corev1.Pod{podOf(corev1.PodSpec{Containers: []corev1.Container{ctr("agent", nil, nil)}})},
			opts:         whatif.OverheadOptions{LimitRanges: []*corev1.LimitRange{maxOnly}},
			wantRequests: rl("memory", "1Gi"),
			wantLimits:   rl("memory", "1Gi"),
		},
		{
			name: "a LimitRange of another namespace does not apply",
			pods: []*corev1.Pod{podOf(corev1.PodSpec{Containers: []corev1.Container{ctr("agent", nil, nil)}})},
			opts: whatif.OverheadOptions{LimitRanges: []*corev1.LimitRange{otherNS}},
		},
		{
			name: "the LimitRange fills only what is missing, after requests default from limits",
			pods: []*corev1.Pod{podOf(corev1.PodSpec{Containers: []corev1.Container{ctr("agent", nil, rl("cpu", "2"))}})},
			opts: whatif.OverheadOptions{LimitRanges: []*corev1.LimitRange{limitRange}},
			// cpu: the request is the container's own limit, not defaultRequest.
			wantRequests: rl("cpu", "2", "memory", "512Mi"),
			wantLimits:   rl("cpu", "2", "memory", "512Mi"),
		},
		{
			name:         "limits without requests count as requests (aws/karpenter-provider-aws#1573)",
			pods:         []*corev1.Pod{podOf(corev1.PodSpec{Containers: []corev1.Container{ctr("agent", rl("cpu", "100m"), rl("cpu", "200m", "memory", "128Mi"))}})},
			wantRequests: rl("cpu", "100m", "memory", "128Mi"),
			wantLimits:   rl("cpu", "200m", "memory", "128Mi"),
		},
		{
			name: "an init container larger than the main containers sets the request",
			pods: []*corev1.Pod{podOf(corev1.PodSpec{
				InitContainers: []corev1.Container{ctr("init", rl("cpu", "1", "memory", "64Mi"), nil)},
				Containers:     []corev1.Container{ctr("agent", rl("cpu", "100m", "memory", "128Mi"), nil)},
			})},
			wantRequests: rl("cpu", "1", "memory", "128Mi"),
		},
		{
			name: "sidecars run alongside the containers and the init containers after them",
			pods: []*corev1.Pod{podOf(corev1.PodSpec{
				InitContainers: []corev1.Container{
					sidecar("proxy", rl("cpu", "300m")),
					ctr("init", rl("cpu", "1"), nil), // runs with the proxy: 1.3
				},
				Containers: []corev1.Container{ctr("agent", rl("cpu", "100m"), nil)}, // with the proxy: 0.4
			})},
			wantRequests: rl("cpu", "1300m"),
		},
		{
			name:         "pod overhead from the RuntimeClass is added (aws/karpenter-provider-aws#9269)",
			pods:         []*corev1.Pod{podOf(corev1.PodSpec{RuntimeClassName: ptr.To("kata"), Containers: []corev1.Container{ctr("agent", rl("cpu", "100m"), nil)}})},
			opts:         whatif.OverheadOptions{RuntimeClasses: []*nodev1.RuntimeClass{kata}},
			wantRequests: rl("cpu", "350m", "memory", "160Mi"),
			wantLimits:   nil,
		},
		{
			name:         "a pod's own overhead counts without a RuntimeClass",
			pods:         []*corev1.Pod{podOf(corev1.PodSpec{Overhead: rl("cpu", "10m"), Containers: []corev1.Container{ctr("agent", rl("cpu", "100m"), nil)}})},
			wantRequests: rl("cpu", "110m"),
		},
		{
			name: "pod-level requests replace the containers' sum",
			pods: []*corev1.Pod{podOf(corev1.PodSpec{
				Resources:  &corev1.ResourceRequirements{Requests: rl("cpu", "1")},
				Containers: []corev1.Container{ctr("a", rl("cpu", "100m", "memory", "1Mi"), nil), ctr("b", rl("cpu", "100m"), nil)},
			})},
			wantRequests: rl("cpu", "1", "memory", "1Mi"),
		},
		{
			name: "pod-level limits without requests default the pod-level requests",
			pods: []*corev1.Pod{podOf(corev1.PodSpec{
				Resources:  &corev1.ResourceRequirements{Limits: rl("cpu", "2", "memory", "1Gi")},
				Containers: []corev1.Container{ctr("a", rl("cpu", "100m"), nil)},
			})},
			// cpu from the containers' effective request, memory from the limit.
			wantRequests: rl("cpu", "100m", "memory", "1Gi"),
			wantLimits:   rl("cpu", "2", "memory", "1Gi"),
		},
		{
			name: "host ports: protocol and host IP defaulted, hostNetwork ports bound, ordinary init containers ignored (kubernetes-sigs/karpenter#2083)",
			pods: []*corev1.Pod{
				podOf(corev1.PodSpec{HostNetwork: true, Containers: []corev1.Container{{Name: "exporter", Ports: []corev1.ContainerPort{{ContainerPort: 9100}}}}}),
				podOf(corev1.PodSpec{
					InitContainers: []corev1.Container{
						{Name: "init", Ports: []corev1.ContainerPort{{ContainerPort: 1, HostPort: 1}}},
						{Name: "side", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways), Ports: []corev1.ContainerPort{{ContainerPort: 53, HostPort: 53, Protocol: corev1.ProtocolUDP, HostIP: "10.0.0.1"}}},
					},
					Containers: []corev1.Container{{Name: "dns", Ports: []corev1.ContainerPort{{ContainerPort: 8080}}}},
				}),
			},
			wantPorts: []whatif.HostPort{
				{Port: 53, Protocol: corev1.ProtocolUDP, HostIP: "10.0.0.1", Pod: "kube-system/p", Container: "side"},
				{Port: 9100, Protocol: corev1.ProtocolTCP, HostIP: "0.0.0.0", Pod: "kube-system/p", Container: "exporter"},
			},
		},
		{
			name: "Mutate applies what a webhook or VPA sets (gardener-extension-networking-calico#767)",
			pods: []*corev1.Pod{podOf(corev1.PodSpec{Containers: []corev1.Container{ctr("calico", rl("cpu", "100m"), nil)}})},
			opts: whatif.OverheadOptions{Mutate: func(p *corev1.Pod) {
				p.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("700m")
			}},
			wantRequests: rl("cpu", "700m"),
		},
		{name: "nil pods are skipped", pods: []*corev1.Pod{nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := make([]*corev1.Pod, len(tt.pods))
			for i, p := range tt.pods {
				before[i] = p.DeepCopy()
			}
			got := whatif.Overhead(tt.pods, tt.opts)
			want := whatif.Footprint{Pods: len(tt.pods), Requests: tt.wantRequests, Limits: tt.wantLimits, HostPorts: tt.wantPorts}
			if tt.name == "nil pods are skipped" {
				want.Pods = 0
			}
			if diff := cmp.Diff(want, got, quantityCmp, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Overhead() (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tt.pods); diff != "" {
				t.Errorf("Overhead() modified its input (-before +after):\n%s", diff)
			}
		})
	}
}

// TestOverheadEqualsPodRequests is the differential test: on pods that need
// no defaulting, Overhead's requests and limits are component-helpers' per
// pod sums.
func TestOverheadEqualsPodRequests(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for i := range 200 {
		pods := randomPods(r, 1+r.IntN(5), false)
		got := whatif.Overhead(pods, whatif.OverheadOptions{})
		var wantReq, wantLim corev1.ResourceList
		for _, p := range pods {
			wantReq = sumInto(wantReq, resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{}))
			wantLim = sumInto(wantLim, resourcehelper.PodLimits(p, resourcehelper.PodResourcesOptions{}))
		}
		if diff := cmp.Diff(wantReq, got.Requests, quantityCmp, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("case %d: requests differ from resource.PodRequests sums (-helpers +Overhead):\n%s", i, diff)
		}
		if diff := cmp.Diff(wantLim, got.Limits, quantityCmp, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("case %d: limits differ from resource.PodLimits sums (-helpers +Overhead):\n%s", i, diff)
		}
		if got.Pods != len(pods) {
			t.Fatalf("case %d: Pods = %d, want %d", i, got.Pods, len(pods))
		}
	}
}

func sumInto(a, b corev1.ResourceList) corev1.ResourceList {
	if a == nil {
		a = corev1.ResourceList{}
	}
	for k, v := range b {
		s := a[k]
		s.Add(v)
		a[k] = s
	}
	return a
}

// randomPods draws n pods with containers, init containers, sidecars,
// overhead and pod-level requests. Unless loose, every limit comes with a
// request, so that defaulting changes nothing.
func randomPods(r *rand.Rand, n int, loose bool) []*corev1.Pod {
	q := func() resource.Quantity { return *resource.NewMilliQuantity(int64(r.IntN(4000)), resource.DecimalSI) }
	list := func() corev1.ResourceList {
		out := corev1.ResourceList{}
		for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, "nvidia.com/gpu"} {
			if r.IntN(2) == 0 {
				out[name] = q()
			}
		}
		return out
	}
	c := func(name string) corev1.Container {
		req := list()
		var lim corev1.ResourceList
		if r.IntN(2) == 0 {
			lim = corev1.ResourceList{}
			for k := range req {
				lim[k] = q()
			}
			if loose {
				lim["memory"] = q()
			}
		}
		ct := ctr(name, req, lim)
		if r.IntN(3) == 0 {
			ct.Ports = []corev1.ContainerPort{{ContainerPort: int32(1 + r.IntN(9)), HostPort: int32(r.IntN(3))}}
		}
		return ct
	}
	pods := make([]*corev1.Pod, n)
	for i := range pods {
		spec := corev1.PodSpec{HostNetwork: loose && r.IntN(2) == 0}
		for j := range r.IntN(3) {
			ic := c("init" + string(rune('a'+j)))
			if r.IntN(2) == 0 {
				ic.RestartPolicy = ptr.To(corev1.ContainerRestartPolicyAlways)
			}
			spec.InitContainers = append(spec.InitContainers, ic)
		}
		for j := range 1 + r.IntN(3) {
			spec.Containers = append(spec.Containers, c("c"+string(rune('a'+j))))
		}
		if r.IntN(4) == 0 {
			spec.Overhead = list()
		}
		if r.IntN(4) == 0 {
			spec.Resources = &corev1.ResourceRequirements{Requests: rl("cpu", "3")}
		}
		pods[i] = &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p" + string(rune('a'+i)), Namespace: "ns"}, Spec: spec}
	}
	return pods
}

// TestTemplatePodOverheadAndRemaining sizes one DaemonSet's pod, as
// PodsForTemplate builds it for any node, and what is left of a node.
func TestTemplatePodOverheadAndRemaining(t *testing.T) {
	ds := dt.DaemonSet("agent", func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.Containers[0].Resources.Limits = rl("cpu", "250m", "memory", "256Mi")
		ds.Spec.Template.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 9100, HostPort: 9100}}
	})
	before := ds.DeepCopy()
	anyNode, err := whatif.CompileTemplate(whatif.NodeTemplate{})
	if err != nil {
		t.Fatal(err)
	}
	pods, err := whatif.PodsForTemplate(anyNode, []*appsv1.DaemonSet{ds}, whatif.Options{})
	if err != nil || len(pods) != 1 {
		t.Fatalf("PodsForTemplate() = %d pods, %v; want 1", len(pods), err)
	}
	got := whatif.Overhead([]*corev1.Pod{pods[0].Pod}, whatif.OverheadOptions{})
	want := whatif.Footprint{
		Pods:      1,
		Requests:  rl("cpu", "250m", "memory", "256Mi"),
		Limits:    rl("cpu", "250m", "memory", "256Mi"),
		HostPorts: []whatif.HostPort{{Port: 9100, Protocol: corev1.ProtocolTCP, HostIP: "0.0.0.0", Pod: "default/agent-", Container: ds.Spec.Template.Spec.Containers[0].Name}},
	}
	if diff := cmp.Diff(want, got, quantityCmp); diff != "" {
		t.Errorf("Overhead() (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(before, ds); diff != "" {
		t.Errorf("PodsForTemplate() or Overhead() modified the DaemonSet (-before +after):\n%s", diff)
	}

	allocatable := rl("cpu", "2", "memory", "4Gi", "pods", "110")
	allocBefore := allocatable.DeepCopy()
	left := got.Remaining(allocatable)
	if diff := cmp.Diff(rl("cpu", "1750m", "memory", "3840Mi", "pods", "109"), left, quantityCmp); diff != "" {
		t.Errorf("Remaining() (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(allocBefore, allocatable, quantityCmp); diff != "" {
		t.Errorf("Remaining() modified allocatable:\n%s", diff)
	}
	gpu := whatif.Footprint{Requests: rl("nvidia.com/gpu", "1")}.Remaining(allocatable)
	if q := gpu["nvidia.com/gpu"]; q.Sign() >= 0 {
		t.Errorf("Remaining() of a resource the node lacks = %s, want negative", q.String())
	}
}

func FuzzOverhead(f *testing.F) {
	for _, seed := range []uint64{0, 1, 2, 42, 1 << 40} {
		f.Add(seed, uint8(3), true)
	}
	f.Fuzz(func(t *testing.T, seed uint64, n uint8, loose bool) {
		r := rand.New(rand.NewPCG(seed, 0))
		pods := randomPods(r, int(n%8), loose)
		before := make([]*corev1.Pod, len(pods))
		for i, p := range pods {
			before[i] = p.DeepCopy()
		}
		all := whatif.Overhead(pods, whatif.OverheadOptions{})
		// Additivity: the footprint of all is the sum of each pod's.
		var req corev1.ResourceList
		ports := 0
		for _, p := range pods {
			one := whatif.Overhead([]*corev1.Pod{p}, whatif.OverheadOptions{})
			req = sumInto(req, one.Requests)
			ports += len(one.HostPorts)
			for name, q := range one.Requests {
				if q.Sign() < 0 {
					t.Fatalf("negative request %s=%s", name, q.String())
				}
			}
		}
		if diff := cmp.Diff(req, all.Requests, quantityCmp, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("Overhead is not additive (-sum of pods +all):\n%s", diff)
		}
		if ports != len(all.HostPorts) || all.Pods != len(pods) {
			t.Fatalf("host ports %d vs %d, pods %d vs %d", ports, len(all.HostPorts), all.Pods, len(pods))
		}
		if diff := cmp.Diff(before, pods); diff != "" {
			t.Fatalf("Overhead modified its input:\n%s", diff)
		}
		// Remaining gives back allocatable when the requests are added.
		left := all.Remaining(nil)
		for name, q := range all.Requests {
			l := left[name]
			l.Add(q)
			if l.Sign() != 0 {
				t.Fatalf("Remaining(nil)[%s] + request = %s, want 0", name, l.String())
			}
		}
	})
}
