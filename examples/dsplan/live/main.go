// Command live lists, read-only, what dsplan reads from a running cluster:
// the DaemonSets, nodes, pods and ControllerRevisions, once, and prints them
// as one kubectl-style List that dsplan reads from stdin:
//
//	cd examples/dsplan/live
//	go run . --context prod -n kube-system | (cd ../../.. && go run ./examples/dsplan plan -f -)
//
// It lives in a module of its own because it needs client-go, which the
// root module never imports. It only lists (get and list verbs on
// daemonsets, controllerrevisions, pods and nodes); it never writes.
//
// Flags: --kubeconfig FILE and --context NAME as kubectl (default: $KUBECONFIG
// or ~/.kube/config, its current context); -n NAMESPACE (default: all
// namespaces); --timeout. Exit codes: 0 listed, 1 the cluster could not be
// reached or listed, 2 usage.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/daemonplan/daemonplan/daemon/snapshot"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("live", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig `FILE` (default: $KUBECONFIG or ~/.kube/config)")
	kubeContext := fs.String("context", "", "kubeconfig context `NAME` (default: the current context)")
	namespace := fs.String("n", "", "list DaemonSets, pods and revisions of `NAMESPACE` only (default: all)")
	timeout := fs.Duration("timeout", 30*time.Second, "time allowed for the listing")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "live: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = *kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: *kubeContext}).ClientConfig()
	if err != nil {
		fmt.Fprintf(stderr, "live: kubeconfig: %v\n", err)
		return 1
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "live: %v\n", err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	s, err := list(ctx, cs, *namespace)
	if err != nil {
		fmt.Fprintf(stderr, "live: %v\n", err)
		return 1
	}
	data, err := s.Encode()
	if err != nil {
		fmt.Fprintf(stderr, "live: %v\n", err)
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
	s := &snapshot.Snapshot{}
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
	s.DaemonSets = pointers[appsv1.DaemonSet](dss.Items)
	s.Nodes = pointers[corev1.Node](nodes.Items)
	s.Pods = pointers[corev1.Pod](pods.Items)
	s.Revisions = pointers[appsv1.ControllerRevision](revs.Items)
	return s, nil
}

func pointers[T any](items []T) []*T {
	out := make([]*T, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}
