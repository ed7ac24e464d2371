package daemon

import (
	appsv1 "k8s.io/api/apps/v1"
)

// statusOf computes the status upstream writes in this sync, from the state
// before the plan's actions: over the existing nodes, the oldest pod of each
// node (scheduled first, then by creation time, then name) decides ready,
// available and updated.
func statusOf(ds *appsv1.DaemonSet, c *cluster) appsv1.DaemonSetStatus {
	st := *ds.Status.DeepCopy()
	st.ObservedGeneration = ds.Generation
	var desired, current, misscheduled, ready, updated, available int32
	for i := range c.nodes {
		n := &c.nodes[i]
		if !n.ShouldRun {
			if len(n.Pods) > 0 {
				misscheduled++
			}
			continue
		}
		desired++
		if len(n.Pods) == 0 {
			continue
		}
		current++
		st := n.States[oldest(n.Pods)]
		if st.Ready {
			ready++
			if st.Available {
				available++
			}
		}
		if st.Updated {
			updated++
		}
	}
	st.DesiredNumberScheduled = desired
	st.CurrentNumberScheduled = current
	st.NumberMisscheduled = misscheduled
	st.NumberReady = ready
	st.UpdatedNumberScheduled = updated
	st.NumberAvailable = available
	st.NumberUnavailable = desired - available
	return st
}

// statusChanged reports whether upstream writes st over the stored status:
// a counter differs, or the stored observedGeneration is behind.
func statusChanged(stored, st appsv1.DaemonSetStatus, generation int64) bool {
	return stored.DesiredNumberScheduled != st.DesiredNumberScheduled ||
		stored.CurrentNumberScheduled != st.CurrentNumberScheduled ||
		stored.NumberMisscheduled != st.NumberMisscheduled ||
		stored.NumberReady != st.NumberReady ||
		stored.UpdatedNumberScheduled != st.UpdatedNumberScheduled ||
		stored.NumberAvailable != st.NumberAvailable ||
		stored.NumberUnavailable != st.NumberUnavailable ||
		stored.ObservedGeneration < generation
}
