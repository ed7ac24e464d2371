package cli

import (
	"fmt"
	"io"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/daemon/simulate"
)

// The planned waves' times: when the first node of each wave of the order
// label is started (its old pod deleted, or a new one created beside it
// under surge) and when the last one runs an updated, available pod (Ready
// for minReadySeconds), in the simulation with the p50 delays. Under a
// wave barrier the next wave starts once the bake has passed after that.

// waveTiming is when one planned wave starts and is done.
type waveTiming struct {
	// started is whether any node of the wave was started; start is when
	// the first one was (time since the simulation's start).
	started bool
	start   time.Duration
	// updated counts the wave's nodes that end with an updated, available
	// pod; finished is whether all of them do, done when the last one
	// became available (0 when it already was).
	updated  int
	finished bool
	done     time.Duration
}

// took is how long the wave takes, from its first start to its last node
// available.
func (t waveTiming) took() time.Duration {
	if !t.started || !t.finished {
		return 0
	}
	return max(t.done-t.start, 0)
}

// timeWaves times each planned wave in res, which simulated cl.
func timeWaves(planned []progressive.Wave, res simulate.Result, cl *simulate.Cluster) []waveTiming {
	if len(planned) == 0 {
		return nil
	}
	startOf := map[string]time.Duration{}
	for _, st := range res.Steps {
		for _, n := range st.UpdateNodes {
			if _, ok := startOf[n]; !ok {
				startOf[n] = st.At
			}
		}
	}
	availableAt := map[string]time.Duration{}
	if f := res.Final; f != nil && f.DaemonSet != nil && res.Hash != "" {
		minReady := time.Duration(f.DaemonSet.Spec.MinReadySeconds) * time.Second
		for _, p := range f.Pods {
			if p == nil || p.DeletionTimestamp != nil || !ownedBy(p, f.DaemonSet.UID) ||
				p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] != res.Hash {
				continue
			}
			if at, ok := readySince(p); ok {
				d := max(at.Add(minReady).Sub(cl.Now), 0)
				if old, seen := availableAt[p.Spec.NodeName]; !seen || d < old {
					availableAt[p.Spec.NodeName] = d
				}
			}
		}
	}
	out := make([]waveTiming, len(planned))
	for i, w := range planned {
		t := &out[i]
		for _, n := range w.Nodes {
			if s, ok := startOf[n]; ok && (!t.started || s < t.start) {
				t.started, t.start = true, s
			}
			if a, ok := availableAt[n]; ok {
				t.updated++
				t.done = max(t.done, a)
			}
		}
		t.finished = t.updated == len(w.Nodes)
	}
	return out
}

// readySince is when p's Ready condition turned True, if it is True.
func readySince(p *corev1.Pod) (time.Time, bool) {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.LastTransitionTime.Time, c.Status == corev1.ConditionTrue
		}
	}
	return time.Time{}, false
}

// maxPlannedWaveLines is how many planned waves the text lists; the JSON
// has them all.
const maxPlannedWaveLines = 20

// printPlannedWaves prints the planned waves with their times.
func (r *simReport) printPlannedWaves(w io.Writer) {
	if len(r.planned) == 0 {
		return
	}
	how := "no barrier: a wave starts as soon as the budget allows"
	if r.barrier != nil {
		how = fmt.Sprintf("a barrier between them: each starts once the earlier ones are updated and available and %s has passed", fmtDur(r.barrier.Bake))
	}
	by := " by " + r.groupBy
	switch {
	case r.planned[0].Name == daemon.CanaryWave && r.rollout.policy.Order.Label == "":
		by = ": the canary, then the rest"
	case r.planned[0].Name == daemon.CanaryWave:
		by = ": the canary, then" + by
	}
	fmt.Fprintf(w, "planned waves: %d%s, %s; times from the p50 run:\n", len(r.planned), by, how)
	// DONE and TAKES are times ("-" until the wave is done); UPDATED
	// counts its nodes updated where the run ended: one kind per column.
	tab := newTable("  ", "WAVE", "NODES", "START", "DONE", "TAKES", "UPDATED", "NODES IN ORDER")
	for i, wv := range r.planned {
		if i == maxPlannedWaveLines {
			tab.line(fmt.Sprintf("  ... %d more planned waves (-o json lists them all)", len(r.planned)-i))
			break
		}
		t := r.timing[i]
		start, done, took := "-", "-", "-"
		if t.started {
			start = fmtDur(t.start)
		}
		if t.finished {
			done = fmtDur(t.done)
			if t.started {
				took = fmtDur(t.took())
			}
		}
		updated := fmt.Sprintf("%d/%d", t.updated, len(wv.Nodes))
		tab.row(wv.Name, len(wv.Nodes), start, done, took, updated, nodeRange(wv.Nodes))
	}
	_ = tab.flush(w)
}
