// Package chart tests the Helm chart of the example controller
// (daemonplan-controller/, in this directory) with Helm's own Go module, so
// that no helm binary is needed: helm lint's rules, renders with the
// default values and with every option on, what the rendered objects grant
// and run as, values.schema.json refusing bad values, and the plain
// manifests of ../deploy, which are the chart's renders written out
// (TestPlainManifests; rewrite them with `go test -run TestPlainManifests
// -update`, or `go generate ./deploy` from examples/controller).
//
// It is a module of its own so that the controller's module never requires
// Helm; the package holds no code but its tests.
package chart
