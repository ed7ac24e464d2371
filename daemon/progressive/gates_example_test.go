package progressive_test

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// A DaemonSet asks for a canary of one node per zone, an approval after
// it and after zone us-east-1a, health gates that allow one restart,
// weekday windows and an automatic rollback on failure.
func ExampleParseAnnotations() {
	a, err := progressive.ParseAnnotations(map[string]string{
		progressive.AnnotationOrderBy:      "topology.kubernetes.io/zone",
		progressive.AnnotationWaveBake:     "10m",
		progressive.AnnotationCanary:       "3",
		progressive.AnnotationPauseAfter:   "canary,us-east-1a",
		progressive.AnnotationApproved:     "6d4b8f7c9/canary",
		progressive.AnnotationMaxRestarts:  "1",
		progressive.AnnotationReadyTimeout: "5m",
		progressive.AnnotationOnFailure:    "rollback",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("canary %s across %s\n", a.Policy.Canary.Count.String(), a.Policy.Canary.Spread)
	fmt.Printf("pause after %q, approved %s\n", a.Gates.PauseAfter, a.Gates.Approved)
	fmt.Printf("health gates on %v, max restarts %d, ready timeout %s, on failure %s\n",
		a.Gates.Health.On, a.Gates.Health.MaxRestarts, a.Gates.Health.ReadyTimeout, a.OnFailure)

	_, err = progressive.ParseAnnotations(map[string]string{
		progressive.AnnotationOrderBy:    "topology.kubernetes.io/zone",
		progressive.AnnotationPauseAfter: "every_wave",
	})
	fmt.Println(err)
	// Output:
	// canary 3 across topology.kubernetes.io/zone
	// pause after ["canary" "us-east-1a"], approved 6d4b8f7c9/canary
	// health gates on true, max restarts 1, ready timeout 5m0s, on failure rollback
	// metadata.annotations[rollout.daemonplan.io/pause-after]: Invalid value: "every_wave": "every_wave" is not an approval point: did you mean every-wave?
}

// A rollout zone by zone that waits for approval after zone a: Hold says
// what holds it, for a controller (Held: delete no old pod) and for
// people (String). Once a new pod crash-loops, the health gate holds it
// before anything else.
func ExampleGates_Hold() {
	ds := dt.DaemonSet("agent", dt.WithMaxUnavailable("100%"))
	ds.Annotations = map[string]string{
		progressive.AnnotationOrderBy:    zone,
		progressive.AnnotationWaveBake:   "0s",
		progressive.AnnotationPauseAfter: "a",
	}
	r, err := progressive.ForDaemonSet(ds)
	if err != nil {
		fmt.Println(err)
		return
	}
	nodes := zonedNodes("abab")
	// Zone a (n1, n3) runs the new revision; zone b the old one.
	pods := dt.PodsByKind(ds, dt.Epoch.Add(-time.Hour), "new", "old", "new", "old")
	hold := func(pods []*corev1.Pod) {
		plan, err := daemon.Compute(r.DaemonSet, nodes, pods, r.Options(daemon.Options{Now: dt.Epoch}))
		if err != nil {
			fmt.Println(err)
			return
		}
		j, err := progressive.Judge(r.DaemonSet, &plan)
		if err != nil {
			fmt.Println(err)
			return
		}
		h, err := r.Annotations.Gates.Hold(r.DaemonSet, &plan, j, dt.Epoch, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("held %v: %s\n", h.Held(), h)
	}
	hold(pods)

	pods[2].Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, LastTransitionTime: metav1.Time{Time: dt.Epoch}}}
	pods[2].Status.ContainerStatuses = []corev1.ContainerStatus{{
		Name: "agent", RestartCount: 5,
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
	}}
	hold(pods)
	// Output:
	// held true: waiting for approval after wave topology.kubernetes.io/zone=a
	// held true: health gate failed: CrashLoopBackOff on pod agent-n3-new (node n3, container agent: 5 restarts)
}
