package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/daemonplan/daemonplan/daemon/snapshot"
)

// The exit codes.
const (
	exitOK    = 0
	exitInput = 1
	exitUsage = 2
	// exitBlocked: simulate ended Blocked (and no simulation stalled or
	// hit --max-steps): the cluster's trouble holds the rollout.
	exitBlocked = 3
)

// exitCodes is the paragraph every help text ends with.
const exitCodes = `exit codes:
  0  done (and, for simulate, every simulation converged)
  1  bad input: a file that does not read or decode, a manifest the API
     server would reject, a DaemonSet or node not found, a Compute error,
     a simulation that stalled or hit --max-steps
  2  usage: an unknown command or flag, a missing argument, a bad value
  3  blocked (simulate): the cluster's own trouble (NotReady nodes, failing
     pods) holds a simulation, not the rollout; --assume-ready NODE or
     --exclude-not-ready shows the rollout that would follow
`

// usageError is a mistake on the command line (exit 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// blockedError is a simulation held by the cluster's trouble (exit 3).
type blockedError struct{ msg string }

func (e *blockedError) Error() string { return e.msg }

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

// Command is a command a program adds to dsplan's own (the live mode's
// dump): listed in the help and completed by the shell.
type Command struct {
	// Name is the word that runs it; Args names its positional arguments
	// for the help ("" for none); Summary is one line.
	Name, Args, Summary string
	// Flags registers its flags, for the help and for completion; nil for
	// none.
	Flags func(fs *flag.FlagSet)
	// Run runs it with the arguments after its name and returns the exit
	// code.
	Run func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// Options adapt the command to where its objects come from. The zero value
// is the offline dsplan: -f files, or the embedded example cluster.
type Options struct {
	// Program is the name the help uses ("dsplan" when empty; the live
	// mode installed as a kubectl plugin says "kubectl dsplan").
	Program string
	// Flags, when set, registers extra flags on every command's FlagSet
	// before parsing (the live mode's --kubeconfig, --context, -n).
	Flags func(fs *flag.FlagSet)
	// Source, when set, replaces the reading of -f files: it is called once
	// per command, after the flags are parsed, and returns the objects.
	// An error it returns is bad input (exit 1) unless it is a UsageError
	// (exit 2).
	Source func(f Flags) (Input, error)
	// Commands are more commands, after dsplan's own.
	Commands []Command
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
	flags func(inv *invocation, fs *flag.FlagSet)
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
		{name: "completion", args: "bash|zsh|fish", summary: "a shell completion script", run: runCompletion},
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

// usage is the top-level help.
func (o Options) usage() string {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: %s <command> [flags]\n\n", o.program())
	b.WriteString("dsplan says what the Kubernetes DaemonSet controller would do on a cluster:\n" +
		"the next sync's plan, why a node gets a pod or not, and the rollout to the end.\n\ncommands:\n")
	line := func(name, args, summary string) {
		if args != "" {
			name += " " + args
		}
		fmt.Fprintf(&b, "  %-20s %s\n", name, summary)
	}
	for _, c := range commands {
		line(c.name, c.args, c.summary)
	}
	for _, c := range o.Commands {
		line(c.Name, c.Args, c.Summary)
	}
	fmt.Fprintf(&b, "\nRun \"%s <command> -h\" for the flags of a command.\n\n%s", o.program(), exitCodes)
	return b.String()
}

// Run is the dsplan command: args without the program name, the standard
// streams and the Options. It returns the exit code: 0 done, 1 bad input,
// 2 usage (see examples/dsplan).
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer, opts Options) int {
	if len(args) == 0 {
		args = []string{"plan"}
	}
	name := args[0]
	switch name {
	case "-h", "--help", "help":
		fmt.Fprint(stdout, opts.usage())
		return exitOK
	case "--version":
		name = "version"
	}
	for _, c := range opts.Commands {
		if c.Name == name {
			return c.Run(args[1:], stdin, stdout, stderr)
		}
	}
	var cmd *command
	for i := range commands {
		if commands[i].name == name {
			cmd = &commands[i]
		}
	}
	if cmd == nil {
		fmt.Fprintf(stderr, "%s: unknown command %q\n%s", opts.program(), name, opts.usage())
		return exitUsage
	}
	inv := &invocation{cmd: cmd, opts: opts, stdin: stdin, stdout: stdout, stderr: stderr}
	err := inv.run(args[1:])
	var ue *usageError
	var be *blockedError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "%s %s: %v\n", opts.program(), name, err)
		return exitUsage
	case errors.As(err, &be):
		fmt.Fprintf(stderr, "%s %s: %v\n", opts.program(), name, err)
		return exitBlocked
	default:
		fmt.Fprintf(stderr, "%s %s: %v\n", opts.program(), name, err)
		return exitInput
	}
}

// flagSet returns the command's FlagSet with every flag it takes
// registered, and its help.
func (inv *invocation) flagSet() *flag.FlagSet {
	cmd := inv.cmd
	fs := flag.NewFlagSet(inv.opts.program()+" "+cmd.name, flag.ContinueOnError)
	fs.SetOutput(inv.stderr)
	if cmd.reads {
		inv.common.opts = inv.opts
		inv.common.register(fs)
	}
	if cmd.flags != nil {
		cmd.flags(inv, fs)
	}
	fs.Usage = func() {
		w := fs.Output()
		args := cmd.args
		if args != "" {
			args += " "
		}
		fmt.Fprintf(w, "usage: %s %s %s[flags]\n\n%s.\n", inv.opts.program(), cmd.name, args, upperFirst(cmd.summary))
		if help := commandHelp[cmd.name]; help != "" {
			fmt.Fprintf(w, "\n%s", help)
		}
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprintf(w, "\nflags:\n")
			fs.PrintDefaults()
		}
		fmt.Fprintf(w, "\n%s", exitCodes)
	}
	return fs
}

// run parses args and runs the command.
func (inv *invocation) run(args []string) error {
	fs := inv.flagSet()
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	inv.policy.parsed(fs)
	return inv.cmd.run(inv, pos)
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// parse parses args into fs, allowing positional arguments between flags;
// it returns the positional arguments.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, &usageError{err.Error()}
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// noArgs refuses positional arguments.
func noArgs(pos []string) error {
	if len(pos) > 0 {
		return &usageError{fmt.Sprintf("unexpected argument %q", pos[0])}
	}
	return nil
}

// commandHelp is more help for a command, after its summary.
var commandHelp = map[string]string{
	"plan": `Input: what "kubectl get daemonsets,nodes,pods,controllerrevisions -A -o yaml"
(or -o json) prints, in one or more -f files. A DaemonSet without
metadata.uid is a manifest, not a capture: it is applied as the API server
would (defaults, validation, generation and template generation) over the
DaemonSet of the same namespace and name, or created when there is none.
`,
	"explain": `NODE is a node name of the input. For each DaemonSet: whether it should run
its pod on NODE and may keep one, each reason it may not (nodeName,
nodeSelector, affinity terms, taints), its pods there (ready, failing,
restarts) and what the next sync does there.
`,
	"simulate": `The delays are learned from each DaemonSet's own pods (creation to Ready,
median and 90th percentile; --ready-delay and --bind-delay override them);
the run prints the expected duration, the update batches (which nodes each
step starts, under which budget) and where the rollout will block.
`,
	"completion": `Prints a completion script for the shell:
  source <(dsplan completion bash)        # bash
  dsplan completion zsh > "${fpath[1]}/_dsplan"  # zsh
  dsplan completion fish | source          # fish
`,
}
