package daemon_test

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
)

// An OnDelete DaemonSet opted in to zone-by-zone rollouts: the annotations
// give the budget and the policy, Strategy the strategy to plan with, and
// Compute replaces one node at a time, zone us-east-1a first.
func ExampleParseRolloutAnnotations() {
	ds := dt.DaemonSet("agent", dt.WithImage("registry.example/agent:v2"))
	ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
	ds.Annotations = map[string]string{
		daemon.AnnotationMaxUnavailable:   "1",
		daemon.AnnotationOrderBy:          "topology.kubernetes.io/zone",
		daemon.AnnotationOrderValues:      "us-east-1a",
		daemon.AnnotationProgressDeadline: "15m",
	}
	a, err := daemon.ParseRolloutAnnotations(ds.Annotations)
	if err != nil {
		fmt.Println(err)
		return
	}
	st, err := a.Strategy(ds)
	if err != nil {
		fmt.Println(err)
		return
	}
	planned := *ds
	planned.Spec.UpdateStrategy = st
	fmt.Printf("plan as %s, maxUnavailable %s, maxSurge %s, deadline %s\n",
		st.Type, st.RollingUpdate.MaxUnavailable, st.RollingUpdate.MaxSurge, a.ProgressDeadline)

	nodes, pods := oldCluster(ds, 4)
	nodes[0].Labels["topology.kubernetes.io/zone"] = "us-east-1b"
	nodes[1].Labels["topology.kubernetes.io/zone"] = "us-east-1b"
	nodes[2].Labels["topology.kubernetes.io/zone"] = "us-east-1a"
	nodes[3].Labels["topology.kubernetes.io/zone"] = "us-east-1a"
	plan, _ := daemon.Compute(&planned, nodes, pods, daemon.Options{Now: dt.Epoch, Rollout: a.Policy})
	printPlan(plan)

	_, err = daemon.ParseRolloutAnnotations(map[string]string{daemon.AnnotationPartition: "x"})
	fmt.Println(err)
	// Output:
	// plan as RollingUpdate, maxUnavailable 1, maxSurge 0, deadline 15m0s
	// delete agent-n3 on n3 (RollingUpdate)
	// metadata.annotations[rollout.daemonplan.io/partition]: Invalid value: "x": must be an integer of at least 0 or a percentage between 0% and 100%, without sign or leading zeros
}
