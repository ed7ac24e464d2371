package simulate_test

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/simulate"
)

// Run replays a rolling update with maxUnavailable 1 over three nodes,
// every plan judged by daemontest's invariants: a step deletes an old pod,
// the run waits out its grace period, a step creates the new pod, and the
// run waits for it to become ready.
func ExampleRun() {
	old := dt.DaemonSet("fluentd")
	ds := dt.DaemonSet("fluentd", dt.WithImage("registry.example/fluentd:v2"))
	ds.Generation = 2
	c := &simulate.Cluster{
		DaemonSet: ds,
		Nodes:     []*corev1.Node{dt.Node("n1"), dt.Node("n2"), dt.Node("n3")},
		Pods:      []*corev1.Pod{dt.Pod(old, "a", "n1"), dt.Pod(old, "b", "n2"), dt.Pod(old, "c", "n3")},
		Now:       dt.Epoch,
	}
	res := simulate.Run(c, simulate.Config{ReadyDelay: 5 * time.Second, GracePeriod: 10 * time.Second, Check: dt.Checker(dt.CheckOptions{})})
	for _, st := range res.Steps {
		if st.Creates+st.Deletes > 0 {
			fmt.Printf("%4v: %d create(s), %d delete(s); %d of %d updated, %d down after\n",
				st.At, st.Creates, st.Deletes, st.Updated, st.Desired, st.Down)
		}
	}
	fmt.Println(res.Outcome, "after", res.Duration(), "error:", res.Err())
	// Output:
	//   0s: 0 create(s), 1 delete(s); 0 of 3 updated, 1 down after
	//  10s: 1 create(s), 0 delete(s); 0 of 3 updated, 1 down after
	//  15s: 0 create(s), 1 delete(s); 1 of 3 updated, 1 down after
	//  25s: 1 create(s), 0 delete(s); 1 of 3 updated, 1 down after
	//  30s: 0 create(s), 1 delete(s); 2 of 3 updated, 1 down after
	//  40s: 1 create(s), 0 delete(s); 2 of 3 updated, 1 down after
	// Converged after 45s error: <nil>
}

// BudgetsOf scales a DaemonSet's budgets the way upstream does:
// percentages round up, and 0/0 falls back to one unavailable node.
func ExampleBudgetsOf() {
	for _, ds := range []*appsv1.DaemonSet{
		dt.DaemonSet("a", dt.WithMaxUnavailable("10%")),
		dt.DaemonSet("b", dt.WithMaxUnavailable("0"), dt.WithMaxSurge("25%")),
		dt.DaemonSet("c", dt.WithMaxUnavailable("0")),
	} {
		b := simulate.BudgetsOf(ds, 15)
		fmt.Printf("%s: maxUnavailable %d, maxSurge %d of %d\n", ds.Name, b.MaxUnavailable, b.MaxSurge, b.Desired)
	}
	// Output:
	// a: maxUnavailable 2, maxSurge 0 of 15
	// b: maxUnavailable 0, maxSurge 4 of 15
	// c: maxUnavailable 1, maxSurge 0 of 15
}

// Converged says why a cluster is not where a rollout ends.
func ExampleConverged() {
	ds := dt.DaemonSet("fluentd")
	c := &simulate.Cluster{
		DaemonSet: ds,
		Nodes:     []*corev1.Node{dt.Node("n1"), dt.Node("n2")},
		Pods:      []*corev1.Pod{dt.Pod(ds, "a", "n1"), dt.Pod(ds, "b", "n2", dt.NotReadyPod())},
		Now:       dt.Epoch,
	}
	fmt.Println(simulate.Converged(c, dt.Hash(ds)))
	c.Pods[1] = dt.Pod(ds, "b", "n2")
	fmt.Println(simulate.Converged(c, dt.Hash(ds)))
	// Output:
	// node "n2" runs pod b, which is not available (not ready for 1h0m0s)
	// <nil>
}
