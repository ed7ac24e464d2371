// Command controller is a reference DaemonSet controller built on
// daemon.Compute: it watches DaemonSets, nodes, pods and ControllerRevisions,
// computes a plan per DaemonSet and carries it out against the API server.
package main
