package rollout

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
)

// Complete reports whether the rollout of ds is complete, judged from its
// spec and status alone, and when it is not, why. It is complete when, in
// this order:
//  1. ds is not being deleted (no deletionTimestamp);
//  2. the controller has observed the current spec
//     (status.observedGeneration >= metadata.generation);
//  3. every node that should run the pod runs the current revision
//     (updatedNumberScheduled >= desiredNumberScheduled);
//  4. every such node's pod is available, minReadySeconds included
//     (numberAvailable >= desiredNumberScheduled).
//
// The reason names the first rule that fails, with the counts, and is ""
// when the rollout is complete. A nil ds is not complete. The status
// counts per node the oldest pod, so while a surge pod starts next to an
// old one the node counts as not updated: rule 3 cannot pass before the
// old pods are gone. It modifies nothing and does not allocate when the
// rollout is complete.
//
// How the common tools answer the same question (kubectl v1.36 rollout
// status; Helm's legacy readiness wait, pkg/kube/ready.go; kstatus, the
// cli-utils status library Helm 4 and Flux use):
//
//	situation                            Complete  kubectl     Helm legacy   kstatus
//	observedGeneration < generation      no        no          no (1)        no
//	updated < desired                    no        no          no            no
//	all updated, some not available      no        no          yes (2)       no
//	  (within minReadySeconds)
//	all updated, maxUnavailable 100%,    no        no          yes (2)       no
//	  no pod ready
//	OnDelete strategy, pods not replaced no        error (3)   yes (4)       no
//	OnDelete strategy, all replaced      yes       error (3)   yes           yes
//	being deleted                        no        ignored     ignored       no (5)
//	desiredNumberScheduled 0             yes       yes         yes           yes (6)
//	numberMisscheduled > 0               ignored   ignored     ignored       ignored (7)
//
// Why they differ:
//  1. Older Helm releases did not compare the generations and could
//     report a DaemonSet ready before its controller saw the new spec.
//  2. Helm asks for numberReady >= desired - maxUnavailable (the percent
//     rounded up; an unparsable value counts as desired) and does not look
//     at numberAvailable: it passes with pods inside minReadySeconds, and
//     with maxUnavailable 100% even with no pod ready (helm#8660,
//     helm#10845, helm#11101).
//  3. kubectl refuses: "rollout status is only available for RollingUpdate".
//  4. Helm treats any strategy but RollingUpdate as nothing to wait for.
//     Complete, like kstatus, applies the same rule whatever the
//     strategy: an OnDelete rollout completes when every old pod has been
//     deleted by hand and replaced.
//  5. kstatus reports Terminating; kubectl and Helm look at the counts
//     only. A DaemonSet being deleted has no rollout left to complete.
//  6. kstatus also waits while desiredNumberScheduled is absent from the
//     object; a typed DaemonSet cannot tell absent from 0, so a status the
//     controller never wrote passes rule 2 only when generation is 0 too.
//  7. A misscheduled pod is one the controller keeps on a node that no
//     longer admits new pods (an untolerated NoSchedule taint added
//     later): no tool waits for it, since the controller never removes it.
//
// kstatus additionally checks currentNumberScheduled and numberReady;
// both follow from rules 3 and 4, since an updated pod is a scheduled one
// and an available pod a ready one.
func Complete(ds *appsv1.DaemonSet) (bool, string) {
	if ds == nil {
		return false, "no DaemonSet"
	}
	st := &ds.Status
	switch {
	case ds.DeletionTimestamp != nil:
		return false, "being deleted"
	case st.ObservedGeneration < ds.Generation:
		return false, fmt.Sprintf("waiting for the controller to observe generation %d (observed %d)",
			ds.Generation, st.ObservedGeneration)
	case st.UpdatedNumberScheduled < st.DesiredNumberScheduled:
		return false, fmt.Sprintf("%d of %d nodes run the current revision",
			st.UpdatedNumberScheduled, st.DesiredNumberScheduled)
	case st.NumberAvailable < st.DesiredNumberScheduled:
		return false, fmt.Sprintf("%d of %d nodes have an available pod",
			st.NumberAvailable, st.DesiredNumberScheduled)
	}
	return true, ""
}
