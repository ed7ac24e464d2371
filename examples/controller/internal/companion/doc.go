// Package companion is the companion controller: it runs beside
// kube-controller-manager's DaemonSet controller and rolls out only the
// DaemonSets that opt in (updateStrategy OnDelete and at least one rollout
// annotation). kube-controller-manager keeps creating missing pods,
// deleting failed and misplaced ones, writing revisions and status; under
// OnDelete it never replaces an old pod. The companion plans each such
// DaemonSet as if its strategy were RollingUpdate with the annotated budget
// and maxSurge 0, under the annotated policy, and carries out only the
// rolling step's deletes; kube-controller-manager recreates each deleted
// pod at the current revision. It never creates a pod, writes a revision
// or a status counter; it writes its own status conditions
// (RolloutProgressing, RolloutPaused, RolloutBlocked) with a patch that
// touches nothing else, records the rollout's events and serves its
// per-DaemonSet gauges.
//
// Its informers, queue, expectations, write fence and pod deletes are
// package syncer's, shared with the replace controller (package
// controller).
package companion
