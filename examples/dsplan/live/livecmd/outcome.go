package livecmd

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// What rollout status says of a rolled-back change: the outcome the
// companion's on-failure: rollback, or rollout undo, recorded in the
// DaemonSet's rollout.daemonplan.io/outcome annotation
// (progressive.Outcome), while it holds for the current template.

// rolledBack returns the rollback recorded for ds (r, its rollout, holds
// its parsed outcome annotation) that still holds at revision hash: the
// template is the restored one and the paused annotation unchanged since;
// nil otherwise.
func rolledBack(r progressive.Rollout, ds *appsv1.DaemonSet, hash string) *progressive.Outcome {
	if r.Annotations == nil {
		return nil
	}
	o := r.Annotations.Outcome
	if o == nil || o.Reason != progressive.OutcomeRolledBack || !o.Holds(ds, hash) {
		return nil
	}
	return o
}

// rolledBackText says what rollback o undid: "rolled back from revision 5
// (h5) to revision 6 (h4) by on-failure: rollback (health gate failed:
// ...)", the revisions named by ds's ControllerRevisions among revs.
func rolledBackText(o *progressive.Outcome, revs []*appsv1.ControllerRevision, ds *appsv1.DaemonSet) string {
	name := func(hash string) string {
		for _, rev := range revs {
			if metav1.IsControlledBy(rev, ds) && rev.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == hash {
				return fmt.Sprintf("revision %d (%s)", rev.Revision, hash)
			}
		}
		return "revision " + hash
	}
	by := "by on-failure: rollback"
	if o.By == progressive.RolledBackByUndo {
		by = "by rollout undo"
	}
	s := fmt.Sprintf("rolled back from %s to %s %s", name(o.From), name(o.Revision), by)
	if o.Why != "" {
		s += " (" + o.Why + ")"
	}
	return s
}

// acknowledgeHint says how a person ends a rollback's outcome.
func acknowledgeHint(program, key string) string {
	return fmt.Sprintf("a new template, or %s rollout resume %s (acknowledges it), ends this", program, key)
}
