package daemon_test

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
)

// A controller keeps one Planner per worker and plans every sync with it:
// the plans are Compute's, and a warm Planner reuses its memory.
func ExamplePlanner() {
	ds := dt.DaemonSet("agent")
	nodes := []*corev1.Node{dt.Node("n1"), dt.Node("n2")}
	opts := daemon.Options{Now: dt.Epoch, Revisions: []*appsv1.ControllerRevision{dt.Revision(ds, 1)}}

	p := daemon.NewPlanner()
	for sync := 1; sync <= 2; sync++ {
		plan, err := p.Compute(ds, nodes, nil, opts)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("sync %d: %d creates on", sync, len(plan.Creates))
		for _, c := range plan.Creates {
			fmt.Print(" ", c.NodeName)
		}
		fmt.Println()
	}
	// Output:
	// sync 1: 2 creates on n1 n2
	// sync 2: 2 creates on n1 n2
}
