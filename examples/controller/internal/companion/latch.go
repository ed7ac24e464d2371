package companion

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// A latch is a rollout that stopped itself: at its progress deadline
// (progressive.OutcomeProgressDeadlineExceeded) or on a failed health
// gate (progressive.OutcomeHealthGateFailed). It holds until a person
// acts: a new template, or a change of the paused annotation ("kubectl
// dsplan rollout resume" makes one). Its state is a progressive.Outcome,
// kept in the DaemonSet's rollout.daemonplan.io/outcome annotation (the
// companion's own), so that it survives a restart of the companion; a
// rollback (progressive.OutcomeRolledBack) is kept there too, and holds
// no deletes.

// legacyLatchState is the latch state companions before the outcome
// annotation kept at the end of RolloutPaused's message: read once, then
// moved to the annotation (readOutcome).
var legacyLatchState = regexp.MustCompile(`\s*\[paused=(unset|true|false) revision=([^\]\s]*)\]$`)

// readOutcome returns the outcome recorded for ds: its outcome annotation
// (a, parsed with the other rollout annotations), or else the latch state
// an earlier companion left at the end of a RolloutPaused condition True
// with a latch's reason; legacy says it came from there, so that the
// caller moves it to the annotation.
func readOutcome(ds *appsv1.DaemonSet, a *progressive.Annotations) (o *progressive.Outcome, legacy bool) {
	if a != nil && a.Outcome != nil {
		return a.Outcome, false
	}
	c := findCondition(ds.Status.Conditions, ConditionPaused)
	if c == nil || c.Status != corev1.ConditionTrue {
		return nil, false
	}
	reason := progressive.OutcomeReason(c.Reason)
	if reason != progressive.OutcomeProgressDeadlineExceeded && reason != progressive.OutcomeHealthGateFailed {
		return nil, false
	}
	m := legacyLatchState.FindStringSubmatch(c.Message)
	if m == nil {
		return nil, false
	}
	out := &progressive.Outcome{Reason: reason, Revision: m[2]}
	if m[1] != "unset" {
		v := m[1]
		out.Paused = &v
	}
	return out, true
}

// resumeHint says how a person ends an outcome of the DaemonSet key.
func resumeHint(key string) string {
	return fmt.Sprintf("a new template, or kubectl dsplan rollout resume %s (a change of the %s annotation), ends it", key, progressive.AnnotationPaused)
}

// latchMessage is the RolloutPaused message of a latch l of the
// DaemonSet key at revision rev: why it stopped, what else happened (note,
// "" for nothing) and how to resume. deadline is the progress deadline it
// stopped at.
func latchMessage(key string, l *progressive.Outcome, rev string, deadline time.Duration, note string) string {
	why := fmt.Sprintf("no node became updated and available on %s for %s", rev, deadline)
	if l.Reason == progressive.OutcomeHealthGateFailed {
		why = "a health gate failed on " + rev
	}
	if note != "" {
		why += "; " + note
	}
	return fmt.Sprintf("paused itself: %s; %s", why, resumeHint(key))
}

// outcomePatch is the patch of ds's metadata that sets its outcome
// annotation to o, or removes it (nil o), with ds's uid as a precondition.
func outcomePatch(ds *appsv1.DaemonSet, o *progressive.Outcome) ([]byte, error) {
	var v any
	if o != nil {
		v = o.Format()
	}
	return json.Marshal(map[string]any{
		"metadata": map[string]any{
			"uid":         ds.UID,
			"annotations": map[string]any{progressive.AnnotationOutcome: v},
		},
	})
}

// writeOutcome records r's outcome in the DaemonSet's outcome annotation
// when it changed: a fresh latch, a latch an earlier companion kept in a
// message, or an outcome that no longer holds (removed). It returns
// whether the annotation now says what r found; a write that fails is an
// error in errs, tried again in the next sync.
func (c *Companion) writeOutcome(ctx context.Context, r *rolloutSync, errs *syncer.ErrorList) bool {
	var o *progressive.Outcome
	switch {
	case r.latched && (r.fresh || r.legacy):
		o = &r.l
	case r.staleOutcome:
	default:
		return true
	}
	patch, err := outcomePatch(r.ds, o)
	if err == nil {
		var written *appsv1.DaemonSet
		written, err = c.Client.AppsV1().DaemonSets(r.ds.Namespace).Patch(ctx, r.ds.Name, types.StrategicMergePatchType, patch,
			metav1.PatchOptions{FieldManager: fieldManager})
		if err == nil {
			c.Fence.Wrote(r.key, syncer.FenceDaemonSets, written.ResourceVersion)
			c.Metrics.Actions.WithLabelValues("outcome", "Rollout").Inc()
			return true
		}
	}
	c.Metrics.ActionErrors.WithLabelValues("outcome").Inc()
	errs.Add(fmt.Errorf("record the outcome (%s): %w", progressive.AnnotationOutcome, err))
	return false
}
