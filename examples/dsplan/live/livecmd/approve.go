package livecmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/examples/dsplan/internal/cli"
)

const approveHelp = `Approves the rollout of the DaemonSet to go on after an approval point: a
wave named in its rollout.daemonplan.io/pause-after annotation ("canary",
"every-wave", or values of the order label) after which the rollout waits for
a person. It records the approval in the rollout.daemonplan.io/approved
annotation as "<revision hash>/<wave>": an approval names the revision, so
that it does not carry over to the next template, and a wave, so that it
covers that approval point and every earlier one, not the later ones.

It judges the rollout as rollout status does (the same plan, judgement and
gates, on the live objects) and, without --wave, approves the point the
rollout waits at; when it waits for nothing (it is under way, held by a
health gate or a maintenance window, paused, or complete) it says what the
rollout is doing and exits 1. --wave approves a point ahead of time: the
one the rollout waits at or a later one (a wave name, "zone=b", or a value
of the order label, "b").

The write is a JSON merge patch on the condition that the DaemonSet is
still at the resourceVersion judged: if anything changed it meanwhile (a
new template, another approval), nothing is written and the command exits 1;
run it again.
`

const approveExample = `  # the rollout waits after its canary: let it go on
  kubectl dsplan rollout status kube-system/agent    # exit 6: waiting for approval after wave canary
  kubectl dsplan rollout approve kube-system/agent

  # approve up to the wave of zone b ahead of time
  kubectl dsplan rollout approve kube-system/agent --wave b`

// approveCommand is "rollout approve NS/NAME [--wave W]".
func approveCommand(lf *liveFlags, stdout io.Writer, program string, conn connector) *cobra.Command {
	var wave string
	c := &cobra.Command{
		Use:     "approve NAMESPACE/NAME",
		Short:   "let a rollout that waits for approval go on after its wave",
		Long:    approveHelp,
		Example: strings.ReplaceAll(approveExample, "kubectl dsplan", program),
		RunE: func(c *cobra.Command, pos []string) error {
			return runApprove(pos, wave, lf, stdout, conn, time.Now)
		},
	}
	c.Flags().StringVar(&wave, "wave", "", "approve up to `WAVE`, an approval point at or after the one the rollout waits at (default: that one)")
	return withExitCodes(c, writeExitCodes("approved",
		"the DaemonSet is not found, or its rollout annotations are invalid; its\n"+
			"     rollout waits for no approval, or --wave names no approval point at or\n"+
			"     after the one it waits at;"))
}

// runApprove is "rollout approve NS/NAME": it reads the DaemonSet and
// what its plan reads, assesses the rollout, decides the approval and
// records it.
func runApprove(pos []string, wave string, lf *liveFlags, stdout io.Writer, conn connector, clock func() time.Time) error {
	t, err := parseTarget(pos)
	if err != nil {
		return err
	}
	cs, where, err := connectTo(lf, conn)
	if err != nil {
		return err
	}
	ctx := context.Background()
	ds, err := getDaemonSet(ctx, cs, t, where)
	if err != nil {
		return &cli.ExitError{Code: 1, Err: err}
	}
	s, err := list(ctx, cs, t.ns)
	if err != nil {
		return &cli.ExitError{Code: 1, Err: fmt.Errorf("daemonset %s (%s): %w", t, where, err)}
	}
	a, err := assess(ds, s.Nodes, s.Pods, s.Revisions, clock())
	if err != nil {
		return &cli.ExitError{Code: 1, Err: err}
	}
	d, err := decideApproval(a, t.String(), wave)
	if err != nil {
		return &cli.ExitError{Code: 1, Err: err}
	}
	value := d.approval.String()
	patch, err := annotationPatch(ds.ResourceVersion, map[string]*string{progressive.AnnotationApproved: &value})
	if err != nil {
		return &cli.ExitError{Code: 1, Err: err}
	}
	if _, err := patchDaemonSet(ctx, cs, ds, types.MergePatchType, patch, "approving"); err != nil {
		return &cli.ExitError{Code: 1, Err: err}
	}
	fmt.Fprintf(stdout, "daemonset %s approved: %s=%s (%s)\n", t, progressive.AnnotationApproved, value, d.says)
	return nil
}

// approvalDecision is what approve records and says.
type approvalDecision struct {
	approval progressive.Approval
	// says is what the approval does, in words.
	says string
}

// errNothingToApprove starts the error of an approval with nothing to
// approve.
var errNothingToApprove = errors.New("nothing to approve")

// decideApproval decides the approval of the rollout a assesses (of the
// DaemonSet key): without wave, of the point it waits at; with wave, of
// that approval point (a wave name or a value of the order label), which
// must not come before the point it waits at nor be approved already.
func decideApproval(a assessment, key, wave string) (approvalDecision, error) {
	j, hold := a.judged, a.hold
	if j.Complete {
		return approvalDecision{}, fmt.Errorf("%w: the rollout of daemonset %s is complete (%s)", errNothingToApprove, key, j.Reason)
	}
	hash := a.plan.Hash
	if hash == "" {
		return approvalDecision{}, fmt.Errorf("%w: daemonset %s has no current revision to approve yet (%s)", errNothingToApprove, key, j.Reason)
	}
	waves := make([]string, len(j.Waves))
	for i, w := range j.Waves {
		waves[i] = w.Wave
	}
	if wave == "" {
		if hold.Cause != progressive.HoldApproval {
			return approvalDecision{}, fmt.Errorf("%w: daemonset %s does not wait for approval: %s", errNothingToApprove, key, doing(a))
		}
		return approvalDecision{
			approval: progressive.Approval{Hash: hash, Wave: hold.Wave},
			says:     fmt.Sprintf("the rollout goes on after wave %s of revision %s", hold.Wave, hash),
		}, nil
	}
	label := a.rollout.Policy.Order.Label
	points := a.gates.Points(waves)
	name := wave
	if !slices.Contains(points, name) && label != "" && slices.Contains(points, label+"="+wave) {
		name = label + "=" + wave
	}
	if !slices.Contains(points, name) {
		have := "it has none (" + progressive.AnnotationPauseAfter + " names none of its waves)"
		if len(points) > 0 {
			have = "its approval points are " + strings.Join(points, ", ")
		}
		return approvalDecision{}, fmt.Errorf("--wave %q: not an approval point of daemonset %s; %s", wave, key, have)
	}
	at := slices.Index(waves, name)
	if hold.Cause == progressive.HoldApproval && at < slices.Index(waves, hold.Wave) {
		return approvalDecision{}, fmt.Errorf("--wave %q: wave %s comes before wave %s, where the rollout of daemonset %s waits: approve that one or a later one", wave, name, hold.Wave, key)
	}
	if ap := a.gates.Approved; ap != nil && ap.Hash == hash && slices.Index(waves, ap.Wave) >= at {
		return approvalDecision{}, fmt.Errorf("%w: daemonset %s has revision %s approved through wave %s already (%s=%s)",
			errNothingToApprove, key, hash, ap.Wave, progressive.AnnotationApproved, ap)
	}
	says := fmt.Sprintf("the rollout goes on after wave %s of revision %s", name, hash)
	if hold.Cause != progressive.HoldApproval || hold.Wave != name {
		says = fmt.Sprintf("approved ahead of time: the approval points of revision %s up to wave %s will not hold the rollout", hash, name)
	}
	return approvalDecision{approval: progressive.Approval{Hash: hash, Wave: name}, says: says}, nil
}

// doing says what a rollout that waits for no approval is doing: the gate
// that holds it, or its judgement, and whether it is paused.
func doing(a assessment) string {
	if a.hold.Held() {
		return cli.HoldText(a.hold, "", "")
	}
	return a.judged.Reason.String()
}
