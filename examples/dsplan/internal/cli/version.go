package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// runVersion is "dsplan version": the module version and the commit the
// binary was built from, as the Go toolchain recorded them.
func runVersion(inv *invocation, pos []string) error {
	if err := noArgs(pos); err != nil {
		return err
	}
	info, _ := debug.ReadBuildInfo()
	fmt.Fprintln(inv.stdout, versionLine(inv.opts.program(), info))
	return nil
}

// versionLine is "dsplan VERSION (commit C, TIME[, modified]) GO OS/ARCH":
// VERSION the main module's ("(devel)" for a build from a work tree), the
// commit from the VCS stamp when the build has one.
func versionLine(program string, info *debug.BuildInfo) string {
	version, commit, when, modified := "(unknown)", "", "", false
	if info != nil {
		version = info.Main.Version
		if version == "" {
			version = "(devel)"
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	var build []string
	if commit != "" {
		build = append(build, "commit "+commit[:min(12, len(commit))])
	}
	if when != "" {
		build = append(build, when)
	}
	if modified {
		build = append(build, "modified")
	}
	out := program + " " + version
	if len(build) > 0 {
		out += " (" + strings.Join(build, ", ") + ")"
	}
	return out + " " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
}
