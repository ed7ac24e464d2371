// Package oracle checks package daemon/apply against kube-apiserver
// v1.37.2's own code: its defaulting (SetObjectDefaults_DaemonSet through
// the scheme), the conversion to the internal type and back, and its
// create strategy, on hand-written manifests of real node agents and on
// thousands of generated ones (go test). It is a module of its own
// because it needs k8s.io/kubernetes, which the library never imports.
// The first build compiles much of Kubernetes (a few minutes on 2 cores).
package oracle
