// Package kubetest is the test support of the controller's packages: a
// fake API server (client-go's fake clientset) whose informer caches are
// filled by hand and never started, enough to test the plumbing of one
// sync without a cluster, and builders of DaemonSets, nodes, pods and
// revisions. It is imported by tests only; what needs a real API server is
// tested in the e2e suite.
package kubetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/simulate"
)

// T0 is the fake clock's start.
var T0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Cluster is a fake API server and informer caches filled by hand (never
// started): a controller built on Client and Factory reads the caches and
// writes to the fake server, and the test moves what it wrote into the
// caches when the informers would.
type Cluster struct {
	T        testing.TB
	Client   *fake.Clientset
	Factory  informers.SharedInformerFactory
	Recorder *record.FakeRecorder
	Clock    *clocktesting.FakeClock
}

// New returns a Cluster whose server and caches hold objs.
func New(t testing.TB, objs ...runtime.Object) *Cluster {
	t.Helper()
	client := fake.NewClientset(objs...)
	var n atomic.Int64
	// The fake clientset does not implement generateName.
	client.PrependReactor("create", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
		pod := action.(k8stesting.CreateAction).GetObject().(*corev1.Pod)
		if pod.Name == "" {
			pod.Name = fmt.Sprintf("%s%05d", pod.GenerateName, n.Add(1))
			pod.UID = types.UID("uid-" + pod.Name)
		}
		return false, nil, nil
	})
	c := &Cluster{T: t, Client: client, Factory: informers.NewSharedInformerFactory(client, 0), Recorder: record.NewFakeRecorder(1000), Clock: clocktesting.NewFakeClock(T0)}
	for _, o := range objs {
		c.Cache(o)
	}
	return c
}

// Cache puts obj in its informer's cache without running the handlers.
func (c *Cluster) Cache(obj runtime.Object) {
	c.T.Helper()
	var err error
	switch o := obj.(type) {
	case *appsv1.DaemonSet:
		err = c.Factory.Apps().V1().DaemonSets().Informer().GetIndexer().Add(o)
	case *corev1.Node:
		err = c.Factory.Core().V1().Nodes().Informer().GetIndexer().Add(o)
	case *corev1.Pod:
		err = c.Factory.Core().V1().Pods().Informer().GetIndexer().Add(o)
	case *appsv1.ControllerRevision:
		err = c.Factory.Apps().V1().ControllerRevisions().Informer().GetIndexer().Add(o)
	default:
		c.T.Fatalf("cache: unexpected %T", obj)
	}
	if err != nil {
		c.T.Fatal(err)
	}
}

// ObserveAll copies the pods and revisions the fake API server holds in ns
// into the caches, passing each new pod to added (the pod handler), as an
// informer would.
func (c *Cluster) ObserveAll(ns string, added func(obj any)) {
	c.T.Helper()
	pods, err := c.Client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		c.T.Fatal(err)
	}
	indexer := c.Factory.Core().V1().Pods().Informer().GetIndexer()
	for i := range pods.Items {
		p := &pods.Items[i]
		if _, exists, _ := indexer.Get(p); !exists {
			c.Cache(p)
			added(p)
		}
	}
	revs, err := c.Client.AppsV1().ControllerRevisions(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		c.T.Fatal(err)
	}
	for i := range revs.Items {
		c.Cache(&revs.Items[i])
	}
}

// RefreshDS copies the DaemonSet the fake API server holds into the cache,
// as the informer would, and returns it.
func (c *Cluster) RefreshDS(ns, name string) *appsv1.DaemonSet {
	c.T.Helper()
	ds, err := c.Client.AppsV1().DaemonSets(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		c.T.Fatal(err)
	}
	c.Cache(ds)
	return ds
}

// PodNames returns the names of the pods the fake API server holds in ns,
// sorted.
func (c *Cluster) PodNames(ns string) []string {
	c.T.Helper()
	pods, err := c.Client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		c.T.Fatal(err)
	}
	var out []string
	for _, p := range pods.Items {
		out = append(out, p.Name)
	}
	slices.Sort(out)
	return out
}

// Writes returns the verbs and resources of the write actions the client
// saw since the last call, sorted.
func (c *Cluster) Writes() []string {
	var out []string
	for _, a := range c.Client.Actions() {
		switch a.GetVerb() {
		case "get", "list", "watch":
			continue
		}
		s := a.GetVerb() + " " + a.GetResource().Resource
		if a.GetSubresource() != "" {
			s += "/" + a.GetSubresource()
		}
		out = append(out, s)
	}
	c.Client.ClearActions()
	sort.Strings(out)
	return out
}

// Events drains the recorded events.
func (c *Cluster) Events() []string {
	var out []string
	for {
		select {
		case e := <-c.Recorder.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

// DaemonSet is an OnDelete DaemonSet ns/name (UID "uid-"+name, generation
// 1) selecting and labelling its pods app=name, changed by mutate.
func DaemonSet(ns, name string, mutate ...func(*appsv1.DaemonSet)) *appsv1.DaemonSet {
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("uid-" + name), Generation: 1},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "img"}}},
			},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType},
		},
	}
	for _, m := range mutate {
		m(ds)
	}
	return ds
}

// AnnotatedDS is DaemonSet("ns", "ds", mutate...) with the rollout
// annotations ann.
func AnnotatedDS(ann map[string]string, mutate ...func(*appsv1.DaemonSet)) *appsv1.DaemonSet {
	ds := DaemonSet("ns", "ds", mutate...)
	ds.Annotations = ann
	return ds
}

// Node is a Ready node with labels and taints.
func Node(name string, labels map[string]string, taints ...corev1.Taint) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, UID: types.UID("uid-" + name), ResourceVersion: "1"},
		Spec:       corev1.NodeSpec{Taints: taints},
		Status:     corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
	}
}

// OwnedPod is a running pod of ds bound to node.
func OwnedPod(ds *appsv1.DaemonSet, name, node string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ds.Namespace, Name: name, UID: types.UID("uid-" + name), ResourceVersion: "1",
			Labels:          map[string]string{"app": ds.Name},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(ds, appsv1.SchemeGroupVersion.WithKind("DaemonSet"))},
		},
		Spec:   corev1.PodSpec{NodeName: node},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
}

// DaemonPod is a pod of ds on node with revision hash, Ready since
// readySince unless that is zero.
func DaemonPod(ds *appsv1.DaemonSet, name, node, hash string, readySince time.Time) *corev1.Pod {
	p := OwnedPod(ds, name, node)
	p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = hash
	st := corev1.ConditionFalse
	if !readySince.IsZero() {
		st = corev1.ConditionTrue
	}
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: st, LastTransitionTime: metav1.NewTime(readySince)}}
	return p
}

// Revision returns ds's current ControllerRevision, created an hour
// before T0 (as kube-controller-manager would have written it), and its
// hash.
func Revision(t testing.TB, ds *appsv1.DaemonSet) (*appsv1.ControllerRevision, string) {
	t.Helper()
	plan, err := daemon.Compute(ds, nil, nil, daemon.Options{})
	if err != nil || plan.History.Create == nil {
		t.Fatalf("revision of %s: %v", ds.Name, err)
	}
	rev := plan.History.Create.DeepCopy()
	rev.UID, rev.ResourceVersion = "uid-rev", "1"
	rev.CreationTimestamp = metav1.NewTime(T0.Add(-time.Hour))
	return rev, plan.Hash
}

// Pad gives every object of c the fields syncer.PlanningView drops, drawn from r.
func Pad(r *rand.Rand, c *simulate.Cluster) {
	mf := []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "v1",
		FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{}}}`)}}}
	at := metav1.Time{Time: c.Now.Add(-time.Duration(r.IntN(7200)) * time.Second)}
	c.DaemonSet.ManagedFields = mf
	for _, rev := range c.Revisions {
		rev.ManagedFields = mf
	}
	for _, n := range c.Nodes {
		n.ManagedFields = mf
		n.Annotations = map[string]string{"node.alpha.kubernetes.io/ttl": "0", "kwok.x-k8s.io/node": "fake"}
		n.Spec.PodCIDR, n.Spec.ProviderID = "10.0.0.0/24", "kwok://"+n.Name
		n.Status.Capacity = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("32"), corev1.ResourcePods: resource.MustParse("110")}
		n.Status.Allocatable = n.Status.Capacity.DeepCopy()
		n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.1.0.1"}}
		n.Status.NodeInfo = corev1.NodeSystemInfo{KubeletVersion: "v1.36.3", OperatingSystem: "linux", Architecture: "amd64"}
		n.Status.Images = []corev1.ContainerImage{{Names: []string{"registry.k8s.io/pause:3.10"}, SizeBytes: 1 << 20}}
		n.Status.DaemonEndpoints.KubeletEndpoint.Port = 10250
		if r.IntN(5) == 0 {
			// Gone NotReady a moment ago: not yet tainted by the node
			// lifecycle controller (whatif.Unavailable blames the node).
			n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse}}
		}
		pressure := corev1.NodeCondition{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, LastHeartbeatTime: at}
		n.Status.Conditions = append([]corev1.NodeCondition{pressure}, n.Status.Conditions...)
		for i := range n.Status.Conditions {
			n.Status.Conditions[i].LastHeartbeatTime, n.Status.Conditions[i].Reason, n.Status.Conditions[i].Message = at, "KubeletReady", "kubelet is posting ready status"
		}
		if r.IntN(2) == 0 {
			// A second Ready condition, contrary to the first: only the
			// first counts.
			n.Status.Conditions = append(n.Status.Conditions, corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionUnknown})
		}
	}
	for _, p := range c.Pods {
		p.ManagedFields = mf
		p.Annotations = map[string]string{"kubectl.kubernetes.io/restartedAt": at.String()}
		p.Finalizers = []string{"example.com/hold"}
		p.Generation = 3
		grace := int64(30)
		p.DeletionGracePeriodSeconds = &grace
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "sidecar", Image: "example.invalid/sidecar:v1"})
		p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute})
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "logs", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/var/log"}}})
		p.Spec.ServiceAccountName, p.Spec.SchedulerName = "agent", "default-scheduler"
		if p.Spec.NodeName != "" && r.IntN(2) == 0 {
			// A bound pod's pinning affinity, which nothing reads once
			// spec.nodeName is set.
			p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"elsewhere"}}}}},
			}}}
		}
		if p.Spec.Affinity != nil {
			p.Spec.Affinity.PodAntiAffinity = &corev1.PodAntiAffinity{}
		}
		p.Status.HostIP, p.Status.PodIP, p.Status.QOSClass = "10.1.0.1", "10.0.0.7", corev1.PodQOSBestEffort
		p.Status.StartTime = &at
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "agent", Ready: true, Image: "example.invalid/agent:v1", ImageID: "sha256:0", ContainerID: "containerd://0",
			RestartCount: int32(r.IntN(6)), State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: at}}}}
		if r.IntN(3) == 0 {
			// A pod the health gates stop: crash-looping after a run that
			// ended in an OOM kill, or failing to pull its image.
			cs := &p.Status.ContainerStatuses[0]
			cs.Ready = false
			reasons := []string{"CrashLoopBackOff", "ImagePullBackOff", "CreateContainerConfigError"}
			cs.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reasons[r.IntN(len(reasons))], Message: "back-off restarting failed container"}}
			cs.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				Reason: "OOMKilled", ExitCode: 137, Message: "killed", ContainerID: "containerd://1",
				StartedAt: metav1.NewTime(at.Add(-time.Minute)), FinishedAt: at}}
		}
		p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "init", Ready: true, Image: "example.invalid/init:v1", RestartCount: int32(r.IntN(2)),
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Completed", StartedAt: at, FinishedAt: at}}}}
		scheduled := corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: at}
		p.Status.Conditions = append([]corev1.PodCondition{scheduled}, p.Status.Conditions...)
		for i := range p.Status.Conditions {
			p.Status.Conditions[i].LastProbeTime, p.Status.Conditions[i].Reason, p.Status.Conditions[i].Message = at, "Probed", "by the test"
		}
		if r.IntN(2) == 0 {
			p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionFalse, LastTransitionTime: at})
		}
	}
}

// HasEvent reports whether one of events starts with prefix ("Warning
// InvalidSpec", "Normal RolloutComplete ...").
func HasEvent(events []string, prefix string) bool {
	for _, e := range events {
		if strings.HasPrefix(e, prefix) {
			return true
		}
	}
	return false
}
