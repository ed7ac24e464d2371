package daemon

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon/eligibility"
)

// NodeShouldRunDaemonPod returns whether a new pod of ds may be placed on
// node (shouldRun) and whether a pod of ds already there may stay
// (shouldContinueRunning), as upstream's function of the same name, with
// the TaintTolerationComparisonOperators gate off. It is
// eligibility.ShouldRun: it compiles nothing and allocates nothing; to
// judge many nodes, eligibility.New compiles the check once. A nil node or
// ds gives false, false. It modifies nothing.
func NodeShouldRunDaemonPod(node *corev1.Node, ds *appsv1.DaemonSet) (shouldRun, shouldContinueRunning bool) {
	return eligibility.ShouldRun(node, ds)
}
