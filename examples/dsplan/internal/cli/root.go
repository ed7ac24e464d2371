package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Run is the dsplan command: args without the program name, the standard
// streams and the Options. It returns the exit code: 0 done, 1 bad input,
// 2 usage (exitCodes), or an ExitError's code.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer, opts Options) int {
	root := NewCommand(opts, stdin, stdout, stderr)
	if args == nil {
		args = []string{} // not os.Args
	}
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err == nil {
		return exitOK
	}
	// The command's path names the program once: cobra starts it with
	// the root's display name (the program, "kubectl dsplan"), not its
	// Name ("kubectl-dsplan").
	where := opts.program()
	if cmd != nil {
		where = cmd.CommandPath()
	}
	var ee *ExitError
	var ie *inputError
	switch {
	case errors.As(err, &ee):
		if ee.Err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", where, ee.Err)
		}
		return ee.Code
	case errors.As(err, &ie):
		fmt.Fprintf(stderr, "%s: %v\n", where, err)
		return exitInput
	default:
		// A usageError of ours, or cobra's own: an unknown command or
		// flag, a flag value that does not parse, a wrong argument count.
		fmt.Fprintf(stderr, "%s: %v\nSee '%s --help' for usage.\n", where, err, where)
		return exitUsage
	}
}

// NewCommand returns dsplan's command tree (spf13/cobra) on the given
// streams: plan, explain, simulate, version, completion and opts' own
// commands. Run executes it and maps its errors to exit codes.
func NewCommand(opts Options, stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	program := opts.program()
	root := &cobra.Command{
		// kubectl runs the plugin kubectl-dsplan for "kubectl dsplan":
		// the executable's name completes, the display name is what
		// the help says.
		Use:   strings.ReplaceAll(program, " ", "-"),
		Short: "What the Kubernetes DaemonSet controller would do on a cluster",
		Long: `dsplan says what the Kubernetes DaemonSet controller would do on a cluster:
the next sync's plan, why a node gets a pod or not, and the rollout to the end.`,
		Annotations:   map[string]string{cobra.CommandDisplayNameAnnotation: program},
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          cobra.NoArgs,
		Version:       "set below",
		RunE: func(c *cobra.Command, _ []string) error {
			return c.Help()
		},
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err.Error()} })
	root.SetVersionTemplate(versionLine(program, readBuildInfo()) + "\n")
	// --version without cobra's -v shorthand: kubectl's -v is the log
	// level, and a plugin should not give it another meaning.
	root.Flags().Bool("version", false, "print the version of "+program)
	// Every help ends with the exit codes.
	root.SetUsageTemplate(root.UsageTemplate() + "\n" + exitCodes)
	if opts.Flags != nil {
		opts.Flags(root.PersistentFlags())
	}
	for i := range commands {
		root.AddCommand(newSubcommand(&commands[i], opts, stdin, stdout, stderr))
	}
	if opts.Commands != nil {
		root.AddCommand(opts.Commands()...)
	}
	root.InitDefaultCompletionCmd()
	if c, _, err := root.Find([]string{"completion"}); err == nil && c != root {
		c.RunE = func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return &usageError{fmt.Sprintf("shell %q: want bash, zsh, fish or powershell", args[0])}
			}
			return c.Help()
		}
	}
	return root
}

// newSubcommand is one of dsplan's commands as a cobra command: its flags
// registered on the cobra command's pflag set, its run given the
// positional arguments.
func newSubcommand(cmd *command, opts Options, stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	inv := &invocation{cmd: cmd, opts: opts, stdin: stdin, stdout: stdout, stderr: stderr}
	use := cmd.name
	if cmd.args != "" {
		use += " " + cmd.args
	}
	long := upperFirst(cmd.summary) + ".\n"
	if help := commandHelp[cmd.name]; help != "" {
		long += "\n" + strings.ReplaceAll(help, "dsplan", opts.program())
	}
	c := &cobra.Command{
		Use:   use,
		Short: cmd.summary,
		Long:  long,
		RunE: func(c *cobra.Command, pos []string) error {
			inv.policy.parsed(c.Flags())
			err := cmd.run(inv, pos)
			var ue *usageError
			var ee *ExitError
			if err == nil || errors.As(err, &ue) || errors.As(err, &ee) {
				return err
			}
			var ie *inputError
			if errors.As(err, &ie) {
				return err
			}
			return &inputError{err}
		},
	}
	if ex := commandExamples[cmd.name]; ex != "" {
		c.Example = strings.ReplaceAll(ex, "dsplan", opts.program())
	}
	fs := c.Flags()
	fs.SortFlags = false
	if cmd.reads {
		inv.common.opts = opts
		inv.common.notes = stderr
		inv.common.register(fs)
	}
	if cmd.flags != nil {
		cmd.flags(inv, fs)
	}
	for _, name := range []string{"filename", "svg"} {
		if fs.Lookup(name) != nil {
			_ = c.MarkFlagFilename(name, "yaml", "yml", "json", "svg")
		}
	}
	if f := fs.Lookup("output"); f != nil {
		values := outputValues[cmd.name]
		_ = c.RegisterFlagCompletionFunc("output", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return values, cobra.ShellCompDirectiveNoFileComp
		})
	}
	return c
}

// outputValues are the -o values each command takes, for completion.
var outputValues = map[string][]string{
	"plan":     {"text", "wide", "json", "yaml"},
	"explain":  {"text", "json"},
	"simulate": {"text", "json"},
}

// flagGiven reports whether the flag name was set on the command line.
func flagGiven(fs *pflag.FlagSet, name string) bool {
	f := fs.Lookup(name)
	return f != nil && f.Changed
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
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
(or -o json) prints, in one or more -f files; without a capture among them,
the cluster of the current context, listed once (read-only). A DaemonSet
without metadata.uid is a manifest, not a capture: it is applied as the API
server would (defaults, validation, generation and template generation) over
the DaemonSet of the same namespace and name, or created when there is none.

The text output leads with what changes per DaemonSet (creates, deletes,
adoptions, history, status) and the counts; -o wide adds every node.
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
}

// commandExamples are each command's examples.
var commandExamples = map[string]string{
	"plan": `  dsplan plan -f capture.yaml                      # offline, on a kubectl capture
  dsplan plan -n kube-system                       # the cluster of the current context
  dsplan plan -f capture.yaml -f agent.yaml -o wide  # a manifest over the capture, every node`,
	"explain": `  dsplan explain worker-09 -f capture.yaml
  dsplan explain worker-09 --context prod -o json`,
	"simulate": `  dsplan simulate --daemonset kube-system/agent --image agent:v2
  dsplan simulate -f capture.yaml --order-label topology.kubernetes.io/zone --wave-bake 10m`,
}
