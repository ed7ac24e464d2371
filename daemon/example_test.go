package daemon_test

import (
	"fmt"
	"os"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
)

// printPlan prints a plan's pod actions as sorted lines.
func printPlan(p daemon.Plan) {
	for _, c := range p.Creates {
		fmt.Printf("create on %s (%s)\n", c.NodeName, c.Reason)
	}
	for _, d := range p.Deletes {
		fmt.Printf("delete %s on %s (%s)\n", d.Pod.Name, d.NodeName, d.Reason)
	}
}

// A new DaemonSet: every node it may run on gets a pod, and the first
// ControllerRevision is recorded. The control-plane node's taint is not
// tolerated.
func Example_freshRollout() {
	ds := dt.DaemonSet("fluentd")
	nodes := []*corev1.Node{
		dt.Node("worker-b"),
		dt.Node("worker-a"),
		dt.Node("control-plane", dt.WithTaint("node-role.kubernetes.io/control-plane", "", corev1.TaintEffectNoSchedule)),
	}
	plan, err := daemon.Compute(ds, nodes, nil, daemon.Options{Now: dt.Epoch})
	if err != nil {
		fmt.Println(err)
		return
	}
	printPlan(plan)
	fmt.Println("new revision:", plan.History.Create.Name == "fluentd-"+plan.Hash, "number", plan.History.Create.Revision)
	fmt.Println("pod generateName:", plan.Creates[0].Pod.GenerateName)
	fmt.Println("desired:", plan.Status.DesiredNumberScheduled, "scheduled:", plan.Status.CurrentNumberScheduled)
	// Output:
	// create on worker-a (NodeNeedsPod)
	// create on worker-b (NodeNeedsPod)
	// new revision: true number 1
	// pod generateName: fluentd-
	// desired: 2 scheduled: 0
}

// A pod that failed is deleted at once; the next sync, once the deletion is
// seen, creates its replacement. When that one fails too, its deletion waits
// for the failed-pod backoff, which the caller carries from plan to plan.
func Example_failedPodReplacement() {
	ds := dt.DaemonSet("fluentd")
	nodes := []*corev1.Node{dt.Node("worker-a")}
	failed := dt.Pod(ds, "fluentd-x7k2p", "worker-a", dt.WithPhase(corev1.PodFailed))

	plan, _ := daemon.Compute(ds, nodes, []*corev1.Pod{failed}, daemon.Options{Now: dt.Epoch})
	printPlan(plan)
	fmt.Println("event:", plan.Events[0].Reason)

	// The executor deleted the pod. Next sync, 200ms later.
	plan, _ = daemon.Compute(ds, nodes, nil, daemon.Options{
		Now:              dt.Epoch.Add(200 * time.Millisecond),
		FailedPodBackoff: plan.FailedPodBackoff,
	})
	printPlan(plan)

	// The replacement fails too, right away: its deletion waits until a
	// second has passed since the last one.
	again := []*corev1.Pod{dt.Pod(ds, "fluentd-9qd4w", "worker-a", dt.WithPhase(corev1.PodFailed))}
	plan, _ = daemon.Compute(ds, nodes, again, daemon.Options{
		Now:              dt.Epoch.Add(600 * time.Millisecond),
		FailedPodBackoff: plan.FailedPodBackoff,
	})
	printPlan(plan)
	fmt.Println("look again in:", plan.RequeueAfter)

	// Then it goes, and the backoff doubles.
	plan, _ = daemon.Compute(ds, nodes, again, daemon.Options{
		Now:              dt.Epoch.Add(time.Second),
		FailedPodBackoff: plan.FailedPodBackoff,
	})
	printPlan(plan)
	fmt.Println("next backoff:", plan.FailedPodBackoff.Entries()[0].Delay)
	// Output:
	// delete fluentd-x7k2p on worker-a (PodFailed)
	// event: FailedDaemonPod
	// create on worker-a (NodeNeedsPod)
	// look again in: 400ms
	// delete fluentd-9qd4w on worker-a (PodFailed)
	// next backoff: 2s
}

// A rolling update without surge replaces old pods within maxUnavailable:
// the plan deletes them, and the next sync creates their successors.
func Example_rollingUpdate() {
	ds := dt.DaemonSet("fluentd", dt.WithImage("registry.example/fluentd:v2"), dt.WithMaxUnavailable("50%"))
	var nodes []*corev1.Node
	var pods []*corev1.Pod
	for _, n := range []string{"n1", "n2", "n3", "n4"} {
		nodes = append(nodes, dt.Node(n))
		pods = append(pods, dt.Pod(ds, "fluentd-"+n, n, dt.WithHash("v1")))
	}
	plan, _ := daemon.Compute(ds, nodes, pods, daemon.Options{Now: dt.Epoch})
	printPlan(plan)
	r := plan.Rolling
	fmt.Printf("maxUnavailable %d of %d desired, %d candidates\n", r.MaxUnavailable, r.Desired, r.Candidates)
	// Output:
	// delete fluentd-n1 on n1 (RollingUpdate)
	// delete fluentd-n2 on n2 (RollingUpdate)
	// maxUnavailable 2 of 4 desired, 4 candidates
}

func ExampleNodeShouldRunDaemonPod() {
	ds := dt.DaemonSet("fluentd", dt.WithNodeSelector("pool", "general"))
	for _, n := range []*corev1.Node{
		dt.Node("a", dt.WithLabel("pool", "general")),
		dt.Node("b", dt.WithLabel("pool", "gpu")),
		dt.Node("c", dt.WithLabel("pool", "general"), dt.NotReady()),
	} {
		run, keep := daemon.NodeShouldRunDaemonPod(n, ds)
		fmt.Printf("%s: shouldRun=%v shouldContinueRunning=%v\n", n.Name, run, keep)
	}
	// Output:
	// a: shouldRun=true shouldContinueRunning=true
	// b: shouldRun=false shouldContinueRunning=false
	// c: shouldRun=false shouldContinueRunning=true
}

func ExampleNewPod() {
	ds := dt.DaemonSet("fluentd")
	pod := daemon.NewPod(ds, "worker-a")
	fmt.Println(pod.Namespace, pod.Spec.NodeName, len(pod.Spec.Tolerations))
	// Output:
	// default worker-a 6
}

func ExampleCreatePodTemplate() {
	ds := dt.DaemonSet("fluentd")
	generation := int64(4)
	t := daemon.CreatePodTemplate(ds.Spec.Template, &generation, "5d8f7c9b6")
	fmt.Println(t.Labels)
	// Output:
	// map[app:fluentd controller-revision-hash:5d8f7c9b6 pod-template-generation:4]
}

func ExamplePlan_IsZero() {
	ds := dt.DaemonSet("fluentd")
	ds.Status.ObservedGeneration = ds.Generation
	ds.Status.DesiredNumberScheduled, ds.Status.CurrentNumberScheduled = 1, 1
	ds.Status.NumberReady, ds.Status.UpdatedNumberScheduled, ds.Status.NumberAvailable = 1, 1, 1
	nodes := []*corev1.Node{dt.Node("n1")}
	pods := []*corev1.Pod{dt.Pod(ds, "fluentd-n1", "n1")}
	revs := []*appsv1.ControllerRevision{dt.Revision(ds, 1)}
	plan, _ := daemon.Compute(ds, nodes, pods, daemon.Options{Now: dt.Epoch, Revisions: revs})
	fmt.Println("converged:", plan.IsZero())
	// Output:
	// converged: true
}

// Format prints a plan for people: the placement of each node, the actions
// with their reasons, the rolling budget, the status and the requeue.
func ExamplePlan_Format() {
	ds := dt.DaemonSet("agent")
	nodes := []*corev1.Node{dt.Node("b"), dt.Node("a", dt.WithTaint("dedicated", "db", corev1.TaintEffectNoSchedule))}
	plan, err := daemon.Compute(ds, nodes, nil, daemon.Options{Now: dt.Epoch})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := plan.Format(os.Stdout, daemon.FormatOptions{DaemonSet: ds, Nodes: nodes}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// DaemonSet default/agent, current revision hash 85cbb55596
	//
	// NODE  SHOULD RUN  MAY KEEP POD  WHY NOT
	// a     false       true          UntoleratedTaint dedicated=db:NoSchedule
	// b     true        true
	//
	// ACTION           NODE  OBJECT             REASON
	// create           b     agent-<generated>  NodeNeedsPod
	// create revision        agent-85cbb55596   revision 1
	//
	// status: desired 1, current 0, ready 0, available 0, updated 0, misscheduled 0, unavailable 1 (write: true)
	// look again: on the next change
}
