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
// What if I apply this? -f files are read after the listing: a DaemonSet
// manifest in them (one without metadata.uid) is applied over the
// cluster's DaemonSet as the API server would store it, and planned and
// simulated as such:
//
//	go run . simulate --context prod -f agent.yaml
//
// Installed under the name kubectl looks for, it is a kubectl plugin
// (kubectl dsplan plan, kubectl dsplan explain NODE, ...):
//
//	cd examples/dsplan/live && go install ./cmd/kubectl-dsplan
//	kubectl dsplan plan -n kube-system
//	source <(kubectl dsplan completion bash)
//
// It lives in a module of its own because it needs client-go, which the
// root module never imports; the command itself is the root module's
// examples/dsplan/internal/cli, the live part livecmd. It only
// reads (list, and watch for rollout status, on daemonsets,
// controllerrevisions, pods and nodes); it never writes to the cluster.
//
// `live rollout status NS/NAME` waits until the DaemonSet's rollout is
// complete under its rollout annotations' policy, printing progress, and
// exits 0 then, 3 when its RolloutBlocked condition is True, 4 past its
// progress deadline, 5 at --timeout: the step a CI pipeline or a Helm
// post-upgrade hook runs (it lists and watches the DaemonSet, its pods and
// revisions, and the nodes):
//
//	go run . rollout status kube-system/agent --context prod --timeout 1h
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
// listing. Exit codes as dsplan: 0 done, 1 the cluster could not be
// reached or listed or the input is bad, 2 usage.
package main

import (
	"os"

	"github.com/daemonplan/daemonplan/examples/dsplan/live/livecmd"
)

func main() {
	os.Exit(livecmd.Main())
}
