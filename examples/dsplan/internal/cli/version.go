package cli

import (
	"fmt"
	"runtime/debug"

	"github.com/daemonplan/daemonplan/examples/internal/buildinfo"
)

// version, commit and date are set by a release build with the linker's -X
// flag (see .goreleaser.yaml), for dsplan and kubectl-dsplan alike:
//
//	-X github.com/daemonplan/daemonplan/examples/dsplan/internal/cli.version=v0.1.0
//
// Empty (any other build), the Go toolchain's record says (buildinfo.Of).
// Only the linker writes them.
var version, commit, date string

// runVersion is "dsplan version" (and --version): the version, the commit
// and the date the binary was built from (buildinfo.Info.Line).
func runVersion(inv *invocation, pos []string) error {
	if err := noArgs(pos); err != nil {
		return err
	}
	info, _ := debug.ReadBuildInfo()
	fmt.Fprintln(inv.stdout, versionLine(inv.opts.program(), info))
	return nil
}

// versionLine is "dsplan VERSION (commit C, DATE[, modified]) GO OS/ARCH"
// for the build information info and the release stamp.
func versionLine(program string, info *debug.BuildInfo) string {
	return buildinfo.Of(info, buildinfo.Stamp{Version: version, Commit: commit, Date: date}).Line(program)
}

// readBuildInfo is the Go toolchain's record of this binary (nil when
// there is none).
func readBuildInfo() *debug.BuildInfo {
	info, _ := debug.ReadBuildInfo()
	return info
}
