// Package cli is the dsplan command (see examples/dsplan/cmd/kubectl-dsplan)
// as a library: its cobra command tree (NewCommand; Run executes it and maps
// its errors to exit codes), the loading of -f files or the embedded
// example cluster, and the plan, explanation and simulation it prints.
// Package examples/dsplan/live/livecmd adds the cluster: Options.Source
// lists it when -f holds no capture, Options.Flags adds kubectl's flags to
// the root command and Options.Commands the commands that need a cluster
// (dump, rollout status). Run never writes to a cluster; only simulate
// --svg writes a file.
package cli
