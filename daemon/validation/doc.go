// Package validation answers what the Kubernetes API server (v1.37, feature
// gates at their defaults) rejects when a DaemonSet is created: Validate
// returns its field errors, with the API server's paths and messages. It
// performs no I/O.
//
// daemon.Compute does not validate, as the controller does not: it plans
// what the controller would make of any DaemonSet, even one the API server
// would refuse. Call Validate on DaemonSets built in code or taken from a
// custom resource before planning with them.
//
// The checks cover what the plan reads (metadata, the selector, the pod
// template's labels, annotations and placement, minReadySeconds,
// revisionHistoryLimit and the update strategy) and what a manifest most
// often gets wrong in what runs (container names, images, ports, volume
// mounts, resource quantities), not volume sources, probes or security
// contexts. The wanted messages of the tests are checked against
// kube-apiserver's own validation by the conformance tool in oracle/ (a
// nested module, since it needs k8s.io/kubernetes; see its doc).
//
// The name follows upstream, which keeps the API's validation apart from
// the controllers, in pkg/apis/apps/validation.
package validation
