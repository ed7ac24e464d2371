// Command dsplan says what the Kubernetes DaemonSet controller would do on a
// cluster, from what kubectl prints: the plan of the next sync of each
// DaemonSet, why each node may or may not run its pod, and a simulated
// rollout to the end.
//
// Usage:
//
//	dsplan plan     [-f FILE]... [--daemonset NS/NAME] [--now RFC3339] [--burst N] [-o text|json|yaml]
//	dsplan explain  NODE [-f FILE]... [--daemonset NS/NAME] [--now RFC3339]
//	dsplan simulate [-f FILE]... [--daemonset NS/NAME] [--now RFC3339] [--burst N]
//	                [--image IMAGE] [--bind-delay D] [--ready-delay D] [--grace D]
//	                [--fail-rate F] [--seed N] [--max-steps N] [--svg FILE]
//
// plan and simulate also take the rollout controls of daemon.RolloutPolicy,
// all off by default (upstream's behaviour): --partition N|N%, --scope
// SELECTOR, --paused, --order-label KEY [--order-values V1,V2,...],
// --domain-label KEY with --domain-max-unavailable N|N% and
// --domain-max-surge N|N%, and --strict. A simulation under them ends at
// daemon.RolloutComplete, at the partition rather than at 100%.
//
// Input is what `kubectl get daemonsets,nodes,pods,controllerrevisions -A -o
// yaml` (or -o json) prints, multi-document YAML or single objects, in one or
// more files given with -f ("-" reads stdin); see package daemon/snapshot.
// With no -f, dsplan reads an embedded cluster of eleven nodes and three
// DaemonSets (internal/cli/testdata/cluster.yaml), one of them mid-rollout.
//
// For a live cluster, examples/dsplan/live (a nested module: it needs
// client-go) is the same command with --kubeconfig, --context and -n, as
// kubectl: it lists the objects once, read-only, and computes on them.
// The command's logic is package examples/dsplan/internal/cli, shared by
// both.
//
// --now is the controller clock; by default the newest timestamp in the
// input, which dsplan prints. --daemonset picks one DaemonSet; by default
// every DaemonSet in the input is planned, in namespace/name order.
//
// plan -o json (or yaml) prints one object per DaemonSet, sorted by
// namespace/name, in a stable schema (see planJSON in output.go):
//
//	[{"daemonSet": "NS/NAME", "hash": "...", "skip": "...",
//	  "creates": [{"node": "...", "reason": "..."}],
//	  "deletes": [{"pod": "NS/NAME", "node": "...", "reason": "..."}],
//	  "adopt": ["NS/NAME"], "release": ["NS/NAME"],
//	  "deferredCreates": 0, "deferredDeletes": 0,
//	  "history": {"create": ["NAME"], "update": [...], "delete": [...],
//	              "adopt": [...], "release": [...], "relabel": ["NS/NAME"],
//	              "collisionCount": 1},
//	  "rolling": {"desired": 3, "maxUnavailable": 1, "maxSurge": 0,
//	              "unavailable": 1, "surge": 0, "available": 0,
//	              "candidates": 2},
//	  "status": <apps/v1 DaemonSetStatus>, "statusChanged": true,
//	  "requeueAfter": "20s",
//	  "events": [{"type": "Normal", "reason": "...", "message": "..."}],
//	  "notes": ["..."],
//	  "error": "..." (only when Compute failed)}]
//
// Lists are never null; "skip", "rolling", "notes" and "error" are left
// out when empty; requeueAfter is "0s" when there is nothing to wait for.
//
// Exit codes: 0 the plans were computed (and the simulation converged);
// 1 bad input: a file that does not read or decode, a DaemonSet not found,
// a Compute error, a simulation that did not converge; 2 usage: an unknown
// subcommand or flag, a missing NODE, an invalid flag value.
package main

import (
	"os"

	"github.com/daemonplan/daemonplan/examples/dsplan/internal/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, cli.Options{}))
}
