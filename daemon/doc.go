// Package daemon computes what one sync of the Kubernetes DaemonSet
// controller must change, as a plain value: given a DaemonSet, the nodes,
// the pods and the ControllerRevisions, Compute returns a Plan of pods to
// create and delete, pods and revisions to adopt and release, revision
// history changes, the status to write and when to look again. It performs
// no I/O, reads no clock and keeps no state: the same input gives the same
// plan, whatever the order of its slices.
//
// # Faithfulness
//
// A plan is what kube-controller-manager v1.36 (pkg/controller/daemon)
// decides in one syncDaemonSet, judged against scenarios recorded from the
// real controller. Where upstream's choice depends on Go map or informer
// order, Compute picks by node name, then pod name, and says so.
//
// # Cost
//
// Compute parses the selector, the node affinity and the tolerations once per
// plan, evaluates each node's eligibility once, and groups pods by node once:
// a plan costs O(nodes + pods) plus sorting.
package daemon
