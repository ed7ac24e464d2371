package app

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/daemonplan/daemonplan/examples/internal/buildinfo"
)

// program is the controller's name in --version and in its image.
const program = "daemonplan-controller"

// version, commit and date are set by a release build with the linker's -X
// flag (see .goreleaser.yaml and examples/image):
//
//	-X github.com/daemonplan/daemonplan/examples/controller/internal/app.version=v0.1.0
//
// Empty (any other build), the Go toolchain's record says (buildinfo.Of).
// Only the linker writes them.
var version, commit, date string

// build is which build this binary is.
func build() buildinfo.Info {
	return buildinfo.Read(buildinfo.Stamp{Version: version, Commit: commit, Date: date})
}

// newBuildInfoGauge is daemonplan_controller_build_info{version, revision,
// goversion}, always 1: the build in /metrics, in the style of Prometheus'
// own prometheus_build_info, to join on or to alert on two versions
// running at once.
func newBuildInfoGauge(info buildinfo.Info) prometheus.Gauge {
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "daemonplan_controller_build_info",
		Help: "A metric with a constant '1' value labeled by the version, the commit (revision) and the Go version the controller was built from.",
		ConstLabels: prometheus.Labels{
			"version":   info.Version,
			"revision":  info.Revision,
			"goversion": info.GoVersion,
		},
	})
	g.Set(1)
	return g
}
