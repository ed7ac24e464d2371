// Command kubectl-dsplan is dsplan as a kubectl plugin (kubectl runs it for
// "kubectl dsplan"): it says what the Kubernetes DaemonSet controller would
// do on a cluster, from what kubectl prints or from the cluster itself —
// the plan of the next sync of each DaemonSet, why each node may or may not
// run its pod, a simulated rollout to the end with its expected duration,
// and what would happen if a manifest were applied.
//
//	kubectl dsplan plan -f capture.yaml            # offline, on a capture
//	kubectl dsplan plan -n kube-system             # the current context's cluster
//	kubectl dsplan explain NODE [-f capture.yaml]
//	kubectl dsplan simulate --daemonset NS/NAME --image IMAGE [--svg FILE]
//	kubectl dsplan simulate -f agent.yaml          # this manifest over the cluster
//	kubectl dsplan rollout status NS/NAME --timeout 30m
//	kubectl dsplan dump > snapshot.yaml
//	kubectl dsplan completion bash|zsh|fish|powershell
//	kubectl dsplan version
//
// A capture is what `kubectl get daemonsets,nodes,pods,controllerrevisions
// -A -o yaml` (or -o json) prints, in -f files ("-" reads stdin). -f files
// holding one are the whole input; without one (no -f, or only DaemonSet
// manifests, which have no metadata.uid) the cluster is listed once,
// read-only, in pages of 500, with kubectl's own flags (--kubeconfig,
// --context, --as, --token, --server, -n/--namespace, ...; every namespace
// by default, -A says so), and the manifests are applied over it as the API
// server would store them. The commands are package
// examples/dsplan/internal/cli (cobra), the cluster part
// examples/dsplan/live/livecmd (client-go, cli-runtime); `kubectl dsplan
// COMMAND -h` lists the flags.
//
// Exit codes: 0 done; 1 bad input (a file that does not read or decode, a
// manifest the API server would reject, a DaemonSet or node not found, a
// Compute error, a simulation that did not converge) or a cluster that
// could not be reached or listed; 2 usage (an unknown command or flag, a
// missing argument, a bad flag value). rollout status adds 3 (blocked), 4
// (past the progress deadline), 5 (--timeout), 6 (waiting for approval)
// and 7 (rolled back).
//
// Install it from a clone (the module replaces the library with ../..,
// which go install PKG@VERSION does not allow):
//
//	go install -C examples/dsplan ./cmd/kubectl-dsplan
package main

import (
	"os"

	"github.com/daemonplan/daemonplan/examples/dsplan/live/livecmd"
)

func main() {
	os.Exit(livecmd.Main())
}
