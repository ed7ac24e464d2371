package companion

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// TestReadOutcome: the outcome is the annotation's; a latch an earlier
// companion kept at the end of RolloutPaused's message is read once (to
// be moved to the annotation), and no message the companion writes now
// carries one.
func TestReadOutcome(t *testing.T) {
	legacy := func(reason, msg string) []appsv1.DaemonSetCondition {
		return []appsv1.DaemonSetCondition{condition(ConditionPaused, true, reason, msg)}
	}
	f := "false"
	recorded := &progressive.Outcome{Reason: progressive.OutcomeHealthGateFailed, Revision: "h2"}
	tests := []struct {
		name       string
		ann        *progressive.Annotations
		conds      []appsv1.DaemonSetCondition
		want       *progressive.Outcome
		wantLegacy bool
	}{
		{name: "the annotation", ann: &progressive.Annotations{Outcome: recorded}, want: recorded},
		{name: "the annotation wins over an old message", ann: &progressive.Annotations{Outcome: recorded},
			conds: legacy(ReasonProgressDeadlineExceeded, "paused itself: x [paused=unset revision=h1]"), want: recorded},
		{name: "an old message, paused unset", conds: legacy(ReasonHealthGateFailed, "paused itself: a health gate failed on the new revision; change the template or the rollout.daemonplan.io/paused annotation to resume [paused=unset revision=57b66bf88d]"),
			want: &progressive.Outcome{Reason: progressive.OutcomeHealthGateFailed, Revision: "57b66bf88d"}, wantLegacy: true},
		{name: "an old message, paused false", conds: legacy(ReasonProgressDeadlineExceeded, "paused itself [paused=false revision=h1]"),
			want: &progressive.Outcome{Reason: progressive.OutcomeProgressDeadlineExceeded, Revision: "h1", Paused: &f}, wantLegacy: true},
		{name: "a pause by annotation is no latch", conds: legacy(ReasonPausedByAnnotation, "paused [paused=true revision=h1]")},
		{name: "a message without state", conds: legacy(ReasonHealthGateFailed, "paused itself: a health gate failed")},
		{name: "nothing recorded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := companionDS(nil)
			ds.Status.Conditions = tt.conds
			got, isLegacy := readOutcome(ds, tt.ann)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("readOutcome() (-want +got):\n%s", diff)
			}
			if isLegacy != tt.wantLegacy {
				t.Errorf("legacy = %v, want %v", isLegacy, tt.wantLegacy)
			}
		})
	}
	o := progressive.Outcome{Reason: progressive.OutcomeHealthGateFailed, Revision: "h1"}
	for _, msg := range []string{latchMessage("ns/ds", &o, "revision 2 (h1)", 5*time.Minute, ""), latchMessage("ns/ds", &o, "revision 2 (h1)", 0, "on-failure rollback: none")} {
		if strings.Contains(msg, "[") || strings.Contains(msg, "revision=") {
			t.Errorf("latch message %q carries state", msg)
		}
	}
}

// TestProgressSince: the progress clock starts at the latest of the
// revision's creation, the last resume and the end of the last approval
// or window hold; a wait for an approval or a window is not a lack of
// progress.
func TestProgressSince(t *testing.T) {
	created := t0.Add(-3 * time.Hour)
	at := func(c appsv1.DaemonSetCondition, since time.Time) appsv1.DaemonSetCondition {
		c.LastTransitionTime = metav1.NewTime(since)
		return c
	}
	notPaused := func(since time.Time) appsv1.DaemonSetCondition {
		return at(condition(ConditionPaused, false, ReasonNotPaused, messageNotPaused), since)
	}
	tests := []struct {
		name  string
		conds []appsv1.DaemonSetCondition
		want  time.Time
	}{
		{name: "the companion's first look", want: t0},
		{name: "the revision's creation", conds: []appsv1.DaemonSetCondition{notPaused(created.Add(-time.Hour))}, want: created},
		{name: "the last resume", conds: []appsv1.DaemonSetCondition{notPaused(t0.Add(-time.Hour))}, want: t0.Add(-time.Hour)},
		{name: "resumed now", conds: []appsv1.DaemonSetCondition{at(condition(ConditionPaused, true, ReasonPausedByAnnotation, ""), created)}, want: t0},
		{name: "a hold ends now", conds: []appsv1.DaemonSetCondition{notPaused(created),
			at(condition(ConditionProgressing, true, ReasonOutsideWindow, ""), created)}, want: t0},
		{name: "updating since the last hold ended", conds: []appsv1.DaemonSetCondition{notPaused(created),
			at(condition(ConditionProgressing, true, ReasonUpdating, ""), t0.Add(-time.Minute))}, want: t0.Add(-time.Minute)},
		{name: "updating since before the revision", conds: []appsv1.DaemonSetCondition{notPaused(created.Add(-2 * time.Hour)),
			at(condition(ConditionProgressing, true, ReasonUpdating, ""), created.Add(-time.Hour))}, want: created},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &rolloutSync{now: t0, ds: companionDS(nil), rev: &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(created)}}}
			r.ds.Status.Conditions = tt.conds
			if got := progressSince(r); !got.Equal(tt.want) {
				t.Errorf("progressSince = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestReasonChangeIsATransition: RolloutProgressing going from
// OutsideWindow to Updating (both True) takes a new lastTransitionTime,
// which progressSince reads; a message alone keeps it.
func TestReasonChangeIsATransition(t *testing.T) {
	then := metav1.NewTime(t0.Add(-time.Hour))
	have := []appsv1.DaemonSetCondition{condition(ConditionProgressing, true, ReasonOutsideWindow, "a")}
	have[0].LastTransitionTime = then
	for _, tt := range []struct {
		name string
		want appsv1.DaemonSetCondition
		at   metav1.Time
	}{
		{name: "a new reason", want: condition(ConditionProgressing, true, ReasonUpdating, "a"), at: metav1.NewTime(t0)},
		{name: "a new message", want: condition(ConditionProgressing, true, ReasonOutsideWindow, "b"), at: then},
	} {
		got := conditionChanges(have, []appsv1.DaemonSetCondition{tt.want}, t0)
		if len(got) != 1 || !got[0].LastTransitionTime.Equal(&tt.at) {
			t.Errorf("%s: changes %+v, want lastTransitionTime %s", tt.name, got, tt.at)
		}
	}
}
