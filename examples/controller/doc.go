// Command controller is a reference DaemonSet controller built on
// daemon.Compute: it watches DaemonSets, nodes, pods and ControllerRevisions,
// computes a plan per DaemonSet and carries it out against the API server.
//
// Usage:
//
//	go run . --kubeconfig ~/.kube/config [--workers 2] [--burst-replicas 250]
//	         [--leader-elect] [--metrics-addr :8080] [-v 2]
//	go run . --version
//
// It serves /healthz (liveness), /readyz (ready once its informer caches
// have synced, or as a leader-election standby) and /metrics on
// --metrics-addr, logs one structured line per sync, and stops cleanly on
// SIGTERM. The command is package internal/app (app.Main); the replace mode
// is package internal/controller, the companion mode internal/companion,
// and what both share (informers, queue, expectations, writers)
// internal/syncer; README.md describes its design, and examples/image
// builds its container image.
package main
