// Package rollout computes the rolling-update arithmetic and the revision
// history of a DaemonSet: surge and unavailability budgets, which pods are
// up to date, pod readiness and availability at a given time, the revision
// hash, the ControllerRevision changes of one sync, and one rolling-update
// step from per-node facts, whose decisions (Create, Delete, Reason) are
// the shape a plan carries out. It performs no I/O and reads no clock: time
// is always a parameter.
package rollout
