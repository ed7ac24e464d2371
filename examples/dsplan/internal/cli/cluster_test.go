package cli

import (
	"cmp"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot"
)

var update = flag.Bool("update", false, "rewrite the golden files and testdata/cluster.yaml")

// exampleCluster is the embedded cluster: eleven nodes (a control-plane
// node, nine workers, one of them NotReady, a GPU node), and three
// DaemonSets: node-exporter halfway through a rollout from v1 to v2
// (maxUnavailable 2, minReadySeconds 30), fluent-bit settled, and a GPU
// device plugin just created, with no pod yet.
func exampleCluster() *snapshot.Snapshot {
	now := dt.Epoch
	s := &snapshot.Snapshot{}
	gpuTaint := dt.WithTaint("nvidia.com/gpu", "present", corev1.TaintEffectNoSchedule)
	s.Nodes = append(s.Nodes, dt.Node("cp-1", dt.WithLabel("node-role.kubernetes.io/control-plane", ""),
		dt.WithTaint("node-role.kubernetes.io/control-plane", "", corev1.TaintEffectNoSchedule)))
	s.Nodes = append(s.Nodes, dt.Node("gpu-1", dt.WithLabel("accelerator", "nvidia"), gpuTaint))
	for i := 1; i <= 9; i++ {
		opts := []dt.NodeOption{dt.WithLabel("kubernetes.io/os", "linux")}
		if i == 9 {
			opts = append(opts, dt.NotReady())
		}
		s.Nodes = append(s.Nodes, dt.Node(fmt.Sprintf("worker-%02d", i), opts...))
	}
	for i, n := range s.Nodes {
		// The kubelets' last heartbeats, the newest at the capture.
		for j := range n.Status.Conditions {
			n.Status.Conditions[j].LastHeartbeatTime.Time = now.Add(-time.Duration(i) * time.Second)
		}
	}
	s.Nodes[0].Labels["kubernetes.io/os"] = "linux"
	s.Nodes[1].Labels["kubernetes.io/os"] = "linux"

	// node-exporter: everywhere, mid-rollout.
	tolerateAll := func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.Tolerations = append(ds.Spec.Template.Spec.Tolerations, corev1.Toleration{Operator: corev1.TolerationOpExists})
	}
	inNS := func(ns string) dt.DaemonSetOption { return func(ds *appsv1.DaemonSet) { ds.Namespace = ns } }
	neOld := dt.DaemonSet("node-exporter", inNS("monitoring"), tolerateAll, dt.WithMaxUnavailable("2"), dt.WithMinReadySeconds(30),
		dt.WithImage("quay.io/prometheus/node-exporter:v1.8.2"), dt.WithTemplateGeneration(1))
	ne := dt.DaemonSet("node-exporter", inNS("monitoring"), tolerateAll, dt.WithMaxUnavailable("2"), dt.WithMinReadySeconds(30),
		dt.WithImage("quay.io/prometheus/node-exporter:v1.9.1"), dt.WithTemplateGeneration(2))
	ne.Generation = 2
	oldHash := dt.Hash(neOld)
	suffix := []string{"4kq7x", "8dn2w", "b5mzr", "c9tlp", "f2hvq", "h7xkd", "k3pwn", "m6rzt", "q8vbj", "t2nfs", "w5gcl"}
	for i, n := range s.Nodes {
		var opts []dt.PodOption
		switch {
		case n.Name == "worker-01" || n.Name == "worker-02":
		case n.Name == "worker-03":
			opts = append(opts, dt.CreatedAt(now.Add(-20*time.Second)), dt.ReadySince(now.Add(-10*time.Second)))
		default:
			opts = append(opts, dt.WithHash(oldHash), startedIn(i, 0), withGeneration(1))
		}
		s.Pods = append(s.Pods, dt.Pod(ne, "node-exporter-"+suffix[i], n.Name, opts...))
	}
	unready(s.Pods[len(s.Pods)-1]) // the NotReady worker's pod
	s.Revisions = append(s.Revisions, dt.Revision(neOld, 1), dt.Revision(ne, 2))

	// fluent-bit: settled, on every linux node but the GPU node.
	fb := dt.DaemonSet("fluent-bit", inNS("kube-system"), dt.WithNodeSelector("kubernetes.io/os", "linux"),
		dt.WithToleration("node-role.kubernetes.io/control-plane", corev1.TaintEffectNoSchedule),
		dt.WithImage("cr.fluentbit.io/fluent/fluent-bit:3.2.4"), dt.WithMaxUnavailable("10%"), dt.WithTemplateGeneration(1))
	for i, n := range s.Nodes {
		if n.Name == "gpu-1" {
			continue
		}
		s.Pods = append(s.Pods, dt.Pod(fb, "fluent-bit-"+suffix[len(suffix)-1-i], n.Name, startedIn(i, 1)))
	}
	s.Revisions = append(s.Revisions, dt.Revision(fb, 1))

	// nvidia-device-plugin: new, no pod yet.
	gp := dt.DaemonSet("nvidia-device-plugin", inNS("kube-system"), dt.WithNodeSelector("accelerator", "nvidia"),
		dt.WithToleration("nvidia.com/gpu", corev1.TaintEffectNoSchedule), dt.WithImage("nvcr.io/nvidia/k8s-device-plugin:v0.17.0"),
		dt.WithTemplateGeneration(1))
	gp.CreationTimestamp.Time = now.Add(-5 * time.Second)

	for _, p := range s.Pods {
		p.APIVersion, p.Kind = "v1", "Pod"
	}
	// Stored statuses: what the last sync wrote.
	for _, ds := range []*appsv1.DaemonSet{ne, fb} {
		var pods []*corev1.Pod
		for _, p := range s.Pods {
			if p.Namespace == ds.Namespace {
				pods = append(pods, p)
			}
		}
		var revs []*appsv1.ControllerRevision
		for _, r := range s.Revisions {
			if r.Namespace == ds.Namespace {
				revs = append(revs, r)
			}
		}
		plan, err := daemon.Compute(ds, s.Nodes, pods, daemon.Options{Now: now.Add(-time.Minute), Revisions: revs})
		if err == nil {
			ds.Status = plan.Status
		}
	}
	s.DaemonSets = []*appsv1.DaemonSet{fb, gp, ne}
	return s
}

// startedIn makes a pod as kubelets report them: created a day before
// Epoch (less i minutes), scheduled at once, Ready some seconds later (4
// to 20, varying with i and salt).
func startedIn(i, salt int) dt.PodOption {
	return func(p *corev1.Pod) {
		created := dt.Epoch.Add(-24*time.Hour - time.Duration(i)*time.Minute)
		ready := created.Add(time.Duration(4+(i*7+salt*5)%17) * time.Second)
		p.CreationTimestamp = metav1.Time{Time: created}
		p.Status.Conditions = []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Time{Time: created}},
			{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Time{Time: ready}},
		}
	}
}

// unready turns the pod's Ready condition False, as the node lifecycle
// controller does to the pods of a NotReady node.
func unready(p *corev1.Pod) {
	for i := range p.Status.Conditions {
		if c := &p.Status.Conditions[i]; c.Type == corev1.PodReady {
			c.Status = corev1.ConditionFalse
		}
	}
}

// withGeneration sets the pod-template-generation label.
func withGeneration(g int) dt.PodOption {
	return func(p *corev1.Pod) { p.Labels["pod-template-generation"] = fmt.Sprint(g) }
}

// fleetCluster is testdata/fleet-100.yaml: a hundred workers in three
// zones, two of them NotReady, running node-exporter v1.8.2 everywhere
// with maxUnavailable 10%: what the README's simulate example rolls out to
// a new image.
func fleetCluster() *snapshot.Snapshot {
	now := dt.Epoch
	s := &snapshot.Snapshot{}
	ds := dt.DaemonSet("node-exporter", func(ds *appsv1.DaemonSet) { ds.Namespace = "monitoring" }, dt.WithMaxUnavailable("10%"),
		dt.WithImage("quay.io/prometheus/node-exporter:v1.8.2"), dt.WithTemplateGeneration(1))
	for i := range 100 {
		var opts []dt.NodeOption
		if i == 37 || i == 81 {
			opts = append(opts, dt.NotReady())
		}
		opts = append(opts, dt.WithLabel("topology.kubernetes.io/zone", []string{"us-east-1a", "us-east-1b", "us-east-1c"}[i%3]))
		n := dt.Node(fmt.Sprintf("worker-%03d", i), opts...)
		for j := range n.Status.Conditions {
			n.Status.Conditions[j].LastHeartbeatTime.Time = now
		}
		s.Nodes = append(s.Nodes, n)
		p := dt.Pod(ds, fmt.Sprintf("node-exporter-%05x", 0x9a3c1*(i+1)%0xfffff), n.Name, startedIn(i, 2))
		if i == 37 || i == 81 {
			unready(p)
		}
		p.APIVersion, p.Kind = "v1", "Pod"
		s.Pods = append(s.Pods, p)
	}
	s.Revisions = append(s.Revisions, dt.Revision(ds, 1))
	plan, err := daemon.Compute(ds, s.Nodes, s.Pods, daemon.Options{Now: now, Revisions: s.Revisions})
	if err == nil {
		ds.Status = plan.Status
	}
	s.DaemonSets = []*appsv1.DaemonSet{ds}
	return s
}

// startingCluster is testdata/inputs/starting.yaml: six nodes just after
// two node agents were rolled out. node-exporter's pods on node-2 and
// node-5 were created 5 and 7 seconds before the capture and are still
// starting (Running, not Ready); cilium's pod on node-3 is crash-looping
// (12 restarts) and the one on node-4 restarted twice but is Ready.
func startingCluster() *snapshot.Snapshot {
	now := dt.Epoch
	s := &snapshot.Snapshot{}
	for i := 1; i <= 6; i++ {
		n := dt.Node(fmt.Sprintf("node-%d", i), dt.WithLabel("topology.kubernetes.io/zone", []string{"eu-west-1a", "eu-west-1b"}[i%2]))
		for j := range n.Status.Conditions {
			n.Status.Conditions[j].LastHeartbeatTime.Time = now
		}
		s.Nodes = append(s.Nodes, n)
	}
	inNS := func(ns string) dt.DaemonSetOption { return func(ds *appsv1.DaemonSet) { ds.Namespace = ns } }
	ne := dt.DaemonSet("node-exporter", inNS("monitoring"), dt.WithImage("quay.io/prometheus/node-exporter:v1.9.1"), dt.WithTemplateGeneration(3))
	ne.Generation = 3
	cilium := dt.DaemonSet("cilium", inNS("kube-system"), dt.WithImage("quay.io/cilium/cilium:v1.18.2"), dt.WithMaxUnavailable("2"), dt.WithTemplateGeneration(5))
	cilium.Generation = 5
	running := func(age time.Duration, restarts int32, waiting string) dt.PodOption {
		return func(p *corev1.Pod) {
			created := now.Add(-age)
			p.CreationTimestamp = metav1.Time{Time: created}
			p.Status.Conditions = []corev1.PodCondition{
				{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Time{Time: created}},
				{Type: corev1.PodReady, Status: corev1.ConditionFalse, LastTransitionTime: metav1.Time{Time: created}},
			}
			cs := corev1.ContainerStatus{Name: p.Spec.Containers[0].Name, Image: p.Spec.Containers[0].Image, RestartCount: restarts,
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.Time{Time: created.Add(2 * time.Second)}}}}
			if waiting != "" {
				cs.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: waiting, Message: "back-off 5m0s restarting failed container"}}
			}
			p.Status.ContainerStatuses = []corev1.ContainerStatus{cs}
		}
	}
	for i, n := range s.Nodes {
		var opts []dt.PodOption
		switch n.Name {
		case "node-2":
			opts = append(opts, running(5*time.Second, 0, ""))
		case "node-5":
			opts = append(opts, running(7*time.Second, 0, ""))
		default:
			opts = append(opts, startedIn(i, 3))
		}
		s.Pods = append(s.Pods, dt.Pod(ne, fmt.Sprintf("node-exporter-%c%c%c%c%c", 'a'+i, 'k', 'q'+i%5, '2'+i, 'm'), n.Name, opts...))
		opts = []dt.PodOption{startedIn(i, 4)}
		switch n.Name {
		case "node-3":
			opts = []dt.PodOption{running(50*time.Minute, 12, "CrashLoopBackOff")}
		case "node-4":
			opts = append(opts, func(p *corev1.Pod) {
				p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "cilium", Ready: true, RestartCount: 2}}
			})
		}
		s.Pods = append(s.Pods, dt.Pod(cilium, fmt.Sprintf("cilium-%c%c%c%c%c", 'x'-i, '4'+i, 'b', 'f'+i, 'z'), n.Name, opts...))
	}
	for _, p := range s.Pods {
		p.APIVersion, p.Kind = "v1", "Pod"
	}
	s.Revisions = append(s.Revisions, dt.Revision(cilium, 5), dt.Revision(ne, 3))
	for _, ds := range []*appsv1.DaemonSet{cilium, ne} {
		var pods []*corev1.Pod
		for _, p := range s.Pods {
			if p.Namespace == ds.Namespace {
				pods = append(pods, p)
			}
		}
		if plan, err := daemon.Compute(ds, s.Nodes, pods, daemon.Options{Now: now, Revisions: s.Revisions}); err == nil {
			ds.Status = plan.Status
		}
	}
	s.DaemonSets = []*appsv1.DaemonSet{cilium, ne}
	slices.SortFunc(s.Pods, func(a, b *corev1.Pod) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	return s
}

// TestEmbeddedCluster keeps internal/cli/testdata/cluster.yaml (the embedded
// cluster) and testdata/fleet-100.yaml what exampleCluster and fleetCluster
// build (-update rewrites them).
func TestEmbeddedCluster(t *testing.T) {
	for file, s := range map[string]*snapshot.Snapshot{"internal/cli/" + embeddedName: exampleCluster(), "testdata/fleet-100.yaml": fleetCluster(),
		"testdata/inputs/starting.yaml": startingCluster()} {
		data, err := s.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if *update {
			if err := os.WriteFile(file, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(data) {
			t.Errorf("%s is stale: run go test -C examples/dsplan ./internal/cli -run TestEmbeddedCluster -update", file)
		}
	}
}
