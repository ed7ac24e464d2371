package whatif_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
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

// TestUnavailableIsStanding: Unavailable lists, in order, exactly the
// nodes of the plan's standing that should run a pod and have no available
// one (the pod the status counts), and as many as the status counts, over
// generated clusters.
func TestUnavailableIsStanding(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	compared := 0
	for i := range 100 {
		in := dt.GenerateCluster(r, dt.ClusterConfig{Healthy: i%4 == 0}).Input()
		u, err := whatif.Unavailable(in.DaemonSet, in.Nodes, in.Pods, in.Options)
		opts := daemon.Options{Now: in.Options.Now, ReportStanding: true}
		plan, planErr := daemon.Compute(in.DaemonSet, in.Nodes, in.Pods, opts)
		if planErr != nil && plan.Standing == nil {
			if err == nil {
				t.Fatalf("cluster %d: Unavailable() error = nil, Compute() error = %v", i, planErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("cluster %d: Unavailable() error = %v, Compute() error = %v", i, err, planErr)
		}
		var want, got []string
		if plan.Standing != nil {
			for _, n := range plan.Standing.Nodes {
				if n.ShouldRun && (n.Oldest < 0 || !n.States[n.Oldest].Available) {
					want = append(want, n.Name)
				}
			}
			if int32(len(u.Nodes)) != plan.Status.NumberUnavailable {
				t.Errorf("cluster %d: Unavailable() lists %d nodes, the status counts %d", i, len(u.Nodes), plan.Status.NumberUnavailable)
			}
		}
		for _, n := range u.Nodes {
			got = append(got, n.NodeName)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("cluster %d: Unavailable() nodes (-standing +Unavailable):\n%s", i, diff)
		}
		compared += len(got)
	}
	if compared < 100 {
		t.Errorf("only %d unavailable nodes compared", compared)
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
