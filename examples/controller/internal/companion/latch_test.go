package companion

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
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
