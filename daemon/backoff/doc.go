// Package backoff decides how long a node whose daemon pod failed waits
// before its next failed pod is deleted: upstream's failed-pod backoff,
// keyed by DaemonSet UID, observed generation and node, doubling from
// Initial to Max. A State is the immutable value a controller carries
// from one plan to the next (daemon.Options.FailedPodBackoff in,
// daemon.Plan.FailedPodBackoff out); an Update is one plan's working copy
// of it. It reads no clock: every instant is given.
//
// This package imports nothing of this module.
package backoff
