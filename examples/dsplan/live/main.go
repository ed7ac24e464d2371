// Command live is dsplan on a running cluster: the same commands and flags
// (plan, explain NODE, simulate; see examples/dsplan), plus --kubeconfig,
// --context and -n/--namespace, read as kubectl reads them. It lists the
// DaemonSets, nodes, pods and ControllerRevisions once, read-only, and
// computes on that snapshot:
//
//	cd examples/dsplan/live
//	go run . plan --context prod
//	go run . explain worker-09 --context prod -n kube-system
//	go run . simulate --context prod --daemonset kube-system/agent --image agent:v2
//
// It lives in a module of its own because it needs client-go, which the
// root module never imports; the command itself is the root module's
// examples/dsplan/internal/cli. It only lists (the list verb on daemonsets,
// controllerrevisions, pods and nodes); it never writes to the cluster.
//
// `live dump` prints the listing as one kubectl-style List instead, for
// dsplan -f - or to keep a snapshot:
//
//	go run . dump --context prod -n kube-system > snapshot.yaml
//
// Flags of the live mode: --kubeconfig FILE and --context NAME as kubectl
// (default: $KUBECONFIG or ~/.kube/config, its current context);
// -n/--namespace NAMESPACE lists the DaemonSets, pods and revisions of one
// namespace (default: all; nodes are cluster-wide); --timeout for the
// listing. -f is refused: to read files, use examples/dsplan. Exit codes
// as dsplan: 0 done, 1 the cluster could not be reached or listed or the
// input is bad, 2 usage.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, connect))
}
