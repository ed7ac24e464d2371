// Package buildinfo decides what the programs under examples/ answer to
// --version and put in their build-info metrics: which version, commit and
// date a binary was built from.
//
// Two sources, in this order: a Stamp, the values a release build sets with
// the linker's -X flag (GoReleaser's version, commit and date; each program
// keeps its own three variables and passes them in), and the record the Go
// toolchain writes into every binary (runtime/debug.BuildInfo: the main
// module's version and, when built with -buildvcs, vcs.revision, vcs.time
// and vcs.modified). A field the Stamp leaves empty comes from the record.
//
// It is the programs' package, not the library's: the library never asks
// which build it is. Of is a function of its arguments and of the running
// binary's Go version and platform, constants of the build; it reads no
// file and keeps no state.
package buildinfo
