package daemontest

import (
	"cmp"
	"fmt"
	"reflect"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/rollout"
)

// checkStatus judges Plan.Status and StatusChanged (InvariantStatus):
//  1. 0 <= available <= ready <= current <= desired, updated <= current,
//     misscheduled >= 0, unavailable = desired - available, and
//     observedGeneration = the DaemonSet's generation;
//  2. every counter equals a recount from the input: desired counts the
//     input nodes where a new pod should run, current those of them with a
//     pod of the DaemonSet, misscheduled the other nodes with one; ready,
//     available and updated judge the oldest pod of each current node
//     (scheduled first, then by creation time, then by name), as upstream;
//  3. StatusChanged is true exactly when a counter differs from the stored
//     status or the stored observedGeneration is behind;
//  4. collisionCount and conditions are the stored ones (collisionCount
//     the plan's History.CollisionCount when set).
func (c *checker) checkStatus() {
	st, ds := c.plan.Status, c.ds
	bad := func(format string, args ...any) { c.add(InvariantStatus, format, args...) }

	if !(0 <= st.NumberAvailable && st.NumberAvailable <= st.NumberReady && st.NumberReady <= st.CurrentNumberScheduled &&
		st.CurrentNumberScheduled <= st.DesiredNumberScheduled && st.UpdatedNumberScheduled <= st.CurrentNumberScheduled &&
		st.UpdatedNumberScheduled >= 0 && st.NumberMisscheduled >= 0) {
		bad("counters out of order: %s", statusText(st))
	}
	if st.NumberUnavailable != st.DesiredNumberScheduled-st.NumberAvailable {
		bad("numberUnavailable %d != desired %d - available %d", st.NumberUnavailable, st.DesiredNumberScheduled, st.NumberAvailable)
	}
	if st.ObservedGeneration != ds.Generation {
		bad("observedGeneration %d, generation %d", st.ObservedGeneration, ds.Generation)
	}

	want := c.recountStatus()
	if got := counters(st); got != counters(want) {
		bad("status %s, recount from the input gives %s", statusText(st), statusText(want))
	}
	changed := counters(ds.Status) != counters(want) || ds.Status.ObservedGeneration < ds.Generation
	if c.plan.StatusChanged != changed {
		bad("StatusChanged is %v; stored %s (observedGeneration %d), computed %s (generation %d)",
			c.plan.StatusChanged, statusText(ds.Status), ds.Status.ObservedGeneration, statusText(want), ds.Generation)
	}
	wantCollision := ds.Status.CollisionCount
	if c.plan.History.CollisionCount != nil {
		wantCollision = c.plan.History.CollisionCount
	}
	if !reflect.DeepEqual(st.CollisionCount, wantCollision) || !reflect.DeepEqual(st.Conditions, ds.Status.Conditions) {
		bad("collisionCount or conditions not carried over: collisionCount %v, want %v", ptrText(st.CollisionCount), ptrText(wantCollision))
	}
}

// recountStatus computes the status counters from the input.
func (c *checker) recountStatus() appsv1.DaemonSetStatus {
	var st appsv1.DaemonSetStatus
	for _, name := range c.names {
		nv := c.nodes[name]
		if nv.node == nil {
			continue
		}
		if !nv.shouldRun {
			if len(nv.pods) > 0 {
				st.NumberMisscheduled++
			}
			continue
		}
		st.DesiredNumberScheduled++
		if len(nv.pods) == 0 {
			continue
		}
		st.CurrentNumberScheduled++
		pod := nv.pods[0]
		for _, p := range nv.pods[1:] {
			if olderPod(p, pod) {
				pod = p
			}
		}
		if rollout.IsPodReady(pod) {
			st.NumberReady++
			if c.available(pod) {
				st.NumberAvailable++
			}
		}
		if c.updated(pod) {
			st.UpdatedNumberScheduled++
		}
	}
	st.NumberUnavailable = st.DesiredNumberScheduled - st.NumberAvailable
	return st
}

// olderPod reports whether a comes before b in upstream's order of daemon
// pods: scheduled pods first, then by creation time, then by name.
func olderPod(a, b *corev1.Pod) bool {
	if sa, sb := a.Spec.NodeName != "", b.Spec.NodeName != ""; sa != sb {
		return sa
	}
	return cmp.Or(a.CreationTimestamp.Time.Compare(b.CreationTimestamp.Time), cmp.Compare(a.Name, b.Name)) < 0
}

// statusCounters are the counters upstream compares before writing.
type statusCounters [7]int32

func counters(st appsv1.DaemonSetStatus) statusCounters {
	return statusCounters{st.DesiredNumberScheduled, st.CurrentNumberScheduled, st.NumberMisscheduled,
		st.NumberReady, st.UpdatedNumberScheduled, st.NumberAvailable, st.NumberUnavailable}
}

func statusText(st appsv1.DaemonSetStatus) string {
	return fmt.Sprintf("{desired %d, current %d, misscheduled %d, ready %d, updated %d, available %d, unavailable %d}",
		st.DesiredNumberScheduled, st.CurrentNumberScheduled, st.NumberMisscheduled, st.NumberReady,
		st.UpdatedNumberScheduled, st.NumberAvailable, st.NumberUnavailable)
}

func ptrText(p *int32) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprint(*p)
}
