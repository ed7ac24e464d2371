package cli

import (
	"embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/daemonplan/daemonplan/daemon/snapshot"
)

// The exit codes.
const (
	exitOK    = 0
	exitInput = 1
	exitUsage = 2
)

//go:embed testdata/cluster.yaml
var embedded embed.FS

// embeddedName is the embedded cluster's file.
const embeddedName = "testdata/cluster.yaml"

const usage = `usage: dsplan <command> [flags]

commands:
  plan       the plan of the next sync of each DaemonSet
  explain    NODE: may each DaemonSet run its pod on NODE, and why not
  simulate   replay the rollout to the end

Run "dsplan <command> -h" for the flags of a command.
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

// Options adapt the command to where its objects come from. The zero value
// is the offline dsplan: -f files, or the embedded example cluster.
type Options struct {
	// Flags, when set, registers extra flags on every command's FlagSet
	// before parsing (the live mode's --kubeconfig, --context, -n).
	Flags func(fs *flag.FlagSet)
	// Source, when set, replaces the reading of -f files: it is called once
	// per command, after the flags are parsed, and returns the objects.
	// An error it returns is bad input (exit 1) unless it is a UsageError
	// (exit 2).
	Source func(f Flags) (Input, error)
}

// UsageError returns an error that makes Run exit 2 with msg, for a Source
// that rejects a flag combination.
func UsageError(msg string) error { return &usageError{msg} }

// Run is the dsplan command: args without the program name, the standard
// streams and the Options. It returns the exit code: 0 done, 1 bad input,
// 2 usage (see examples/dsplan).
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer, opts Options) int {
	if len(args) == 0 {
		args = []string{"plan"}
	}
	var err error
	switch args[0] {
	case "plan":
		err = runPlan(args[1:], stdin, stdout, stderr, opts)
	case "explain":
		err = runExplain(args[1:], stdin, stdout, stderr, opts)
	case "simulate":
		err = runSimulate(args[1:], stdin, stdout, stderr, opts)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		fmt.Fprintf(stderr, "dsplan: unknown command %q\n%s", args[0], usage)
		return exitUsage
	}
	var ue *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "dsplan %s: %v\n", args[0], err)
		return exitUsage
	default:
		fmt.Fprintf(stderr, "dsplan %s: %v\n", args[0], err)
		return exitInput
	}
}

// fileList is the repeatable -f flag.
type fileList []string

func (f *fileList) String() string     { return strings.Join(*f, ",") }
func (f *fileList) Set(v string) error { *f = append(*f, v); return nil }

// common are the flags every command takes.
type common struct {
	files     fileList
	daemonSet string
	now       string
	burst     int
	opts      Options
	// notes is where the input's notes go (the FlagSet's output, stderr).
	notes io.Writer
}

func (c *common) register(fs *flag.FlagSet) {
	c.notes = fs.Output()
	if c.opts.Flags != nil {
		c.opts.Flags(fs)
	}
	fs.Var(&c.files, "f", "`FILE` of Kubernetes YAML or JSON (repeatable; - reads stdin; default: the embedded cluster)")
	fs.StringVar(&c.daemonSet, "daemonset", "", "plan only the DaemonSet `NS/NAME` (default: every DaemonSet in the input)")
	fs.StringVar(&c.now, "now", "", "controller clock, `RFC3339` (default: the newest timestamp in the input)")
	fs.IntVar(&c.burst, "burst", 0, "creates and deletes per sync, `N` (default 250, as kube-controller-manager)")
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

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("dsplan "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// loaded is the input of a command.
type loaded struct {
	snap *snapshot.Snapshot
	// now is the clock; nowSource says where it came from, for the output.
	now       time.Time
	nowSource string
	// names are the DaemonSets to plan, as "ns/name".
	names []string
	// sources names the files read.
	sources []string
}

// load reads the input the common flags name.
func (c *common) load(stdin io.Reader) (*loaded, error) {
	if c.burst < 0 {
		return nil, &usageError{fmt.Sprintf("--burst %d: must be 0 or more", c.burst)}
	}
	l := &loaded{snap: &snapshot.Snapshot{}}
	if c.opts.Source != nil {
		// A Source may be slow (a cluster): judge the flags before it runs.
		if _, err := c.finish(&loaded{snap: &snapshot.Snapshot{}}); err != nil {
			var ue *usageError
			if errors.As(err, &ue) {
				return nil, err
			}
		}
		in, err := c.opts.Source(Flags{Files: append([]string(nil), c.files...), DaemonSet: c.daemonSet, Stdin: stdin})
		var ue *usageError
		switch {
		case errors.As(err, &ue):
			return nil, err
		case err != nil:
			return nil, &inputError{err}
		case in.Snapshot == nil:
			return nil, &inputError{errors.New("the source returned no snapshot")}
		}
		l.snap, l.sources = in.Snapshot, in.Sources
	} else if err := c.readFiles(l, stdin); err != nil {
		return nil, err
	}
	// What was read past or changed, and why, before any error about
	// what is missing.
	for _, n := range l.snap.Notes {
		fmt.Fprintf(c.notes, "note: %s\n", n)
	}
	return c.finish(l)
}

// readFiles reads the -f files, or the embedded cluster without any.
func (c *common) readFiles(l *loaded, stdin io.Reader) error {
	if len(c.files) == 0 {
		data, err := embedded.ReadFile(embeddedName)
		if err != nil {
			return &inputError{err}
		}
		if err := l.snap.Add("(embedded) "+embeddedName, data); err != nil {
			return &inputError{err}
		}
		l.sources = []string{"the embedded example cluster"}
	}
	for _, f := range c.files {
		var data []byte
		var err error
		name := f
		if f == "-" {
			name = "(stdin)"
			data, err = io.ReadAll(stdin)
		} else {
			data, err = os.ReadFile(f)
		}
		if err != nil {
			return &inputError{err}
		}
		if err := l.snap.Add(name, data); err != nil {
			return &inputError{err}
		}
		l.sources = append(l.sources, name)
	}
	return nil
}

// finish sets the clock and the DaemonSets to plan.
func (c *common) finish(l *loaded) (*loaded, error) {
	if c.now != "" {
		t, err := time.Parse(time.RFC3339, c.now)
		if err != nil {
			return nil, &usageError{fmt.Sprintf("--now %q: not an RFC3339 time (2006-01-02T15:04:05Z)", c.now)}
		}
		l.now, l.nowSource = t, "--now"
	} else if t := l.snap.Newest(); !t.IsZero() {
		l.now, l.nowSource = t, "the newest timestamp in the input; set --now to change"
	} else {
		l.nowSource = "the input holds no timestamp; set --now"
	}
	if c.daemonSet != "" {
		ns, name, ok := strings.Cut(c.daemonSet, "/")
		if !ok || ns == "" || name == "" {
			return nil, &usageError{fmt.Sprintf("--daemonset %q: want NAMESPACE/NAME", c.daemonSet)}
		}
		if _, err := l.snap.For(ns, name); err != nil {
			return nil, &inputError{err}
		}
		l.names = []string{c.daemonSet}
	} else {
		l.names = l.snap.Names()
		if len(l.names) == 0 {
			return nil, &inputError{fmt.Errorf("no DaemonSet (apps/v1) in %s", strings.Join(l.sources, ", "))}
		}
	}
	return l, nil
}

// header describes the input: what was read and the clock.
func (l *loaded) header(w io.Writer) {
	s := l.snap
	fmt.Fprintf(w, "input: %s: %d DaemonSets, %d nodes, %d pods, %d revisions\n", strings.Join(l.sources, ", "),
		len(s.DaemonSets), len(s.Nodes), len(s.Pods), len(s.Revisions))
	if l.now.IsZero() {
		fmt.Fprintf(w, "now: the zero time (%s)\n", l.nowSource)
	} else {
		fmt.Fprintf(w, "now: %s (%s)\n", l.now.UTC().Format(time.RFC3339), l.nowSource)
	}
}
