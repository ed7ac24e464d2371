package cli

import (
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon/simulate"
)

// The time estimate: how long this DaemonSet's pods took, on this
// cluster, from creation to being scheduled and to Ready, read from the
// pods in the input. The simulation runs twice, once with every new pod
// taking the median (p50) and once the 90th percentile (p90); the two
// durations bracket the rollout. Availability follows Ready by
// minReadySeconds, which the simulation applies itself.

// minLearned is the number of pods below which the delays are not learned
// and the flags' defaults are used.
const minLearned = 3

// learned are the delays read from the pods.
type learned struct {
	// pods is the number of pods learned from.
	pods int
	// bind and ready are creation to PodScheduled and to Ready: p50, p90.
	bindP50, bindP90, readyP50, readyP90 time.Duration
}

// learnDelays reads the delays from the DaemonSet's pods: those it
// controls, not being deleted, Ready, never restarted, whose Ready
// condition turned True within simulate.StuckAfter of their creation
// (a later one is a readiness lost and regained: a node reboot, say, not
// a start).
func learnDelays(ds *appsv1.DaemonSet, pods []*corev1.Pod) learned {
	var binds, readies []time.Duration
	for _, p := range pods {
		if p.Namespace != ds.Namespace || !ownedBy(p, ds.UID) || p.DeletionTimestamp != nil || p.CreationTimestamp.IsZero() {
			continue
		}
		if restarted(p) {
			continue
		}
		var ready, scheduled time.Time
		for _, c := range p.Status.Conditions {
			switch {
			case c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue:
				ready = c.LastTransitionTime.Time
			case c.Type == corev1.PodScheduled && c.Status == corev1.ConditionTrue:
				scheduled = c.LastTransitionTime.Time
			}
		}
		created := p.CreationTimestamp.Time
		d := ready.Sub(created)
		if ready.IsZero() || d < 0 || d > simulate.StuckAfter {
			continue
		}
		readies = append(readies, d)
		b := scheduled.Sub(created)
		if scheduled.IsZero() || b < 0 || b > d {
			b = 0
		}
		binds = append(binds, b)
	}
	out := learned{pods: len(readies)}
	if out.pods == 0 {
		return out
	}
	slices.Sort(binds)
	slices.Sort(readies)
	out.bindP50, out.bindP90 = percentile(binds, 50), percentile(binds, 90)
	out.readyP50, out.readyP90 = percentile(readies, 50), percentile(readies, 90)
	return out
}

func restarted(p *corev1.Pod) bool {
	for _, list := range [][]corev1.ContainerStatus{p.Status.InitContainerStatuses, p.Status.ContainerStatuses} {
		for _, cs := range list {
			if cs.RestartCount > 0 {
				return true
			}
		}
	}
	return false
}

// percentile is the nearest-rank percentile of sorted, which is not
// empty: the smallest value with at least q% of the values at or below it.
func percentile(sorted []time.Duration, q int) time.Duration {
	rank := (q*len(sorted) + 99) / 100 // ceil(q/100 * n)
	return sorted[max(rank, 1)-1]
}
