// Command dsplan says what the Kubernetes DaemonSet controller would do on a
// cluster, from what kubectl prints: the plan of the next sync of each
// DaemonSet, why each node may or may not run its pod, and a simulated
// rollout to the end, with its expected duration and its update batches;
// and what
// would happen if a manifest were applied.
//
// Usage:
//
//	dsplan plan     [-f FILE]... [--daemonset NS/NAME] [--now RFC3339] [--burst N]
//	                [-o text|json|yaml] [--node NODE]... [-l SELECTOR]
//	dsplan explain  NODE [-f FILE]... [--daemonset NS/NAME] [--now RFC3339] [-o text|json]
//	dsplan simulate [-f FILE]... [--daemonset NS/NAME] [--now RFC3339] [--burst N]
//	                [--image IMAGE] [--bind-delay D] [--ready-delay D] [--grace D]
//	                [--fail-rate F] [--seed N] [--max-steps N] [--svg FILE] [-o text|json]
//	dsplan version
//	dsplan completion bash|zsh|fish
//
// plan and simulate also take the rollout controls of daemon.RolloutPolicy,
// all off by default (upstream's behaviour): --partition N|N%, --scope
// SELECTOR, --paused, --order-label KEY [--order-values V1,V2,...],
// --domain-label KEY with --domain-max-unavailable N|N% and
// --domain-max-surge N|N%, --strict, and --wave-bake D (a wave barrier
// between the values of the order label). A simulation under them ends
// when progressive.Judge says the rollout is complete, at the partition
// rather than at 100%, and a stall says why in the policy's terms
// (progressive.Reason). explain says where the node stands in each
// rollout (the plan's read-out) and the judgement.
//
// A DaemonSet's rollout annotations (rollout.daemonplan.io/...,
// progressive.ForDaemonSet) give its policy first, so that the plan
// and the preview are what the example controller will do: an OnDelete
// DaemonSet with them is planned as companion mode rolls it out
// (RollingUpdate with the annotated max-unavailable, maxSurge 0), and the
// flags given override the fields they name. The output says which
// annotations were read; invalid ones are an error naming each key (exit
// 1). simulate prints the planned waves of the order label with when each
// starts and is done and how long it takes.
//
// Input is what `kubectl get daemonsets,nodes,pods,controllerrevisions -A -o
// yaml` (or -o json) prints, multi-document YAML or single objects, in one or
// more files given with -f ("-" reads stdin); see package daemon/snapshot.
// With no -f, dsplan reads an embedded cluster of eleven nodes and three
// DaemonSets (internal/cli/testdata/cluster.yaml), one of them mid-rollout.
//
// What if I apply this? A DaemonSet without metadata.uid in the input is a
// manifest (from git, a chart), not a capture: dsplan validates it as the
// API server would (validation.Validate; a manifest it would reject is that
// error, exit 1), defaults it and writes it over the captured DaemonSet of
// the same namespace and name, taking the cluster object's identity and
// status and bumping its generation and template generation when the
// template changes (package daemon/apply); with no such DaemonSet it is
// created, with a uid derived from its namespace and name. The header
// says what was applied over what:
//
//	dsplan simulate -f capture.yaml -f nvidia-device-plugin.yml
//
// simulate learns its delays from the DaemonSet's pods (creation to Ready,
// median and 90th percentile; --ready-delay and --bind-delay override
// them), runs the rollout with each and prints "expected duration: p50 …
// – p90 …", the update batches (the syncs that start updating nodes,
// grouped by the order, domain or zone label) and where the rollout blocks. Pods the input
// shows starting become Ready after the delay, counted from their own
// creation; pods it shows failing (CrashLoopBackOff, restarts, image pulls,
// Failed) stay down (simulate.FailingReason). --image changes the first
// container's image as the API server applies a change.
//
// For a live cluster, examples/dsplan/live (a nested module: it needs
// client-go) is the same command with --kubeconfig, --context and -n, as
// kubectl, and dump; installed as kubectl-dsplan it is a kubectl plugin
// (kubectl dsplan plan). The command's logic is package
// examples/dsplan/internal/cli, shared by both.
//
// --now is the controller clock; by default the newest timestamp in the
// input, which dsplan prints. --daemonset picks one DaemonSet; by default
// every DaemonSet in the input is planned, in namespace/name order.
//
// plan -o json (or yaml), explain -o json and simulate -o json print
// documents of kind Plan, Explanation and Simulation, in the JSON Schemas
// of examples/dsplan/schema, documented in examples/dsplan/JSON.md (both
// generated from the output types, kept in step by a test).
//
// Exit codes: 0 the plans were computed (and every simulation converged);
// 1 bad input: a file that does not read or decode, a manifest the API
// server would reject, a DaemonSet or node not found, a Compute error, a
// simulation that did not converge; 2 usage: an unknown command or flag, a
// missing NODE, an invalid flag value.
package main

import (
	"os"

	"github.com/daemonplan/daemonplan/examples/dsplan/internal/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, cli.Options{}))
}
