// Package cli is the dsplan command (see examples/dsplan) as a library, so
// that two programs share it: examples/dsplan in the root module, which
// reads files or its embedded cluster, and the nested module
// examples/dsplan/live, which lists a running cluster through client-go.
//
// Run parses the subcommand and its flags, loads the objects and prints
// the plan, explanation or simulation. Options.Source replaces the reading
// of -f files with any other origin of a *snapshot.Snapshot, and
// Options.Flags adds the flags that origin needs. Run never writes to a
// cluster; only simulate --svg writes a file.
package cli
