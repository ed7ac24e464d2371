package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot"
)

// The exit codes.
const (
	exitOK    = 0
	exitInput = 1
	exitUsage = 2
	// exitBlocked: simulate ended Blocked (and no simulation stalled or
	// hit --max-steps): the cluster's trouble holds the rollout, or a
	// health gate stops it.
	exitBlocked = 3
	// exitSkew: a DaemonSet's plan stopped at a template skew
	// (daemon.Plan.TemplateSkew): its newest ControllerRevision holds
	// fields of the pod template this build does not know. It comes after
	// rollout status's own codes, and means the same there.
	exitSkew = 8
)

// exitCodes is the paragraph every help text ends with.
const exitCodes = `Exit codes:
  0  done (and, for simulate, every simulation converged)
  1  bad input: a file that does not read or decode, a manifest the API
     server would reject, a DaemonSet or node not found, a Compute error,
     a simulation that stalled or hit --max-steps; or the cluster could
     not be reached or listed
  2  usage: an unknown command or flag, a missing argument, a bad value
  3  blocked (simulate): the cluster's own trouble (NotReady nodes, failing
     pods) holds a simulation, not the rollout (--assume-ready NODE or
     --exclude-not-ready shows the rollout that would follow); or a health
     gate stops it, on a pod of the new revision that fails
  8  template skew (plan, explain, simulate): a DaemonSet's newest
     ControllerRevision holds template fields this build does not know (the
     cluster is newer than dsplan): no plan for it; upgrade dsplan
`

// usageError is a mistake on the command line (exit 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// inputError is bad input (exit 1).
type inputError struct{ err error }

func (e *inputError) Error() string { return e.err.Error() }
func (e *inputError) Unwrap() error { return e.err }

// Flags are the parsed flags every command takes, as a Source sees them.
type Flags struct {
	// Files are the -f arguments, in order ("-" is stdin).
	Files []string
	// DaemonSet is --daemonset, NS/NAME or empty.
	DaemonSet string
	// Stdin is the command's standard input.
	Stdin io.Reader
}

// Input is what a Source returns: the objects and how to name where they
// came from in the output header.
type Input struct {
	// Snapshot holds the objects; nil is an error.
	Snapshot *snapshot.Snapshot
	// Sources names what was read, e.g. file names or a kubeconfig context.
	Sources []string
}

// ExitError ends a command with its own exit code (rollout status's 3, 4
// and 5) after printing Err, when not nil, as every error is printed.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}
func (e *ExitError) Unwrap() error { return e.Err }

// Options adapt the command to where its objects come from. The zero value
// is the offline dsplan: -f files, or the embedded example cluster.
type Options struct {
	// Program is the name the help uses ("dsplan" when empty; the live
	// mode installed as a kubectl plugin says "kubectl dsplan").
	Program string
	// Flags, when set, registers extra flags on the root command's
	// persistent flags, which every command takes (the live mode's
	// kubeconfig flags, genericclioptions.ConfigFlags).
	Flags func(fs *pflag.FlagSet)
	// Source, when set, replaces the reading of -f files: it is called once
	// per command, after the flags are parsed, and returns the objects.
	// An error it returns is bad input (exit 1) unless it is a UsageError
	// (exit 2).
	Source func(f Flags) (Input, error)
	// Commands returns more commands, after dsplan's own (the live mode's
	// dump and rollout status); called once per Run.
	Commands func() []*cobra.Command
}

// UsageError returns an error that makes Run exit 2 with msg, for a Source
// that rejects a flag combination.
func UsageError(msg string) error { return &usageError{msg} }

// command is one of dsplan's commands: the registry below drives Run, the
// help and the shell completion, so that a command added here is
// everywhere at once.
type command struct {
	name, args, summary string
	// flags registers the command's own flags (the common ones are
	// registered for every command that reads objects).
	flags func(inv *invocation, fs *pflag.FlagSet)
	// reads is true for the commands that load objects (and take the
	// common flags).
	reads bool
	// run runs the command once its flags are parsed; pos are the
	// positional arguments.
	run func(inv *invocation, pos []string) error
}

// commands are dsplan's commands, in the order the help lists them.
var commands []command

func init() {
	commands = []command{
		{name: "plan", summary: "the plan of the next sync of each DaemonSet", reads: true, flags: planFlags, run: runPlan},
		{name: "explain", args: "NODE", summary: "may each DaemonSet run its pod on NODE, and why not", reads: true, flags: explainFlags, run: runExplain},
		{name: "simulate", summary: "replay the rollout to the end: update batches, duration, worst point", reads: true, flags: simulateFlags, run: runSimulate},
		{name: "version", summary: "the version of dsplan", run: runVersion},
	}
}

// invocation is one run of one command: its streams, options and flags.
type invocation struct {
	cmd            *command
	opts           Options
	stdin          io.Reader
	stdout, stderr io.Writer
	common         common
	plan           planOpts
	policy         policyFlags
	sim            simFlags
	explainFormat  string
}

// program is the name the help gives dsplan.
func (o Options) program() string {
	if o.Program == "" {
		return "dsplan"
	}
	return o.Program
}

// IsUsageError reports whether err is a usage error (exit 2), such as
// UsageError returns.
func IsUsageError(err error) bool {
	var ue *usageError
	return errors.As(err, &ue)
}
