package whatif_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/whatif"
)

// conditionNotReady sets the node's Ready condition to False without the
// not-ready taints the node lifecycle controller adds a little later (with
// them, the node no longer admits the pod and leaves the desired count).
func conditionNotReady(n *corev1.Node) {
	n.Status.Conditions[0].Status = corev1.ConditionFalse
}

func TestUnavailable(t *testing.T) {
	now := dt.Epoch
	ds := dt.DaemonSet("agent", dt.WithMinReadySeconds(60))
	pending := dt.Pod(ds, "p-pending", "n-pending", dt.NotReadyPod(), dt.WithPhase(corev1.PodPending))
	notReady := dt.Pod(ds, "p-notready", "n-notready", dt.NotReadyPod())
	young := dt.Pod(ds, "p-young", "n-young", dt.ReadySince(now.Add(-10*time.Second)))
	terminating := dt.Pod(ds, "p-term", "n-term", dt.NotReadyPod(), dt.Deleting(now.Add(-time.Second)))
	onDown := dt.Pod(ds, "p-down", "n-down", dt.NotReadyPod())
	ok := dt.Pod(ds, "p-ok", "n-ok", dt.ReadySince(now.Add(-time.Hour)))
	nodes := []*corev1.Node{
		dt.Node("n-ok"), dt.Node("n-empty"), dt.Node("n-pending"), dt.Node("n-notready"),
		dt.Node("n-young"), dt.Node("n-term"), dt.Node("n-down", conditionNotReady),
	}
	pods := []*corev1.Pod{ok, pending, notReady, young, terminating, onDown}

	got, err := whatif.Unavailable(ds, nodes, pods, daemon.Options{Now: now})
	if err != nil {
		t.Fatalf("Unavailable() error = %v", err)
	}
	want := whatif.Unavailability{Nodes: []whatif.UnavailableNode{
		{NodeName: "n-down", Pod: onDown, Cause: whatif.CauseNodeNotReady},
		{NodeName: "n-empty", Cause: whatif.CauseNoPod},
		{NodeName: "n-notready", Pod: notReady, Cause: whatif.CauseNotReady},
		{NodeName: "n-pending", Pod: pending, Cause: whatif.CausePending},
		{NodeName: "n-term", Pod: terminating, Cause: whatif.CauseTerminating},
		{NodeName: "n-young", Pod: young, Cause: whatif.CauseMinReadySeconds, AvailableAt: now.Add(50 * time.Second)},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Unavailable() (-want +got):\n%s", diff)
	}
	plan, err := daemon.Compute(ds, nodes, pods, daemon.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if int32(len(got.Nodes)) != plan.Status.NumberUnavailable {
		t.Errorf("Unavailable() lists %d nodes, the status counts %d", len(got.Nodes), plan.Status.NumberUnavailable)
	}
	if got.Count(whatif.CauseNoPod) != 1 || got.Count(whatif.CauseNotReady) != 1 {
		t.Errorf("Count() = %d NoPod, %d NotReady; want 1 and 1", got.Count(whatif.CauseNoPod), got.Count(whatif.CauseNotReady))
	}

	if _, err := whatif.Unavailable(nil, nodes, pods, daemon.Options{}); err == nil {
		t.Errorf("Unavailable(nil) error = nil")
	}
}

// TestUnavailableMatchesStatus holds the attribution to Compute's status
// over generated clusters and the conformance corpus: as many nodes as
// status.numberUnavailable.
func TestUnavailableMatchesStatus(t *testing.T) {
	check := func(name string, ds *appsv1.DaemonSet, nodes []*corev1.Node, pods []*corev1.Pod, opts daemon.Options) {
		t.Helper()
		plan, perr := daemon.Compute(ds, nodes, pods, opts)
		u, err := whatif.Unavailable(ds, nodes, pods, opts)
		if err != nil && perr == nil {
			t.Errorf("%s: Unavailable() error = %v; Compute succeeded", name, err)
		}
		// Compute also fails on revision collisions and invalid budgets,
		// which Unavailable does not look at.
		if err != nil || perr != nil || plan.Skip != "" {
			return
		}
		if int32(len(u.Nodes)) != plan.Status.NumberUnavailable {
			t.Errorf("%s: Unavailable() lists %d nodes, the status counts %d", name, len(u.Nodes), plan.Status.NumberUnavailable)
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 100 {
		c := dt.GenerateCluster(r, dt.ClusterConfig{Healthy: i%4 == 0})
		in := c.Input()
		check(fmt.Sprintf("generated %d", i), in.DaemonSet, in.Nodes, in.Pods, in.Options)
	}
	for i, s := range whatIfScenarios(t) {
		if i%2 == 1 {
			continue // half the corpus covers the causes; all of it costs seconds under -race
		}
		check(s.Name, s.DaemonSet, s.Nodes, s.Pods, daemon.Options{Now: s.Now, Revisions: s.Revisions})
	}
}

func ExampleUnavailable() {
	now := dt.Epoch
	ds := dt.DaemonSet("agent", dt.WithMinReadySeconds(30))
	nodes := []*corev1.Node{dt.Node("a"), dt.Node("b"), dt.Node("c", conditionNotReady)}
	pods := []*corev1.Pod{
		dt.Pod(ds, "agent-a", "a", dt.ReadySince(now.Add(-5*time.Second))),
		dt.Pod(ds, "agent-c", "c", dt.NotReadyPod()),
	}
	u, err := whatif.Unavailable(ds, nodes, pods, daemon.Options{Now: now})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, n := range u.Nodes {
		fmt.Println(n.NodeName, n.Cause)
	}
	// Output:
	// a WithinMinReadySeconds
	// b NoPod
	// c NodeNotReady
}
