package syncer

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
)

func TestExpectations(t *testing.T) {
	const key = "ns/ds"
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	type step struct {
		expect    *[2]any // creates int, deletes []types.UID
		created   int
		deleted   []types.UID
		forget    bool
		advance   time.Duration
		satisfied bool
		pending   [2]int
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{
			name:  "nothing expected is satisfied",
			steps: []step{{satisfied: true}},
		},
		{
			name: "creates are counted down",
			steps: []step{
				{expect: &[2]any{3, []types.UID(nil)}, satisfied: false, pending: [2]int{3, 0}},
				{created: 2, satisfied: false, pending: [2]int{1, 0}},
				{created: 1, satisfied: true},
				{created: 1, satisfied: true}, // an extra observation does not go negative
			},
		},
		{
			name: "deletes are tracked by UID and observing one twice counts once",
			steps: []step{
				{expect: &[2]any{0, []types.UID{"a", "b"}}, satisfied: false, pending: [2]int{0, 2}},
				{deleted: []types.UID{"a", "a", "zzz"}, satisfied: false, pending: [2]int{0, 1}},
				{deleted: []types.UID{"b"}, satisfied: true},
			},
		},
		{
			name: "creates and deletes both needed",
			steps: []step{
				{expect: &[2]any{1, []types.UID{"a"}}, satisfied: false, pending: [2]int{1, 1}},
				{created: 1, satisfied: false, pending: [2]int{0, 1}},
				{deleted: []types.UID{"a"}, satisfied: true},
			},
		},
		{
			name: "the timeout satisfies stale expectations",
			steps: []step{
				{expect: &[2]any{5, []types.UID{"a"}}, satisfied: false, pending: [2]int{5, 1}},
				{advance: time.Minute, satisfied: false, pending: [2]int{5, 1}},
				{advance: time.Minute + time.Second, satisfied: true, pending: [2]int{5, 1}},
			},
		},
		{
			name: "a new expectation replaces the old and restarts the timeout",
			steps: []step{
				{expect: &[2]any{5, []types.UID(nil)}, satisfied: false, pending: [2]int{5, 0}},
				{advance: 3 * time.Minute, satisfied: true, pending: [2]int{5, 0}},
				{expect: &[2]any{1, []types.UID(nil)}, satisfied: false, pending: [2]int{1, 0}},
			},
		},
		{
			name: "forget drops everything",
			steps: []step{
				{expect: &[2]any{2, []types.UID{"a"}}, satisfied: false, pending: [2]int{2, 1}},
				{forget: true, satisfied: true},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clocktesting.NewFakePassiveClock(t0)
			e := newExpectations(clk, 2*time.Minute)
			for i, s := range tt.steps {
				clk.SetTime(clk.Now().Add(s.advance))
				if s.expect != nil {
					e.Expect(key, s.expect[0].(int), s.expect[1].([]types.UID))
				}
				for range s.created {
					e.CreationObserved(key)
				}
				for _, uid := range s.deleted {
					e.DeletionObserved(key, uid)
				}
				if s.forget {
					e.Forget(key)
				}
				if got := e.Satisfied(key); got != s.satisfied {
					t.Errorf("step %d: Satisfied() = %v, want %v", i, got, s.satisfied)
				}
				c, d := e.Pending(key)
				if diff := cmp.Diff(s.pending, [2]int{c, d}); diff != "" {
					t.Errorf("step %d: Pending() (-want,+got):\n%s", i, diff)
				}
				if !e.Satisfied("other/key") {
					t.Errorf("step %d: another key is not satisfied", i)
				}
			}
		})
	}
}
