// Package eligibility decides whether a node may run a DaemonSet's pod:
// whether a new pod may be placed there and whether a pod already there
// may stay, as upstream's NodeShouldRunDaemonPod, and why not (the
// template's nodeName, its nodeSelector or required node affinity, or an
// untolerated taint). New compiles the check of one DaemonSet once;
// Check.ShouldRun then judges a node without allocating, and Check.Explain
// names what failed. ShouldRun judges one node straight from the template.
//
// Package daemon runs this check on every node of a plan; this package
// imports nothing of daemon.
package eligibility
