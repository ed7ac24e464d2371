package livecmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/daemonplan/daemonplan/examples/dsplan/internal/cli"
)

// rolloutCommand is "rollout" and its subcommands: status, approve, undo
// and resume, each of one DaemonSet named NAMESPACE/NAME.
func rolloutCommand(lf *liveFlags, stdout io.Writer, program string, conn connector) *cobra.Command {
	rollout := &cobra.Command{
		Use:   "rollout",
		Short: "follow and steer a DaemonSet's rollout: rollout status|approve|undo|resume NS/NAME",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return cli.UsageError(fmt.Sprintf("want a subcommand: %s rollout status|approve|undo|resume NAMESPACE/NAME", program))
		},
	}
	rollout.AddCommand(
		statusCommand(lf, stdout, program, conn),
		approveCommand(lf, stdout, program, conn),
		undoCommand(lf, stdout, program, conn),
		resumeCommand(lf, stdout, program, conn),
	)
	return rollout
}

// writeExitCodes are the exit codes of approve, undo and resume: done
// and failed say their 0 and the first lines of their 1.
func writeExitCodes(done, failed string) string {
	return "Exit codes:\n" +
		"  0  " + done + "\n" +
		"  1  " + failed + "\n" +
		"     the DaemonSet changed while the command ran (nothing was written: run\n" +
		"     it again); the cluster cannot be reached\n" +
		"  2  usage: a missing or malformed NAMESPACE/NAME, a bad flag\n"
}

// withExitCodes sets c's usage to end with its exit codes.
func withExitCodes(c *cobra.Command, codes string) *cobra.Command {
	c.SetUsageTemplate(c.UsageTemplate() + "\n" + codes)
	return c
}

// target is the DaemonSet a rollout subcommand names.
type target struct {
	ns, name string
}

func (t target) String() string { return t.ns + "/" + t.name }

// parseTarget reads the one NAMESPACE/NAME argument.
func parseTarget(pos []string) (target, error) {
	if len(pos) != 1 {
		return target{}, cli.UsageError(fmt.Sprintf("want one NAMESPACE/NAME, got %d arguments", len(pos)))
	}
	ns, name, ok := strings.Cut(pos[0], "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return target{}, cli.UsageError(fmt.Sprintf("%q: want NAMESPACE/NAME", pos[0]))
	}
	return target{ns: ns, name: name}, nil
}

// requestTimeout bounds each read and write of approve, undo and resume.
const requestTimeout = 30 * time.Second

// connectTo connects and names where, as errors say it: "context prod",
// or "the cluster".
func connectTo(lf *liveFlags, conn connector) (kubernetes.Interface, string, error) {
	cs, name, err := conn(lf)
	if err != nil {
		return nil, "", &cli.ExitError{Code: 1, Err: err}
	}
	if name == "" {
		return cs, "the cluster", nil
	}
	return cs, "context " + name, nil
}

// getDaemonSet reads the DaemonSet t names; not found is an error naming
// it and where it was looked for.
func getDaemonSet(ctx context.Context, cs kubernetes.Interface, t target, where string) (*appsv1.DaemonSet, error) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	ds, err := cs.AppsV1().DaemonSets(t.ns).Get(ctx, t.name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, fmt.Errorf("daemonset %s not found (%s)", t, where)
	case err != nil:
		return nil, fmt.Errorf("daemonset %s (%s): %w", t, where, err)
	case ds.DeletionTimestamp != nil:
		return nil, fmt.Errorf("daemonset %s is being deleted", t)
	}
	return ds, nil
}

// annotationPatch is a JSON merge patch that sets the annotations of set
// (a nil value removes the key), on the condition that the DaemonSet is
// still at resourceVersion rv: the API server refuses it with a conflict
// when anything changed the DaemonSet since it was read, so that a
// decision taken on what was read is never written over a newer state.
func annotationPatch(rv string, set map[string]*string) ([]byte, error) {
	return json.Marshal(map[string]any{
		"metadata": map[string]any{"resourceVersion": rv, "annotations": set},
	})
}

// patchDaemonSet sends patch to ds's DaemonSet; what says what the patch
// does, for the errors ("approving", "rolling back").
func patchDaemonSet(ctx context.Context, cs kubernetes.Interface, ds *appsv1.DaemonSet, pt types.PatchType, patch []byte, what string) (*appsv1.DaemonSet, error) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	out, err := cs.AppsV1().DaemonSets(ds.Namespace).Patch(ctx, ds.Name, pt, patch, metav1.PatchOptions{})
	switch {
	case apierrors.IsConflict(err):
		return nil, fmt.Errorf("daemonset %s/%s changed while %s (it was at resourceVersion %s); nothing was written: run the command again", ds.Namespace, ds.Name, what, ds.ResourceVersion)
	case err != nil:
		return nil, fmt.Errorf("daemonset %s/%s: %s: %w", ds.Namespace, ds.Name, what, err)
	}
	return out, nil
}
