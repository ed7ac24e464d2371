package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
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

// run is the command: dump, or dsplan's commands on a live Source.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, conn connector) int {
	if len(args) > 0 && args[0] == "dump" {
		return runDump(args[1:], stdout, stderr, conn)
	}
	lf := &liveFlags{}
	return cli.Run(args, stdin, stdout, stderr, cli.Options{
		Flags: lf.register,
		Source: func(f cli.Flags) (cli.Input, error) {
			if len(f.Files) > 0 {
				return cli.Input{}, cli.UsageError("-f: the live mode lists the cluster; to read files, use examples/dsplan")
			}
			s, where, err := fetch(lf, conn)
			if err != nil {
				return cli.Input{}, err
			}
			return cli.Input{Snapshot: s, Sources: []string{where}}, nil
		},
	})
}

// runDump prints the listing as one List, for dsplan -f -.
func runDump(args []string, stdout, stderr io.Writer, conn connector) int {
	fs := flag.NewFlagSet("live dump", flag.ContinueOnError)
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
		fmt.Fprintf(stderr, "live dump: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	s, _, err := fetch(lf, conn)
	if err != nil {
		fmt.Fprintf(stderr, "live dump: %v\n", err)
		return 1
	}
	data, err := s.Encode()
	if err != nil {
		fmt.Fprintf(stderr, "live dump: %v\n", err)
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
