// Package e2e holds the end-to-end tests of the example DaemonSet
// controller: every scenario runs on a real control plane (etcd,
// kube-apiserver, kube-scheduler, and kwok playing the kubelets), once with
// the example controller and once with kube-controller-manager's own
// DaemonSet controller, each on a fresh cluster, and the two results are
// compared side by side.
//
// The control plane is built from Go module sources pinned in ../tools and
// cached under $XDG_CACHE_HOME/daemonplan-e2e (or ~/.cache/daemonplan-e2e),
// keyed on the tools modules' go.mod and go.sum. When the binaries cannot be
// built every test is skipped with the reason, unless E2E=1 is set, in which
// case they fail.
//
// The package has no non-test code; run it with
//
//	cd examples/controller && go test -timeout 90m ./e2e
//
// (the first, cold run compiles the control plane, which takes several
// minutes on two cores).
package e2e
