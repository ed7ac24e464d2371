package companion

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestLatchRoundTrip(t *testing.T) {
	for _, l := range []latch{
		{Reason: ReasonProgressDeadlineExceeded, Hash: "6d5f8b9c7", Paused: "unset"},
		{Reason: ReasonHealthGateFailed, Hash: "6d5f8b9c7", Paused: "false"},
	} {
		for _, note := range []string{"", "on-failure rollback: no revision to roll back to"} {
			conds := []appsv1.DaemonSetCondition{condition(ConditionPaused, true, l.Reason, l.message(5*time.Minute, note))}
			got, ok := readLatch(conds)
			if !ok {
				t.Errorf("readLatch(%q) found none", conds[0].Message)
			}
			if diff := cmp.Diff(l, got); diff != "" {
				t.Errorf("readLatch(%q) (-want +got):\n%s", conds[0].Message, diff)
			}
			conds[0].Reason = ReasonPausedByAnnotation
			if _, ok := readLatch(conds); ok {
				t.Error("a pause by annotation read as a latch")
			}
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

// TestZoneCache: a zone is loaded once; an unknown one is asked again.
func TestZoneCache(t *testing.T) {
	loads := map[string]int{}
	zones := newZoneCache(func(name string) (*time.Location, error) {
		loads[name]++
		return time.LoadLocation(name)
	})
	for range 3 {
		if loc, err := zones("Europe/Amsterdam"); err != nil || loc.String() != "Europe/Amsterdam" {
			t.Fatalf("Europe/Amsterdam: %v, %v", loc, err)
		}
		if _, err := zones("Mars/Olympus_Mons"); err == nil {
			t.Fatal("Mars/Olympus_Mons resolved")
		}
	}
	if diff := cmp.Diff(map[string]int{"Europe/Amsterdam": 1, "Mars/Olympus_Mons": 3}, loads); diff != "" {
		t.Errorf("loads (-want +got):\n%s", diff)
	}
}
