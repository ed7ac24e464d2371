package buildinfo

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// Stamp is what a release build sets with the linker's -X flag, for
// example (GoReleaser's templates):
//
//	-X main.version={{.Version}} -X main.commit={{.Commit}} -X main.date={{.Date}}
//
// on the variables the program passes in. Empty fields mean "not stamped".
type Stamp struct {
	// Version is the release, such as "v0.1.0" (a leading "v" is added
	// when missing: GoReleaser's {{.Version}} drops it).
	Version string
	// Commit is the full commit hash the release was built from.
	Commit string
	// Date is when the release was built, RFC 3339.
	Date string
}

// Info is which build a binary is.
type Info struct {
	// Version is the Stamp's, else the main module's version as the Go
	// toolchain recorded it ("(devel)" for a build from a work tree
	// without a version stamp, "(unknown)" without build information).
	Version string
	// Revision is the full commit hash: the Stamp's, else vcs.revision;
	// empty when neither says.
	Revision string
	// Date is the Stamp's build date, else the commit's time (vcs.time),
	// RFC 3339; empty when neither says.
	Date string
	// Modified is vcs.modified: the work tree had uncommitted changes. A
	// stamped commit is taken as clean.
	Modified bool
	// GoVersion is the Go release that built the binary, such as
	// "go1.26.8".
	GoVersion string
	// Platform is GOOS/GOARCH of the binary, such as "linux/amd64".
	Platform string
}

// Of returns the build of the running binary from its Stamp and its Go
// build information bi (debug.ReadBuildInfo's; nil when it has none).
func Of(bi *debug.BuildInfo, s Stamp) Info {
	info := Info{
		Version:   "(unknown)",
		GoVersion: runtime.Version(),
		Platform:  runtime.GOOS + "/" + runtime.GOARCH,
	}
	if bi != nil {
		info.Version = bi.Main.Version
		if info.Version == "" {
			info.Version = "(devel)"
		}
		for _, set := range bi.Settings {
			switch set.Key {
			case "vcs.revision":
				info.Revision = set.Value
			case "vcs.time":
				info.Date = set.Value
			case "vcs.modified":
				info.Modified = set.Value == "true"
			}
		}
	}
	if s.Version != "" {
		info.Version = s.Version
		if !strings.HasPrefix(info.Version, "v") {
			info.Version = "v" + info.Version
		}
	}
	if s.Commit != "" {
		info.Revision, info.Modified = s.Commit, false
	}
	if s.Date != "" {
		info.Date = s.Date
	}
	return info
}

// Read is Of for the running binary: its build information and s.
func Read(s Stamp) Info {
	bi, _ := debug.ReadBuildInfo()
	return Of(bi, s)
}

// ShortRevision is the first 12 characters of the revision, as git
// abbreviates it; empty when the revision is unknown.
func (i Info) ShortRevision() string {
	return i.Revision[:min(12, len(i.Revision))]
}

// Line is the one-line answer to --version:
//
//	PROGRAM VERSION (commit C, DATE[, modified]) GOVERSION OS/ARCH
//
// with the parenthesis, or any part of it, left out when unknown; for
// example "dsplan v0.1.0 (commit 3f69806a1b2c, 2026-11-25T13:00:00Z)
// go1.26.8 linux/amd64".
func (i Info) Line(program string) string {
	var build []string
	if i.Revision != "" {
		build = append(build, "commit "+i.ShortRevision())
	}
	if i.Date != "" {
		build = append(build, i.Date)
	}
	if i.Modified {
		build = append(build, "modified")
	}
	out := program + " " + i.Version
	if len(build) > 0 {
		out += " (" + strings.Join(build, ", ") + ")"
	}
	return out + " " + i.GoVersion + " " + i.Platform
}
