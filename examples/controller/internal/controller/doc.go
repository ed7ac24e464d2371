// Package controller is the replace controller, a DaemonSet controller
// built on daemon.Compute that takes kube-controller-manager's place: for
// each DaemonSet its syncs (driven by package syncer's informers, queue and
// expectations) compute one plan and carry all of it out against the API
// server — revision history, adoption and release, pod creates and
// deletes, status — as upstream does, one sync at a time. A DaemonSet's
// rollout annotations shape its plan (progressive.ForDaemonSet), and their
// gates hold it (progressive.Gates.Hold): while held, no old pod is
// replaced.
package controller
