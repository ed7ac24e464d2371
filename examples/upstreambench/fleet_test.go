package upstreambench

import (
	"fmt"
	"math/rand/v2"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/securitycontext"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
)

// now is the controller clock of every plan and of upstream's controller.
var now = dt.Epoch.Add(time.Minute)

// cluster is what one sync reads: a DaemonSet, the nodes, the pods and the
// ControllerRevisions of its namespace.
type cluster struct {
	ds        *appsv1.DaemonSet
	nodes     []*corev1.Node
	pods      []*corev1.Pod
	revisions []*appsv1.ControllerRevision
}

// options are the plan's options for c.
func (c cluster) options() daemon.Options {
	return daemon.Options{Now: now, Revisions: c.revisions}
}

// exclusionAffinity is the required node affinity of upstream's
// BenchmarkUpdateDaemonSetStatus "exclusion" shape: one term of six NotIn
// expressions, the kind a cluster-wide agent carries to keep off a few
// special node classes.
func exclusionAffinity() *corev1.Affinity {
	notIn := func(key string, values ...string) corev1.NodeSelectorRequirement {
		return corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpNotIn, Values: values}
	}
	return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{
				notIn("example.com/papaya", "true"),
				notIn("example.com/kumquat", "true"),
				notIn("quince", "dragonfruit"),
				notIn("lychee", "rambutan"),
				notIn("example.com/durian", "mangosteen", "tamarind", "persimmon"),
				notIn("example.com/guava", "starfruit"),
			},
		}}},
	}}
}

// statusShape is the cluster of upstream's BenchmarkUpdateDaemonSetStatus
// at n nodes: its DaemonSet "bench" (OnDelete, one container, the labels of
// upstream's test fixtures, the exclusion affinity when exclusion is set)
// with the status that benchmark stores beforehand (n desired, n
// unavailable), and n Ready nodes labelled with a hostname, one of three
// zones and a region. No pods, no revisions. The UID is fixed here (upstream
// draws one).
func statusShape(n int, exclusion bool) cluster {
	labels := map[string]string{"name": "simple-daemon", "type": "production"}
	limit := int32(2)
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "bench", Namespace: metav1.NamespaceDefault, UID: "uid-bench"},
		Spec: appsv1.DaemonSetSpec{
			RevisionHistoryLimit: &limit,
			UpdateStrategy:       appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType},
			Selector:             &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{
						Image:                  "foo/bar",
						TerminationMessagePath: corev1.TerminationMessagePathDefault,
						ImagePullPolicy:        corev1.PullIfNotPresent,
						SecurityContext:        securitycontext.ValidSecurityContextWithContainerDefaults(),
					}},
					DNSPolicy: corev1.DNSDefault,
				},
			},
		},
		Status: appsv1.DaemonSetStatus{DesiredNumberScheduled: int32(n), NumberUnavailable: int32(n)},
	}
	if exclusion {
		ds.Spec.Template.Spec.Affinity = exclusionAffinity()
	}
	nodes := make([]*corev1.Node, n)
	for i := range nodes {
		name := fmt.Sprintf("node-%d", i)
		nodes[i] = &corev1.Node{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
				"kubernetes.io/hostname":        name,
				"topology.kubernetes.io/zone":   fmt.Sprintf("zone-%d", i%3),
				"topology.kubernetes.io/region": "region-1",
			}},
			Status: corev1.NodeStatus{
				Conditions:  []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
				Allocatable: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("100")},
			},
		}
	}
	return cluster{ds: ds, nodes: nodes}
}

// syncState is the state of a BenchmarkSync fleet.
type syncState string

const (
	steady    syncState = "steady"           // one current, ready pod per node
	rollout   syncState = "rollout"          // a new template, one old available pod per node, maxUnavailable 10%
	exclusion syncState = "steady-exclusion" // steady, the template's affinity upstream's exclusion term
	plain     syncState = "steady-plain"     // steady, no placement terms, nodes without labels or taints
)

// syncFleet is the fleet of daemonplan's own BenchmarkCompute
// (daemon/bench_test.go) at n nodes in state: the DaemonSet of
// daemontest.PlacementOptions (a nodeSelector, a two-term required node
// affinity, three tolerations), daemontest.PlacementNode nodes (ten labels,
// two taints), one pod per node and the ControllerRevisions the controller
// would have recorded, nodes and pods shuffled the same way every run. In
// state plain the DaemonSet has daemontest.DaemonSet's defaults only and
// the nodes are daemontest.Node's (no labels, no taints). The stored status
// is the one a sync computes (see withComputedStatus).
func syncFleet(n int, state syncState) (cluster, error) {
	opts := dt.PlacementOptions()
	node := dt.PlacementNode
	switch state {
	case plain:
		opts = nil
		node = func(name string, _ int) *corev1.Node { return dt.Node(name) }
	case rollout:
		opts = append(opts, dt.WithMaxUnavailable("10%"))
	case exclusion:
		opts = append(opts, func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Affinity = exclusionAffinity() })
	}
	oldDS := dt.DaemonSet("agent", opts...)
	c := cluster{ds: oldDS, revisions: []*appsv1.ControllerRevision{dt.Revision(oldDS, 1)}}
	if state == rollout {
		c.ds = dt.DaemonSet("agent", append(opts, dt.WithImage("registry.example/agent:v2"))...)
		c.revisions = append(c.revisions, dt.Revision(c.ds, 2))
	}
	for i, r := range c.revisions {
		r.ResourceVersion = fmt.Sprint(10 + i) // as stored objects have (below)
	}
	c.nodes = make([]*corev1.Node, n)
	c.pods = make([]*corev1.Pod, n)
	proto := dt.Pod(oldDS, "proto", "proto") // hashing once, not per pod
	for i := range n {
		name := fmt.Sprintf("node-%05d", i)
		c.nodes[i] = node(name, i)
		// Stored objects have a resourceVersion (the fake clientset keeps
		// what it is given): a Planner recognises the objects it has seen
		// by it.
		c.nodes[i].ResourceVersion = fmt.Sprint(1000 + i)
		p := proto.DeepCopy()
		p.Name, p.UID, p.Spec.NodeName = fmt.Sprintf("agent-%05d", i), types.UID(fmt.Sprintf("pod-%05d", i)), name
		p.ResourceVersion = fmt.Sprint(100000 + i)
		c.pods[i] = p
	}
	r := rand.New(rand.NewPCG(uint64(n), 1))
	r.Shuffle(len(c.nodes), func(i, j int) { c.nodes[i], c.nodes[j] = c.nodes[j], c.nodes[i] })
	r.Shuffle(len(c.pods), func(i, j int) { c.pods[i], c.pods[j] = c.pods[j], c.pods[i] })
	return withComputedStatus(c)
}

// withComputedStatus stores in c's DaemonSet (a copy) the status a sync of
// c computes, so that a steady sync has no status to write.
func withComputedStatus(c cluster) (cluster, error) {
	plan, err := daemon.Compute(c.ds, c.nodes, c.pods, c.options())
	if err != nil {
		return c, err
	}
	c.ds = c.ds.DeepCopy()
	c.ds.Status = plan.Status
	return c, nil
}
