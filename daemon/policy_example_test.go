package daemon_test

import (
	"fmt"
	"os"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
)

// settle replaces, in pods, the pod of every node in done by a copy of
// current, a pod of the current template: what the plans and the kubelet
// would have done by the next look.
func settle(current *corev1.Pod, pods []*corev1.Pod, done ...string) []*corev1.Pod {
	out := make([]*corev1.Pod, 0, len(pods))
	for _, p := range pods {
		updated := false
		for _, n := range done {
			if p.Spec.NodeName == n {
				q := current.DeepCopy()
				q.Name, q.Spec.NodeName = p.Name+"-v2", n
				out, updated = append(out, q), true
			}
		}
		if !updated {
			out = append(out, p)
		}
	}
	return out
}

// A canary: Partition keeps all but two nodes on the old revision; once
// the canaries look good, lowering the partition to 0 releases the rest.
// The rollout is then complete at the partition: progressive.Judge says
// so.
func ExampleRolloutPolicy_canary() {
	ds := dt.DaemonSet("agent", dt.WithImage("registry.example/agent:v2"), dt.WithMaxUnavailable("100%"))
	nodes, pods := oldCluster(ds, 6)
	canary := daemon.RolloutPolicy{Partition: pios("4")}

	plan, _ := daemon.Compute(ds, nodes, pods, daemon.Options{Now: dt.Epoch, Rollout: canary})
	printPlan(plan)

	pods = settle(dt.Pod(ds, "v2", ""), pods, "n1", "n2")
	plan, _ = daemon.Compute(ds, nodes, pods, daemon.Options{Now: dt.Epoch, Rollout: canary})
	fmt.Println("at the partition:", plan.Rolling.Policy.Remaining, "old of", plan.Rolling.Policy.Partition, "kept; asks for", len(plan.Deletes), "deletes")

	plan, _ = daemon.Compute(ds, nodes, pods, daemon.Options{Now: dt.Epoch, Rollout: daemon.RolloutPolicy{Partition: pios("0")}})
	printPlan(plan)
	// Output:
	// delete agent-n1 on n1 (RollingUpdate)
	// delete agent-n2 on n2 (RollingUpdate)
	// at the partition: 4 old of 4 kept; asks for 0 deletes
	// delete agent-n3 on n3 (RollingUpdate)
	// delete agent-n4 on n4 (RollingUpdate)
	// delete agent-n5 on n5 (RollingUpdate)
	// delete agent-n6 on n6 (RollingUpdate)
}

// Zone by zone: Order by the zone label finishes zone b before zone a,
// and a per-domain budget of one keeps each zone to one node down at once
// even though the global maxUnavailable would allow three.
func ExampleRolloutPolicy_zoneByZone() {
	ds := dt.DaemonSet("agent", dt.WithImage("registry.example/agent:v2"), dt.WithMaxUnavailable("3"))
	nodes, pods := oldCluster(ds, 6) // n1, n3, n5 in zone a; n2, n4, n6 in zone b
	byZone := daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: "topology.kubernetes.io/zone", Values: []string{"b", "a"}}}

	plan, _ := daemon.Compute(ds, nodes, pods, daemon.Options{Now: dt.Epoch, Rollout: byZone})
	printPlan(plan)

	byZone.DomainBudget = &daemon.DomainBudget{Label: "topology.kubernetes.io/zone", MaxUnavailable: pios("1")}
	plan, _ = daemon.Compute(ds, nodes, pods, daemon.Options{Now: dt.Epoch, Rollout: byZone})
	fmt.Println("with one node per zone:")
	printPlan(plan)
	// Output:
	// delete agent-n2 on n2 (RollingUpdate)
	// delete agent-n4 on n4 (RollingUpdate)
	// delete agent-n6 on n6 (RollingUpdate)
	// with one node per zone:
	// delete agent-n1 on n1 (RollingUpdate)
	// delete agent-n2 on n2 (RollingUpdate)
}

// Paused, then resumed: while paused the plan has no rolling step, but a
// node that joins still gets its pod, of the current revision; resuming
// rolls the old pods within the budget.
func ExampleRolloutPolicy_pausedThenResumed() {
	ds := dt.DaemonSet("agent", dt.WithImage("registry.example/agent:v2"), dt.WithMaxUnavailable("1"))
	nodes, pods := oldCluster(ds, 3)
	nodes = append(nodes, dt.Node("n4"))

	plan, _ := daemon.Compute(ds, nodes, pods, daemon.Options{Now: dt.Epoch, Rollout: daemon.RolloutPolicy{Paused: true}})
	printPlan(plan)
	fmt.Println("rolling step:", plan.Rolling != nil, "- new pod at the current revision:",
		plan.Creates[0].Pod.Labels["controller-revision-hash"] == plan.Hash)

	pods = append(pods, dt.Pod(ds, "agent-n4", "n4"))
	plan, _ = daemon.Compute(ds, nodes, pods, daemon.Options{Now: dt.Epoch})
	fmt.Println("resumed:")
	_ = plan.Format(os.Stdout, daemon.FormatOptions{})
	// Output:
	// create on n4 (NodeNeedsPod)
	// rolling step: false - new pod at the current revision: true
	// resumed:
	// Plan, current revision hash 6dccf88977
	//
	// ACTION           NODE  OBJECT            REASON
	// delete           n1    agent-n1          RollingUpdate
	// create revision        agent-6dccf88977  revision 1
	//
	// rolling step: desired 4, maxUnavailable 1, maxSurge 0, unavailable 0, candidates 3
	// status: desired 4, current 4, ready 4, available 4, updated 1, misscheduled 0, unavailable 0 (write: true)
	// look again: on the next change
}

// Validate reports every problem of a policy as field errors under
// "rollout"; Compute returns them in an *Error of StagePolicy, which
// matches ErrInvalidInput.
func ExampleRolloutPolicy_Validate() {
	p := daemon.RolloutPolicy{Partition: pios("150%"), Order: daemon.UpdateOrder{Label: "zone!"}}
	fmt.Println(p.Validate())
	// Output:
	// [rollout.partition: Invalid value: "150%": must be an integer or a percentage between 0% and 100%, rollout.order.label: Invalid value: "zone!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')]
}

// CompareNodes is the update order: listed label values first, in order,
// then other values, then nodes without the label; the name breaks ties.
func ExampleRolloutPolicy_CompareNodes() {
	p := daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: "topology.kubernetes.io/zone", Values: []string{"b"}}}
	nodes := []*corev1.Node{
		dt.Node("n1"),
		dt.Node("n2", dt.WithLabel("topology.kubernetes.io/zone", "a")),
		dt.Node("n3", dt.WithLabel("topology.kubernetes.io/zone", "b")),
	}
	slices.SortFunc(nodes, p.CompareNodes)
	for _, n := range nodes {
		fmt.Print(n.Name, " ")
	}
	fmt.Println()
	// Output:
	// n3 n2 n1
}
