// Package controller is a DaemonSet controller built on daemon.Compute: it
// watches DaemonSets, nodes, pods and ControllerRevisions through shared
// informers, computes one plan per DaemonSet and carries it out against the
// API server, with expectations so that no sync acts twice on a stale cache.
package controller
