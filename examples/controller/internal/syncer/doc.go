// Package syncer runs the syncs of DaemonSets for both of the controller's
// modes (the replace controller, package controller, and the companion,
// package companion): it decides which DaemonSets a cluster change affects
// and when a sync of one may plan and act. It holds the shared informers,
// trimmed to what a plan reads (PlanningView), their event handlers, the
// rate-limited work queue and its workers, the expectations and the write
// fence that keep a sync from planning on a cache that misses its own
// writes, the pool of planners, the pod deletes both modes issue, the
// warnings recorded once per spec, what both modes say and look up for the
// rollout gates (HoldMessage, NewZoneCache, with the zone database
// embedded), and the metrics of syncs and actions.
// What a sync does with a DaemonSet is the mode's: Syncer.Sync.
package syncer
