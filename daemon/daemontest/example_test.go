package daemontest_test

import (
	"fmt"
	"math/rand/v2"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/eligibility"
	"github.com/daemonplan/daemonplan/daemon/simulate"
)

// CheckPlan runs Compute on an input and judges the plan; CheckGivenPlan
// judges a plan made elsewhere, here one that deletes a second old pod
// although maxUnavailable is 1.
func ExampleCheckPlan() {
	old := dt.DaemonSet("fluentd")
	ds := dt.DaemonSet("fluentd", dt.WithImage("registry.example/fluentd:v2"))
	ds.Generation = 2
	in := simulate.Input{
		DaemonSet: ds,
		Nodes:     []*corev1.Node{dt.Node("n1"), dt.Node("n2"), dt.Node("n3")},
		Pods:      []*corev1.Pod{dt.Pod(old, "a", "n1"), dt.Pod(old, "b", "n2"), dt.Pod(old, "c", "n3")},
		Options:   daemon.Options{Now: dt.Epoch},
	}

	rep := dt.CheckPlan(in, dt.CheckOptions{Seed: 1})
	fmt.Println("violations:", len(rep.Violations), "error:", rep.ComputeErr)
	for _, d := range rep.Plan.Deletes {
		fmt.Printf("delete %s on %s (%s)\n", d.Pod.Name, d.NodeName, d.Reason)
	}

	greedy := rep.Plan
	greedy.Deletes = append(greedy.Deletes, daemon.Delete{Pod: in.Pods[1], NodeName: "n2", Reason: daemon.ReasonRollingUpdate})
	for _, v := range dt.CheckGivenPlan(in, greedy, nil) {
		fmt.Println(v.Invariant)
	}
	// Output:
	// violations: 0 error: <nil>
	// delete a on n1 (RollingUpdate)
	// RollingStepConsistent
	// RollingStepConsistent
	// UnavailabilityBudget
}

// GenerateCluster draws clusters from an explicit seed: healthy ones to
// simulate, chaotic ones to fuzz.
func ExampleGenerateCluster() {
	r := rand.New(rand.NewPCG(42, 0))
	c := dt.GenerateCluster(r, dt.ClusterConfig{Nodes: 5, Healthy: true, Rollout: true})
	fmt.Println("healthy:", len(c.Nodes), "nodes,", len(c.Pods), "pods, desired", c.DaemonSet.Status.DesiredNumberScheduled)
	res := simulate.Run(c, simulate.Config{ReadyDelay: time.Second})
	fmt.Println("rollout:", res.Outcome)

	c = dt.GenerateCluster(r, dt.ClusterConfig{Nodes: 5})
	rep := dt.CheckPlan(c.Input(), dt.CheckOptions{})
	fmt.Println("chaotic:", len(c.Nodes), "nodes, violations:", len(rep.Violations))
	// Output:
	// healthy: 5 nodes, 5 pods, desired 5
	// rollout: Converged
	// chaotic: 5 nodes, violations: 0
}

// SteadyCluster starts a test from a settled cluster in one line; Peak
// sums up a simulated rollout: at most maxUnavailable nodes were down.
func ExampleSteadyCluster() {
	c := dt.SteadyCluster(dt.DaemonSet("agent", dt.WithMaxUnavailable("25%")), 100)
	fmt.Println(len(c.Nodes), "nodes,", len(c.Pods), "pods, first", c.Nodes[0].Name, "last", c.Nodes[99].Name)
	plan, _ := c.Input().Compute()
	fmt.Println("zero plan:", plan.IsZero())

	res := simulate.Run(c, simulate.Config{ReadyDelay: 5 * time.Second, GracePeriod: 10 * time.Second,
		Events: []simulate.Event{{Kind: simulate.TemplateChange, Image: "registry.example/agent:v2"}}})
	p := res.Peak()
	fmt.Println(res.Outcome, "in", res.Duration())
	fmt.Printf("worst: %d down (budget %d), %d surging; over budget: %v\n", p.MaxDown, p.MaxUnavailable, p.MaxSurge, p.Exceeded())
	// Output:
	// 100 nodes, 100 pods, first node-00 last node-99
	// zero plan: true
	// Converged in 1m0s
	// worst: 25 down (budget 25), 0 surging; over budget: false
}

// Gt and Lt tolerations compare integer taint values; they need the
// TaintTolerationComparisonOperators gate, which SteadyCluster turns on for
// a template that uses them.
func ExampleWithTolerationGt() {
	ds := dt.DaemonSet("agent", dt.WithTolerationGt("example.com/level", "3", corev1.TaintEffectNoSchedule))
	c := dt.SteadyCluster(ds, 2, dt.WithTaint("example.com/level", "5", corev1.TaintEffectNoSchedule))
	fmt.Println("gate:", c.EnableTaintTolerationComparisonOperators, "pods:", len(c.Pods))
	// Output:
	// gate: true pods: 2
}

// WithTolerationEqual tolerates one taint value; another value of the same
// key is not tolerated.
func ExampleWithTolerationEqual() {
	ds := dt.DaemonSet("agent", dt.WithTolerationEqual("dedicated", "infra", corev1.TaintEffectNoSchedule))
	elig := eligibility.New(ds, false)
	for _, value := range []string{"infra", "db"} {
		run, _ := elig.ShouldRun(dt.Node("n", dt.WithTaint("dedicated", value, corev1.TaintEffectNoSchedule)))
		fmt.Printf("dedicated=%s: %v\n", value, run)
	}
	// Output:
	// dedicated=infra: true
	// dedicated=db: false
}
