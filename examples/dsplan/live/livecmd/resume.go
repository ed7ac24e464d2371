package livecmd

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/examples/dsplan/internal/cli"
)

const resumeHelp = `Resumes a paused rollout: one paused by the rollout.daemonplan.io/paused
annotation, or one the companion paused itself (its RolloutPaused
condition is True: a health gate failed, or no node became updated and
available for the progress deadline).

The companion keeps its own pause until a person acts: a new template, or a
change of the paused annotation. This command makes that change:
  - "true" (or any value but "false") becomes "false";
  - absent becomes "false";
  - "false" is removed.
It says what it changed. A rollout that is paused in no way is left alone
(exit 1).

After a rollback (the companion's on-failure: rollback, or rollout undo),
rollout status exits 7 and kstatus and the Argo CD health check call the
change failed until a person acts: this command is that act, the
acknowledgement (or a new template). Resuming after a failed health gate lets the rollout go on with
the same revision: if its pods still fail, the companion pauses it again;
kubectl dsplan rollout undo rolls it back instead. A new template lifts the
companion's pause by itself.

The write is a JSON merge patch on the condition that the DaemonSet is
still at the resourceVersion read.
`

const resumeExample = `  # the companion paused the rollout at a health gate; the cause is fixed
  kubectl dsplan rollout resume kube-system/agent`

// resumeCommand is "rollout resume NS/NAME".
func resumeCommand(lf *liveFlags, stdout io.Writer, program string, conn connector) *cobra.Command {
	c := &cobra.Command{
		Use:     "resume NAMESPACE/NAME",
		Short:   "resume a rollout paused by annotation or by the companion",
		Long:    strings.ReplaceAll(resumeHelp, "kubectl dsplan", program),
		Example: strings.ReplaceAll(resumeExample, "kubectl dsplan", program),
		RunE: func(c *cobra.Command, pos []string) error {
			return runResume(pos, lf, stdout, conn)
		},
	}
	return withExitCodes(c, writeExitCodes("resumed", "the DaemonSet is not found, or its rollout is not paused;"))
}

// runResume is "rollout resume NS/NAME".
func runResume(pos []string, lf *liveFlags, stdout io.Writer, conn connector) error {
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
	ch, err := resumeChange(ds)
	if err != nil {
		return &cli.ExitError{Code: 1, Err: err}
	}
	patch, err := annotationPatch(ds.ResourceVersion, map[string]*string{progressive.AnnotationPaused: ch.to})
	if err != nil {
		return &cli.ExitError{Code: 1, Err: err}
	}
	if _, err := patchDaemonSet(ctx, cs, ds, types.MergePatchType, patch, "resuming"); err != nil {
		return &cli.ExitError{Code: 1, Err: err}
	}
	fmt.Fprintf(stdout, "daemonset %s resumed: %s\n", t, ch.says)
	return nil
}

// pauseChange is the change of the paused annotation that resumes a
// rollout.
type pauseChange struct {
	// to is the annotation's new value, nil to remove it.
	to *string
	// says what changed and what it lifts, in words.
	says string
}

// resumeChange decides the change of ds's paused annotation that resumes
// its rollout: any value but "false", or none, becomes "false"; "false" is
// removed. A rollout paused neither by the annotation nor by its
// controller (a RolloutPaused condition True with the reason of a pause
// the companion took itself, latchReasons) is an error naming the
// DaemonSet.
func resumeChange(ds *appsv1.DaemonSet) (pauseChange, error) {
	key := ds.Namespace + "/" + ds.Name
	v, set := ds.Annotations[progressive.AnnotationPaused]
	var lifted []string
	if set && v != "false" {
		lifted = append(lifted, fmt.Sprintf("the pause the annotation asked for (%s)", strconv.Quote(v)))
	}
	if c := progressive.FindCondition(ds, progressive.ConditionPaused); c != nil && c.Status == corev1.ConditionTrue && slices.Contains(latchReasons, c.Reason) {
		lifted = append(lifted, fmt.Sprintf("the controller's own pause (RolloutPaused %s: %s)", c.Reason, c.Message))
	}
	if a, err := progressive.ParseAnnotations(ds.Annotations); err == nil && a != nil && a.Outcome != nil && a.Outcome.Reason == progressive.OutcomeRolledBack {
		// Whether it still holds needs the template's hash; a resume
		// acknowledges a rollback recorded for any revision.
		lifted = append(lifted, fmt.Sprintf("the rollback's failed-change outcome (rolled back from %s to %s): it acknowledges the rollback", a.Outcome.From, a.Outcome.Revision))
	}
	if len(lifted) == 0 {
		state := "absent"
		if set {
			state = strconv.Quote(v)
		}
		return pauseChange{}, fmt.Errorf("nothing to resume: daemonset %s is not paused (%s is %s and its controller has not paused it itself: no RolloutPaused condition is True with reason %s)",
			key, progressive.AnnotationPaused, state, strings.Join(latchReasons, " or "))
	}
	from := "absent"
	if set {
		from = strconv.Quote(v)
	}
	ch := pauseChange{}
	if set && v == "false" {
		ch.says = fmt.Sprintf("%s removed (was %s)", progressive.AnnotationPaused, from)
	} else {
		f := "false"
		ch.to = &f
		ch.says = fmt.Sprintf("%s set to \"false\" (was %s)", progressive.AnnotationPaused, from)
	}
	ch.says += "; this lifts " + strings.Join(lifted, " and ")
	return ch, nil
}
