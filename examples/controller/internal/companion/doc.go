// Package companion is the companion controller: it runs beside
// kube-controller-manager's DaemonSet controller and rolls out only the
// DaemonSets that opt in (updateStrategy OnDelete and at least one rollout
// annotation). kube-controller-manager keeps creating missing pods,
// deleting failed and misplaced ones, writing revisions and status; under
// OnDelete it never replaces an old pod. The companion plans each such
// DaemonSet as if its strategy were RollingUpdate with the annotated budget
// and maxSurge 0, under the annotated policy, and carries out only the
// rolling step's deletes; kube-controller-manager recreates each deleted
// pod at the current revision. Beyond the plan, the rollout's gates
// (progressive.Gates.Hold: health gates on the new revision's pods,
// approval points, maintenance windows) stop its deletes: a failed health
// gate latches like the progress deadline, until a person acts; an
// approval point or a closed window holds it until approved or open. It
// never creates a pod, writes a revision or a status counter, and writes a
// DaemonSet's template only for on-failure: rollback (the previous
// revision's, back); it writes its own status conditions
// (RolloutProgressing, RolloutPaused, RolloutBlocked, and kstatus'
// Reconciling and Stalled) with a patch that touches nothing else, records
// the rollout's events and serves its per-DaemonSet metrics.
//
// Its informers, queue, expectations, write fence and pod deletes are
// package syncer's, shared with the replace controller (package
// controller).
package companion
