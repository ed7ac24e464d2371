package progressive_test

import (
	"fmt"
	"time"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// A rollout scoped to zone a, judged from the plan a controller computes
// anyway: the counts are of the nodes in the scope, those outside it said
// apart, as the example controller's companion says them.
func ExampleJudge() {
	ds := dt.DaemonSet("agent", dt.WithImage("registry.example/agent:v2"), dt.WithMaxUnavailable("1"))
	ds.Annotations = map[string]string{progressive.AnnotationScope: zone + "=a"}
	nodes, _ := oldCluster(ds, 4) // n1, n3 in zone a; n2, n4 in zone b
	pods := dt.PodsByKind(ds, dt.Epoch.Add(-time.Hour), "new", "old", "old", "old")

	r, _ := progressive.ForDaemonSet(ds)
	plan, _ := daemon.Compute(r.DaemonSet, nodes, pods, r.Options(daemon.Options{Now: dt.Epoch}))
	j, _ := progressive.Judge(r.DaemonSet, &plan)
	fmt.Printf("%d/%d updated (%d outside the scope); complete: %v: %s\n", j.Total.Updated, j.Total.Desired, j.Total.Held, j.Complete, j.Reason)
	for _, n := range plan.Standing.Nodes {
		fmt.Printf("%s held=%q updated=%v\n", n.Name, n.Held, n.HasUpdated())
	}
	// Output:
	// 1/2 updated (2 outside the scope); complete: false: replacing 1 pod on n3
	// n1 held="" updated=true
	// n2 held="Scope" updated=false
	// n3 held="" updated=false
	// n4 held="Scope" updated=false
}

// The progress deadline: a rollout that has not had a node become updated
// and available for the deadline has exceeded it; a node becoming so
// moves the clock.
func ExampleJudgement_Deadline() {
	start := dt.Epoch
	j := progressive.Judgement{}
	exceeded, wait := j.Deadline(start, 10*time.Minute, start.Add(4*time.Minute))
	fmt.Println(exceeded, wait)
	j.LastAvailable = start.Add(8 * time.Minute)
	exceeded, wait = j.Deadline(start, 10*time.Minute, start.Add(12*time.Minute))
	fmt.Println(exceeded, wait)
	exceeded, _ = j.Deadline(start, 10*time.Minute, start.Add(18*time.Minute))
	fmt.Println(exceeded)
	// Output:
	// false 6m0s
	// false 6m0s
	// true
}
