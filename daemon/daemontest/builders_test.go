package daemontest_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/affinity"
	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/simulate"
	"github.com/daemonplan/daemonplan/rollout"
)

// TestBuilders checks the promises of the builders' docs that the other
// tests rely on.
func TestBuilders(t *testing.T) {
	ds := dt.DaemonSet("fluentd")
	tests := []struct {
		name string
		got  bool
	}{
		{"a node is Ready and schedulable", func() bool {
			run, keep := daemon.NodeShouldRunDaemonPod(dt.Node("n1"), ds)
			return run && keep
		}()},
		{"a cordoned node still runs daemon pods (tolerated)", func() bool {
			run, _ := daemon.NodeShouldRunDaemonPod(dt.Node("n1", dt.Unschedulable()), ds)
			return run
		}()},
		{"a NotReady node takes no new pod but keeps its own", func() bool {
			run, keep := daemon.NodeShouldRunDaemonPod(dt.Node("n1", dt.NotReady()), ds)
			return !run && keep
		}()},
		{"a pod is ready, available and updated", func() bool {
			p := dt.Pod(ds, "p", "n1")
			return rollout.IsPodAvailable(p, 0, dt.Epoch) && rollout.IsPodUpdated(p, dt.Hash(ds), nil)
		}()},
		{"an unscheduled pod targets its node by affinity", func() bool {
			p := dt.Pod(ds, "p", "n1", dt.Unscheduled())
			n, err := affinity.GetTargetNodeName(p)
			return err == nil && n == "n1" && p.Spec.NodeName == ""
		}()},
		{"a revision stores the current template", func() bool {
			ok, err := rollout.Match(ds, dt.Revision(ds, 1))
			return ok && err == nil
		}()},
		{"a revision of another image does not", func() bool {
			ok, err := rollout.Match(ds, dt.Revision(dt.DaemonSet("fluentd", dt.WithImage("x")), 1))
			return !ok && err == nil
		}()},
		{"ReadySince sets the availability clock", func() bool {
			p := dt.Pod(ds, "p", "n1", dt.ReadySince(dt.Epoch))
			return !rollout.IsPodAvailable(p, 10, dt.Epoch.Add(9*time.Second)) && rollout.IsPodAvailable(p, 10, dt.Epoch.Add(10*time.Second))
		}()},
	}
	for _, tt := range tests {
		if !tt.got {
			t.Errorf("%s: does not hold", tt.name)
		}
	}
}

// TestFunctionsDoNotModifyInputs calls each function that takes objects on
// a generated cluster and checks the cluster afterwards.
func TestFunctionsDoNotModifyInputs(t *testing.T) {
	for seed := range uint64(20) {
		c := dt.GenerateCluster(rand.New(rand.NewPCG(seed, 21)), dt.ClusterConfig{})
		before := c.DeepCopy()
		in := c.Input()
		plan, err := in.Compute()
		dt.CheckGivenPlan(in, plan, err)
		in.Permute(rand.New(rand.NewPCG(seed, 0)))
		if c.DaemonSet != nil {
			simulate.BudgetsOf(c.DaemonSet, len(c.Nodes))
		}
		simulate.Converged(c, plan.Hash)
		if diff := cmp.Diff(before, c, allExported); diff != "" {
			t.Fatalf("seed %d: the cluster changed (-before +after):\n%s", seed, diff)
		}
	}
}

func TestInputPermute(t *testing.T) {
	in := settled()
	in.Options.Revisions = append(in.Options.Revisions, dt.Revision(dt.DaemonSet("fluentd", dt.WithImage("v0")), 0))
	got := in.Permute(rand.New(rand.NewPCG(1, 2)))
	if len(got.Nodes) != len(in.Nodes) || len(got.Pods) != len(in.Pods) || len(got.Options.Revisions) != len(in.Options.Revisions) {
		t.Fatalf("Permute() changed the lengths")
	}
	if &got.Nodes[0] == &in.Nodes[0] {
		t.Errorf("Permute() shares the node slice")
	}
	for _, n := range got.Nodes {
		found := false
		for _, m := range in.Nodes {
			found = found || m == n
		}
		if !found {
			t.Errorf("Permute() lost node %s", n.Name)
		}
	}
	var nilIn simulate.Input
	if p := nilIn.Permute(rand.New(rand.NewPCG(1, 2))); p.Nodes != nil || p.Pods != nil || p.Options.Revisions != nil {
		t.Errorf("Permute() of nil slices = %+v, want nil slices", p)
	}
}

func TestEventString(t *testing.T) {
	tests := []struct {
		e    simulate.Event
		want string
	}{
		{simulate.Event{Kind: simulate.NodeJoin, Node: dt.Node("n9")}, "NodeJoin n9"},
		{simulate.Event{Kind: simulate.NodeLeave, NodeName: "n1"}, "NodeLeave n1"},
		{simulate.Event{Kind: simulate.NodeNotReady, NodeName: "n2"}, "NodeNotReady n2"},
		{simulate.Event{Kind: simulate.NodeReady, NodeName: "n2"}, "NodeReady n2"},
		{simulate.Event{Kind: simulate.TemplateChange, Image: "img:v3"}, "TemplateChange img:v3"},
	}
	for _, tt := range tests {
		if got := tt.e.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

// TestSimulateEvents checks each cluster event on a settled cluster.
func TestSimulateEvents(t *testing.T) {
	at := func(kind simulate.EventKind, node string) simulate.Event {
		return simulate.Event{At: time.Minute, Kind: kind, NodeName: node}
	}
	tests := []struct {
		name  string
		event simulate.Event
		check func(c *simulate.Cluster) bool
	}{
		{"NodeNotReady taints the node and unreadies its pod", at(simulate.NodeNotReady, "n1"), func(c *simulate.Cluster) bool {
			run, keep := daemon.NodeShouldRunDaemonPod(nodeNamed(c, "n1"), c.DaemonSet)
			return !run && keep && !rollout.IsPodReady(podNamed(c, "fluentd-n1"))
		}},
		{"NodeLeave removes the node and its pod", at(simulate.NodeLeave, "n1"), func(c *simulate.Cluster) bool {
			return nodeNamed(c, "n1") == nil && podNamed(c, "fluentd-n1") == nil
		}},
		{"TemplateChange raises the generation", simulate.Event{At: time.Minute, Kind: simulate.TemplateChange, Image: "x:v9"}, func(c *simulate.Cluster) bool {
			return c.DaemonSet.Generation == 2 && c.DaemonSet.Spec.Template.Spec.Containers[0].Image == "x:v9"
		}},
		{"NodeJoin adds the node", simulate.Event{At: time.Minute, Kind: simulate.NodeJoin, Node: dt.Node("n7")}, func(c *simulate.Cluster) bool {
			return nodeNamed(c, "n7") != nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// One step only: the event is applied when the clock reaches it.
			res := simulate.Run(clusterOf(settled()), simulate.Config{Events: []simulate.Event{tt.event}, MaxSteps: 2})
			if len(res.Steps) < 2 || res.Steps[1].Events == nil {
				t.Fatalf("the event was not applied: %+v", res.Steps)
			}
			if !tt.check(res.Final) {
				t.Errorf("after %v the cluster is not as expected", tt.event)
			}
		})
	}
}

func nodeNamed(c *simulate.Cluster, name string) *corev1.Node {
	for _, n := range c.Nodes {
		if n.Name == name {
			return n
		}
	}
	return nil
}

func podNamed(c *simulate.Cluster, name string) *corev1.Pod {
	for _, p := range c.Pods {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// TestNotReady: NotReady set Conditions[0], whatever its type, and
// panicked on a node without conditions; it now finds or adds the Ready
// condition, and applied twice keeps one pair of taints.
func TestNotReady(t *testing.T) {
	noConditions := func(n *corev1.Node) { n.Status.Conditions = nil }
	pressureFirst := func(n *corev1.Node) {
		n.Status.Conditions = append([]corev1.NodeCondition{{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse}}, n.Status.Conditions...)
	}
	tests := []struct {
		name           string
		opts           []dt.NodeOption
		wantConditions int
	}{
		{name: "a Ready node", opts: []dt.NodeOption{dt.NotReady()}, wantConditions: 1},
		{name: "a node without conditions", opts: []dt.NodeOption{noConditions, dt.NotReady()}, wantConditions: 1},
		{name: "Ready is not the first condition", opts: []dt.NodeOption{pressureFirst, dt.NotReady()}, wantConditions: 2},
		{name: "NotReady twice", opts: []dt.NodeOption{dt.NotReady(), dt.NotReady()}, wantConditions: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := dt.Node("n1", tt.opts...)
			if len(n.Status.Conditions) != tt.wantConditions {
				t.Errorf("%d conditions, want %d: %+v", len(n.Status.Conditions), tt.wantConditions, n.Status.Conditions)
			}
			for _, c := range n.Status.Conditions {
				if c.Type != corev1.NodeReady && c.Status != corev1.ConditionFalse {
					t.Errorf("condition %s changed to %s", c.Type, c.Status)
				}
				if c.Type == corev1.NodeReady && (c.Status != corev1.ConditionFalse || !c.LastTransitionTime.Equal(&n.CreationTimestamp)) {
					t.Errorf("Ready condition = %+v, want False since the node's creation", c)
				}
			}
			want := []corev1.Taint{
				{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule},
				{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute},
			}
			if diff := cmp.Diff(want, n.Spec.Taints); diff != "" {
				t.Errorf("taints (-want +got):\n%s", diff)
			}
			if run, keep := daemon.NodeShouldRunDaemonPod(n, dt.DaemonSet("fluentd")); run || !keep {
				t.Errorf("NodeShouldRunDaemonPod() = %v, %v; want false, true", run, keep)
			}
		})
	}
}
