package progressive

import (
	"fmt"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/rollout"
)

// A restart during a bake fails the health gates (EDS's
// noRestartsDuration): a wave is done, its nodes bake, and one of its new
// pods restarts. The wave barrier alone would only start the bake again
// (the pod is unavailable until it is Ready again, and its new
// availability is the bake's new start), and a revision that crashes every
// bake-and-a-bit would then creep through the waves. Two moments show it:
//
//   - The pod is Ready again and the wave bakes (CauseWaveBaking): the
//     restart came at or after the bake began.
//   - The pod is not Ready yet, so its wave (the current one) is not done:
//     the pod was Ready in the run that ended (its Ready condition turned
//     False after that run started), every other node of the wave had an
//     updated, available pod before the restart, and the restart came
//     within Gates.Bake of the wave being done (the later of those pods
//     becoming available and the run's start).
//
// Both are read from the pods' status alone, as every gate is.

// bake is what the restart rule watches: a wave's bake under way (baking,
// its finished waves, since when), or the current wave and the other
// nodes' availability (current, doneBy).
type bake struct {
	waves []string
	since time.Time
	// current is the wave being completed again, "" for none; doneBy, by
	// node name, when each of its nodes with an updated available pod
	// became available; length its desired nodes in scope.
	current string
	doneBy  map[string]time.Time
	length  int
	window  time.Duration
}

// bakeOf returns what the restart rule watches in j under the policy's
// bake d: the bake under way, or, with d > 0, the current wave.
func bakeOf(ds *appsv1.DaemonSet, ro *daemon.Standing, j Judgement, d time.Duration) bake {
	if j.Reason.Cause == CauseWaveBaking {
		return bakingOf(ds, ro, j)
	}
	c := j.Current()
	if d <= 0 || c < 0 {
		return bake{}
	}
	b := bake{current: j.Waves[c].Wave, window: d, doneBy: map[string]time.Time{}}
	for i := range ro.Nodes {
		n := &ro.Nodes[i]
		if !n.ShouldRun || n.Held == daemon.HeldScope || n.Wave != b.current {
			continue
		}
		b.length++
		for p, pod := range n.Pods {
			if st := n.States[p]; st.Updated && st.Available && !st.Deleting {
				if at := rollout.AvailableSince(pod, ds.Spec.MinReadySeconds); at.After(b.doneBy[n.Name]) {
					b.doneBy[n.Name] = at
				}
			}
		}
	}
	return b
}

// bakingOf returns the bake under way in j.
func bakingOf(ds *appsv1.DaemonSet, ro *daemon.Standing, j Judgement) bake {
	k := slices.IndexFunc(j.Waves, func(t Tally) bool { return t.Wave == j.Reason.Wave })
	if k < 0 {
		return bake{}
	}
	b := bake{}
	for _, t := range j.Waves[:k+1] {
		b.waves = append(b.waves, t.Wave)
	}
	for i := range ro.Nodes {
		n := &ro.Nodes[i]
		if !n.ShouldRun || n.Held == daemon.HeldScope || n.Wave != j.Reason.Wave {
			continue
		}
		for p, pod := range n.Pods {
			if st := n.States[p]; st.Updated && st.Available && !st.Deleting {
				if at := rollout.AvailableSince(pod, ds.Spec.MinReadySeconds); at.After(b.since) {
					b.since = at
				}
			}
		}
	}
	return b
}

// restarted returns the signal of pod, on node n, when the restart rule
// finds a restart during a bake.
func (b bake) restarted(pod *corev1.Pod, n *daemon.NodeStanding) (PodSignal, bool) {
	switch {
	case !b.since.IsZero() && slices.Contains(b.waves, n.Wave):
		for _, list := range [2][]corev1.ContainerStatus{pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses} {
			for _, cs := range list {
				t := cs.LastTerminationState.Terminated
				if cs.RestartCount == 0 || t == nil || t.FinishedAt.Time.Before(b.since) {
					continue
				}
				return PodSignal{Pod: pod.Name, Signal: SignalRestartedDuringBake, Container: cs.Name,
					Detail: fmt.Sprintf("restarted at %s, during the bake of wave %s", t.FinishedAt.UTC().Format(time.RFC3339), n.Wave)}, true
			}
		}
	case b.current != "" && n.Wave == b.current:
		return b.crashedOut(pod, n.Name)
	}
	return PodSignal{}, false
}

// crashedOut returns the signal of pod, on node, when it restarted after
// it had been Ready and after every other node of the current wave had an
// updated, available pod, within the bake's window of the wave being done.
func (b bake) crashedOut(pod *corev1.Pod, node string) (PodSignal, bool) {
	if _, ok := b.doneBy[node]; ok || len(b.doneBy) != b.length-1 {
		// The node is done, or another node of the wave is not.
		return PodSignal{}, false
	}
	var others time.Time
	for _, at := range b.doneBy {
		if at.After(others) {
			others = at
		}
	}
	ready := readyCondition(pod)
	for _, cs := range slices.Concat(pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses) {
		t := cs.LastTerminationState.Terminated
		if cs.RestartCount == 0 || t == nil || t.StartedAt.IsZero() || t.FinishedAt.Time.Before(others) {
			continue
		}
		// Ready in the run that ended: the Ready condition turned False
		// after the run started.
		if ready == nil || ready.Status != corev1.ConditionFalse || ready.LastTransitionTime.Time.Before(t.StartedAt.Time) {
			continue
		}
		done := others
		if t.StartedAt.Time.After(done) {
			done = t.StartedAt.Time
		}
		if t.FinishedAt.Time.Sub(done) >= b.window {
			continue
		}
		return PodSignal{Pod: pod.Name, Signal: SignalRestartedDuringBake, Container: cs.Name,
			Detail: fmt.Sprintf("restarted at %s after being Ready, within the bake of wave %s", t.FinishedAt.UTC().Format(time.RFC3339), b.current)}, true
	}
	return PodSignal{}, false
}
