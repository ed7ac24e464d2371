// Package livecmd is dsplan on a running cluster (see examples/dsplan):
// dsplan's commands on a listing of the cluster, dump, and the rollout
// commands of one DaemonSet: rollout status, which follows its rollout
// until it is complete under its policy (or blocked, or waiting for
// approval), and the three that write to it, each a patch on the
// condition that it is still at the resourceVersion read: rollout approve
// (records the approval of the point the rollout waits at), rollout undo
// (writes an earlier revision's template back) and rollout resume (changes
// the paused annotation). Status and approve judge the rollout in one
// place (assess). kubectl-dsplan runs it; Run lets another program (the
// example controller's end-to-end suite) run it on a cluster of its own.
package livecmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/pager"

	"github.com/daemonplan/daemonplan/examples/dsplan/internal/cli"
	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot"
)

// liveFlags are the flags of the live mode, on top of dsplan's: kubectl's
// own (genericclioptions.ConfigFlags: --kubeconfig, --context, --cluster,
// --user, --server, --token, --as, -n/--namespace, --request-timeout and
// the rest, loaded by kubectl's rules) and -A/--all-namespaces.
type liveFlags struct {
	config        *genericclioptions.ConfigFlags
	allNamespaces bool
}

func newLiveFlags() *liveFlags {
	return &liveFlags{config: genericclioptions.NewConfigFlags(true)}
}

func (f *liveFlags) register(fs *pflag.FlagSet) {
	f.config.AddFlags(fs)
	fs.BoolVarP(&f.allNamespaces, "all-namespaces", "A", false, "list the DaemonSets, pods and revisions of every namespace (the default without -n)")
}

// contextName is the kubeconfig context the flags select: --context, or
// the kubeconfig's current context ("" when there is none).
func (f *liveFlags) contextName() string {
	if f.config.Context != nil && *f.config.Context != "" {
		return *f.config.Context
	}
	if raw, err := f.config.ToRawKubeConfigLoader().RawConfig(); err == nil {
		return raw.CurrentContext
	}
	return ""
}

// namespace is the namespace to list, "" for all: -n as given (not the
// context's namespace: DaemonSets are cluster infrastructure, listed
// everywhere by default), -A all.
func (f *liveFlags) namespace() (string, error) {
	ns := ""
	if f.config.Namespace != nil {
		ns = *f.config.Namespace
	}
	if ns != "" && f.allNamespaces {
		return "", cli.UsageError("-n/--namespace and -A/--all-namespaces: give one")
	}
	return ns, nil
}

// connector makes a client from the flags and names the cluster it talks
// to (the kubeconfig context); tests pass a fake one.
type connector func(f *liveFlags) (kubernetes.Interface, string, error)

// connect loads the kubeconfig as kubectl does.
func connect(f *liveFlags) (kubernetes.Interface, string, error) {
	cfg, err := f.config.ToRESTConfig()
	if err != nil {
		return nil, "", fmt.Errorf("kubeconfig: %w", err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, "", fmt.Errorf("kubeconfig: %w", err)
	}
	return cs, f.contextName(), nil
}

// fetch connects and lists once.
func fetch(f *liveFlags, conn connector) (*snapshot.Snapshot, string, error) {
	ns, err := f.namespace()
	if err != nil {
		return nil, "", err
	}
	cs, name, err := conn(f)
	if err != nil {
		return nil, "", err
	}
	s, err := list(context.Background(), cs, ns)
	if err != nil {
		return nil, "", err
	}
	where := "context " + name
	if name == "" {
		where = "the cluster"
	}
	if ns != "" {
		where += ", namespace " + ns
	}
	return s, where, nil
}

// Main is the command as a program runs it: os.Args, the standard
// streams, a real cluster. Installed as kubectl-dsplan (a kubectl plugin:
// kubectl dsplan plan), its help says "kubectl dsplan".
func Main() int {
	return run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, programName(os.Args[0]), connect)
}

// Run is the command with the given arguments and streams, on the cluster
// its kubeconfig flags name (as kubectl loads them): what Main runs, for a
// program or a test that has a cluster of its own. It returns the exit
// code.
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

// run is the command: dsplan's commands on -f files holding a capture, or
// on the objects a listing of the cluster returns (with -f manifests
// applied over them), dump and the rollout commands.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, program string, conn connector) int {
	lf := newLiveFlags()
	return cli.Run(args, stdin, stdout, stderr, cli.Options{
		Program: program,
		Flags:   lf.register,
		Source: func(cli.Flags) (cli.Input, error) {
			s, where, err := fetch(lf, conn)
			if err != nil {
				return cli.Input{}, err
			}
			return cli.Input{Snapshot: s, Sources: []string{where}}, nil
		},
		Commands: func() []*cobra.Command {
			return []*cobra.Command{rolloutCommand(lf, stdout, program, conn), dumpCommand(lf, stdout, conn)}
		},
	})
}

// dumpCommand prints the listing as one List, for dsplan -f -.
func dumpCommand(lf *liveFlags, stdout io.Writer, conn connector) *cobra.Command {
	return &cobra.Command{
		Use:   "dump",
		Short: "print the cluster's listing as one kubectl List, for -f or to keep",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			s, _, err := fetch(lf, conn)
			if err != nil {
				return asInput(err)
			}
			data, err := s.Encode()
			if err != nil {
				return &cli.ExitError{Code: 1, Err: err}
			}
			if _, err := stdout.Write(data); err != nil {
				return &cli.ExitError{Code: 1, Err: err}
			}
			return nil
		},
	}
}

// asInput is err as the exit code it calls for: a usage error (2) as it
// is, anything else 1.
func asInput(err error) error {
	if cli.IsUsageError(err) {
		return err
	}
	return &cli.ExitError{Code: 1, Err: err}
}

// chunkSize is the page size of the lists, kubectl's (--chunk-size).
const chunkSize = 500

// list reads the four kinds once, read-only, in pages of chunkSize
// (client-go's tools/pager, as kubectl get lists).
func list(ctx context.Context, cs kubernetes.Interface, ns string) (*snapshot.Snapshot, error) {
	var s snapshot.Snapshot
	var err error
	if s.DaemonSets, err = listPaged[appsv1.DaemonSet](ctx, "daemonsets", func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		return cs.AppsV1().DaemonSets(ns).List(ctx, o)
	}); err != nil {
		return nil, err
	}
	if s.Nodes, err = listPaged[corev1.Node](ctx, "nodes", func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		return cs.CoreV1().Nodes().List(ctx, o)
	}); err != nil {
		return nil, err
	}
	if s.Pods, err = listPaged[corev1.Pod](ctx, "pods", func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		return cs.CoreV1().Pods(ns).List(ctx, o)
	}); err != nil {
		return nil, err
	}
	if s.Revisions, err = listPaged[appsv1.ControllerRevision](ctx, "controllerrevisions", func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		return cs.AppsV1().ControllerRevisions(ns).List(ctx, o)
	}); err != nil {
		return nil, err
	}
	return &s, nil
}

// listPaged lists one kind in pages of chunkSize and returns its items.
func listPaged[T any](ctx context.Context, what string, page pager.ListPageFunc) ([]*T, error) {
	p := pager.New(page)
	p.PageSize = chunkSize
	var out []*T
	err := p.EachListItem(ctx, metav1.ListOptions{}, func(obj runtime.Object) error {
		item, ok := any(obj).(*T)
		if !ok {
			return fmt.Errorf("listing %s: got %T", what, obj)
		}
		out = append(out, item)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", what, err)
	}
	return out, nil
}
