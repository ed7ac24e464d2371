// Package livecmd is dsplan on a running cluster (see examples/dsplan/live):
// dsplan's commands on a listing of the cluster, dump, and rollout status,
// which follows a DaemonSet's rollout until it is complete under its
// policy. Both programs of the live module, live and kubectl-dsplan, run
// it; Run lets another program (the example controller's end-to-end
// suite) run it on a cluster of its own.
package livecmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/daemonplan/daemonplan/daemon/snapshot"
	"github.com/daemonplan/daemonplan/examples/dsplan/internal/cli"
)

// liveFlags are the flags of the live mode, on top of dsplan's.
type liveFlags struct {
	kubeconfig string
	context    string
	namespace  string
	timeout    time.Duration
}

func (f *liveFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig `FILE` (default: $KUBECONFIG or ~/.kube/config)")
	fs.StringVar(&f.context, "context", "", "kubeconfig context `NAME` (default: the current context)")
	fs.StringVar(&f.namespace, "n", "", "list DaemonSets, pods and revisions of `NAMESPACE` only (default: all)")
	fs.StringVar(&f.namespace, "namespace", "", "`NAMESPACE`, the same as -n")
	fs.DurationVar(&f.timeout, "timeout", 30*time.Second, "time allowed for the listing")
}

// connector makes a client from the flags and names the cluster it talks
// to (the kubeconfig context); tests pass a fake one.
type connector func(f *liveFlags) (kubernetes.Interface, string, error)

// connect loads the kubeconfig as kubectl does.
func connect(f *liveFlags) (kubernetes.Interface, string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = f.kubeconfig
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: f.context})
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, "", fmt.Errorf("kubeconfig: %w", err)
	}
	name := f.context
	if name == "" {
		if raw, err := cc.RawConfig(); err == nil {
			name = raw.CurrentContext
		}
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, "", fmt.Errorf("kubeconfig: %w", err)
	}
	return cs, name, nil
}

// fetch connects and lists once.
func fetch(f *liveFlags, conn connector) (*snapshot.Snapshot, string, error) {
	cs, name, err := conn(f)
	if err != nil {
		return nil, "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), f.timeout)
	defer cancel()
	s, err := list(ctx, cs, f.namespace)
	if err != nil {
		return nil, "", err
	}
	where := "context " + name
	if name == "" {
		where = "the cluster"
	}
	if f.namespace != "" {
		where += ", namespace " + f.namespace
	}
	return s, where, nil
}

// Main is the live command as a program runs it: os.Args, the standard
// streams, a real cluster. Installed as kubectl-dsplan (a kubectl plugin:
// kubectl dsplan plan), its help says "kubectl dsplan".
func Main() int {
	return run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, programName(os.Args[0]), connect)
}

// Run is the live command with the given arguments and streams, on the
// cluster its --kubeconfig and --context flags name (as kubectl loads
// them): what Main runs, for a program or a test that has a cluster of its
// own. It returns the exit code.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return run(args, stdin, stdout, stderr, "dsplan", connect)
}

// programName is how the help names the program run as argv0: "kubectl
// dsplan" for the plugin, "dsplan" otherwise.
func programName(argv0 string) string {
	if strings.TrimSuffix(filepath.Base(argv0), ".exe") == "kubectl-dsplan" {
		return "kubectl dsplan"
	}
	return "dsplan"
}

// run is the command: dsplan's commands on the objects a listing of the
// cluster returns (and -f files after them: manifests to apply over the
// cluster as it is, or captures), and dump.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, program string, conn connector) int {
	lf := &liveFlags{}
	dumpFlags := &liveFlags{}
	return cli.Run(args, stdin, stdout, stderr, cli.Options{
		Program: program,
		Flags:   lf.register,
		Source: func(f cli.Flags) (cli.Input, error) {
			s, where, err := fetch(lf, conn)
			if err != nil {
				return cli.Input{}, err
			}
			return cli.Input{Snapshot: s, Sources: []string{where}}, nil
		},
		Commands: []cli.Command{{
			Name:    "rollout",
			Args:    "status NS/NAME",
			Summary: "wait until a DaemonSet's rollout is complete under its policy (see rollout status -h)",
			Flags:   (&statusFlags{}).register,
			Run: func(args []string, _ io.Reader, stdout, stderr io.Writer) int {
				return runRollout(args, stdout, stderr, program, conn)
			},
		}, {
			Name:    "dump",
			Summary: "print the cluster's listing as one kubectl List, for dsplan -f or to keep",
			Flags:   dumpFlags.register,
			Run: func(args []string, _ io.Reader, stdout, stderr io.Writer) int {
				return runDump(args, stdout, stderr, program, conn)
			},
		}},
	})
}

// runDump prints the listing as one List, for dsplan -f -.
func runDump(args []string, stdout, stderr io.Writer, program string, conn connector) int {
	fs := flag.NewFlagSet(program+" dump", flag.ContinueOnError)
	fs.SetOutput(stderr)
	lf := &liveFlags{}
	lf.register(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "%s dump: unexpected argument %q\n", program, fs.Arg(0))
		return 2
	}
	s, _, err := fetch(lf, conn)
	if err != nil {
		fmt.Fprintf(stderr, "%s dump: %v\n", program, err)
		return 1
	}
	data, err := s.Encode()
	if err != nil {
		fmt.Fprintf(stderr, "%s dump: %v\n", program, err)
		return 1
	}
	if _, err := stdout.Write(data); err != nil {
		return 1
	}
	return 0
}

// list reads the four kinds once, read-only.
func list(ctx context.Context, cs kubernetes.Interface, ns string) (*snapshot.Snapshot, error) {
	var opts metav1.ListOptions
	dss, err := cs.AppsV1().DaemonSets(ns).List(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("listing daemonsets: %w", err)
	}
	nodes, err := cs.CoreV1().Nodes().List(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("listing nodes: %w", err)
	}
	pods, err := cs.CoreV1().Pods(ns).List(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("listing pods: %w", err)
	}
	revs, err := cs.AppsV1().ControllerRevisions(ns).List(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("listing controllerrevisions: %w", err)
	}
	return &snapshot.Snapshot{
		DaemonSets: pointers[appsv1.DaemonSet](dss.Items),
		Nodes:      pointers[corev1.Node](nodes.Items),
		Pods:       pointers[corev1.Pod](pods.Items),
		Revisions:  pointers[appsv1.ControllerRevision](revs.Items),
	}, nil
}

func pointers[T any](items []T) []*T {
	out := make([]*T, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}
