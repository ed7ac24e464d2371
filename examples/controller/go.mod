module github.com/daemonplan/daemonplan/examples/controller

go 1.26.0

require github.com/daemonplan/daemonplan v0.0.0

require k8s.io/client-go v0.36.6 // indirect

replace github.com/daemonplan/daemonplan => ../..
