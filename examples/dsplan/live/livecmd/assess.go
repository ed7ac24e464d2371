package livecmd

import (
	"fmt"
	"time"
	// The image kubectl-dsplan may run in has no zoneinfo; the windows'
	// time zones come from the binary then.
	_ "time/tzdata"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// assessment is where one DaemonSet's rollout stands at one moment, as
// rollout status reports it and rollout approve acts on it: the rollout
// its annotations ask for, its plan, the judgement of that plan and what
// holds it beyond the plan (progressive.Assess). assess is the one
// place that computes it.
type assessment struct {
	rollout progressive.Rollout
	plan    daemon.Plan
	judged  progressive.Judgement
	hold    progressive.Hold
	// gates are the annotated gates (zero without annotations).
	gates progressive.Gates
}

// assess computes the assessment of ds at now from the live objects: its
// rollout annotations (an error names the DaemonSet and the key), the
// plan, the judgement and the hold. It modifies nothing.
func assess(ds *appsv1.DaemonSet, nodes []*corev1.Node, pods []*corev1.Pod, revs []*appsv1.ControllerRevision, now time.Time) (assessment, error) {
	key := ds.Namespace + "/" + ds.Name
	r, err := progressive.ForDaemonSet(ds)
	if err != nil {
		return assessment{}, fmt.Errorf("daemonset %s: rollout annotations: %w", key, err)
	}
	a := assessment{rollout: r}
	if r.Annotations != nil {
		a.gates = r.Annotations.Gates
	}
	got, err := progressive.Assess(progressive.AssessInput{
		DaemonSet: r.DaemonSet, Nodes: nodes, Pods: pods,
		Options: r.Options(daemon.Options{Now: now, Revisions: revs}),
		Gates:   &a.gates, Zones: time.LoadLocation,
	})
	if err != nil {
		return assessment{}, fmt.Errorf("daemonset %s: %w", key, err)
	}
	a.plan, a.judged, a.hold = got.Plan, got.Judgement, got.Hold
	return a, nil
}
