package progressive_test

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// An OnDelete DaemonSet opted in to zone-by-zone rollouts: ForDaemonSet
// gives the DaemonSet to plan with (RollingUpdate, the annotated budget)
// and the policy; Compute replaces one node at a time, zone us-east-1a
// first; Judge reads the plan.
func ExampleForDaemonSet() {
	ds := dt.DaemonSet("agent", dt.WithImage("registry.example/agent:v2"))
	ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
	ds.Annotations = map[string]string{
		progressive.AnnotationMaxUnavailable:   "1",
		progressive.AnnotationOrderBy:          "topology.kubernetes.io/zone",
		progressive.AnnotationOrderValues:      "us-east-1a",
		progressive.AnnotationProgressDeadline: "15m",
	}
	r, err := progressive.ForDaemonSet(ds)
	if err != nil {
		fmt.Println(err)
		return
	}
	st := r.DaemonSet.Spec.UpdateStrategy
	fmt.Printf("plan as %s, maxUnavailable %s, maxSurge %s, deadline %s\n",
		st.Type, st.RollingUpdate.MaxUnavailable, st.RollingUpdate.MaxSurge, r.Annotations.ProgressDeadline)

	nodes, pods := oldCluster(ds, 4)
	nodes[0].Labels[zone] = "us-east-1b"
	nodes[1].Labels[zone] = "us-east-1b"
	nodes[2].Labels[zone] = "us-east-1a"
	nodes[3].Labels[zone] = "us-east-1a"
	plan, err := daemon.Compute(r.DaemonSet, nodes, pods, r.Options(daemon.Options{Now: dt.Epoch}))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range plan.Deletes {
		fmt.Printf("delete %s on %s (%s)\n", d.Pod.Name, d.NodeName, d.Reason)
	}
	j, _ := progressive.Judge(r.DaemonSet, &plan)
	fmt.Println(j.Reason)
	for _, w := range j.Waves {
		fmt.Printf("%s: %d/%d updated\n", w.Wave, w.Updated, w.Desired)
	}

	typo := dt.DaemonSet("typo")
	typo.Annotations = map[string]string{progressive.AnnotationPartition: "x"}
	r, err = progressive.ForDaemonSet(typo)
	fmt.Println(r.Policy.Paused, err)
	// Output:
	// plan as RollingUpdate, maxUnavailable 1, maxSurge 0, deadline 15m0s
	// delete agent-n3 on n3 (RollingUpdate)
	// replacing 1 pod on n3
	// topology.kubernetes.io/zone=us-east-1a: 0/2 updated
	// topology.kubernetes.io/zone=us-east-1b: 0/2 updated
	// true metadata.annotations[rollout.daemonplan.io/partition]: Invalid value: "x": must be an integer from 0 to 100000 or a percentage from 0% to 100%, without sign or leading zeros
}
