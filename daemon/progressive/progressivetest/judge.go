package progressivetest

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/daemon/progressive/window"
)

// Zone is the node label of the corpus cluster's zones.
const Zone = "topology.kubernetes.io/zone"

// Cluster is the corpus cluster with ds annotated by annotations: two
// nodes in each of zone-a, zone-b and zone-c (named zone-a-000, …,
// labelled Zone and kubernetes.io/hostname), ds an OnDelete DaemonSet
// "agent" whose template is new, and on every node a Ready pod of the
// revision before, which the ControllerRevisions hold: a rollout under
// way. Hash is the new revision's hash.
func Cluster(annotations map[string]string) (ds *appsv1.DaemonSet, nodes []*corev1.Node, pods []*corev1.Pod, revs []*appsv1.ControllerRevision) {
	old := daemontest.DaemonSet("agent", daemontest.OnDelete())
	ds = daemontest.DaemonSet("agent", daemontest.OnDelete(), daemontest.WithImage("registry.example/agent:v2"))
	ds.Generation = 2
	ds.Annotations = annotations
	revs = []*appsv1.ControllerRevision{daemontest.Revision(old, 1)}
	for _, z := range []string{"zone-a", "zone-b", "zone-c"} {
		for i := range 2 {
			name := fmt.Sprintf("%s-%03d", z, i)
			nodes = append(nodes, daemontest.Node(name, daemontest.WithLabel(Zone, z), daemontest.WithLabel(corev1.LabelHostname, name)))
			pods = append(pods, daemontest.Pod(old, "agent-"+name, name))
		}
	}
	return ds, nodes, pods, revs
}

// Hash is the revision hash of the corpus cluster's rollout under way.
func Hash() string {
	ds, _, _, _ := Cluster(nil)
	return daemontest.Hash(ds)
}

// Judge is the library's answer for ds among nodes, pods and revs at now
// (zones resolves the windows' time zones), as a controller beside
// kube-controller-manager reads it: Refused with the error when
// progressive.ForDaemonSet refuses the annotations, or when
// progressive.Gates.Hold cannot be decided (a window's unknown time
// zone); Held with the hold's text when Hold holds for an unresolved name
// (progressive.HoldUnresolved); Accepted otherwise, with the plan's
// deletes. A refusal whose plan still deletes an old pod, or a plan that
// fails, is an error: the annotations must never be a rollout's stop
// switched off.
func Judge(ds *appsv1.DaemonSet, nodes []*corev1.Node, pods []*corev1.Pod, revs []*appsv1.ControllerRevision, now time.Time, zones window.Zones) (Outcome, string, error) {
	ro, parseErr := progressive.ForDaemonSet(ds)
	plan, err := daemon.Compute(ro.DaemonSet, nodes, pods, ro.Options(daemon.Options{Now: now, Revisions: revs}))
	if err != nil {
		return "", "", fmt.Errorf("plan: %w", err)
	}
	replaced := 0
	for _, d := range plan.Deletes {
		if d.Reason == daemon.ReasonRollingUpdate {
			replaced++
		}
	}
	if parseErr != nil {
		if replaced > 0 {
			return Refused, parseErr.Error(), fmt.Errorf("refused, yet the plan replaces %d old pods", replaced)
		}
		return Refused, parseErr.Error(), nil
	}
	if ro.Annotations == nil {
		return Accepted, "not opted in", nil
	}
	j, err := progressive.Judge(ro.DaemonSet, &plan)
	if err != nil {
		return "", "", fmt.Errorf("judge: %w", err)
	}
	hold, err := ro.Annotations.Gates.Hold(ro.DaemonSet, &plan, j, now, zones)
	switch {
	case err != nil:
		return Refused, err.Error(), nil
	case hold.Cause == progressive.HoldUnresolved:
		return Held, hold.String(), nil
	case hold.Held():
		return Accepted, fmt.Sprintf("held by %s, not by a name: %s", hold.Cause, hold.String()), nil
	}
	return Accepted, fmt.Sprintf("planned: %d old pods replaced", replaced), nil
}
