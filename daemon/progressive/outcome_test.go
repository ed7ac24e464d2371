package progressive_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon/progressive"
)

func TestOutcomeHolds(t *testing.T) {
	withPaused := func(v *string) *appsv1.DaemonSet {
		ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent", Annotations: map[string]string{progressive.AnnotationOnFailure: "rollback"}}}
		if v != nil {
			ds.Annotations[progressive.AnnotationPaused] = *v
		}
		return ds
	}
	stopped := progressive.Outcome{Reason: progressive.OutcomeHealthGateFailed, Revision: "h1"}
	tests := []struct {
		name string
		o    *progressive.Outcome
		ds   *appsv1.DaemonSet
		hash string
		want bool
	}{
		{name: "same revision, paused still absent", o: &stopped, ds: withPaused(nil), hash: "h1", want: true},
		{name: "a new template ends it", o: &stopped, ds: withPaused(nil), hash: "h2", want: false},
		{name: "resume sets paused false: ends it", o: &stopped, ds: withPaused(ptr("false")), hash: "h1", want: false},
		{name: "recorded false, still false", o: &progressive.Outcome{Reason: progressive.OutcomeRolledBack, Revision: "h1", Paused: ptr("false"), From: "h0", By: "undo"},
			ds: withPaused(ptr("false")), hash: "h1", want: true},
		{name: "recorded false, resume removed it: ends it", o: &progressive.Outcome{Reason: progressive.OutcomeRolledBack, Revision: "h1", Paused: ptr("false"), From: "h0", By: "undo"},
			ds: withPaused(nil), hash: "h1", want: false},
		{name: "a nil outcome holds nothing", o: nil, ds: withPaused(nil), hash: "h1", want: false},
		{name: "a nil DaemonSet", o: &stopped, ds: nil, hash: "h1", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before *appsv1.DaemonSet
			if tt.ds != nil {
				before = tt.ds.DeepCopy()
			}
			if got := tt.o.Holds(tt.ds, tt.hash); got != tt.want {
				t.Errorf("Holds() = %v, want %v", got, tt.want)
			}
			if tt.ds != nil {
				if diff := cmp.Diff(before, tt.ds); diff != "" {
					t.Errorf("Holds() modified its input (-before +after):\n%s", diff)
				}
			}
		})
	}
}

func TestOutcomeFormatParse(t *testing.T) {
	tests := []struct {
		name string
		in   progressive.Outcome
		want string
	}{
		{name: "a pause at a health gate", in: progressive.Outcome{Reason: progressive.OutcomeHealthGateFailed, Revision: "57b66bf88d"},
			want: `{"reason":"HealthGateFailed","revision":"57b66bf88d","paused":null}`},
		{name: "a rollback, with the hold in words (no HTML escapes)",
			in: progressive.Outcome{Reason: progressive.OutcomeRolledBack, Revision: "h1", Paused: ptr("true"), From: "h2", By: progressive.RolledBackOnFailure,
				Why: "health gate failed: CrashLoopBackOff on pod agent-x (node n1, container agent: 4 restarts) & more <2>"},
			want: `{"reason":"RolledBack","revision":"h1","paused":"true","from":"h2","by":"on-failure","why":"health gate failed: CrashLoopBackOff on pod agent-x (node n1, container agent: 4 restarts) & more <2>"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.in.Format()
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Format() (-want +got):\n%s", diff)
			}
			back, err := progressive.ParseOutcome(got)
			if err != nil {
				t.Fatalf("ParseOutcome(%s): %v", got, err)
			}
			if diff := cmp.Diff(tt.in, back); diff != "" {
				t.Errorf("ParseOutcome(Format(x)) != x (-x +back):\n%s", diff)
			}
		})
	}
}

func TestOutcomeStops(t *testing.T) {
	tests := []struct {
		name string
		o    *progressive.Outcome
		want bool
	}{
		{name: "health gate", o: &progressive.Outcome{Reason: progressive.OutcomeHealthGateFailed}, want: true},
		{name: "progress deadline", o: &progressive.Outcome{Reason: progressive.OutcomeProgressDeadlineExceeded}, want: true},
		{name: "a rollback rolls the restored revision out", o: &progressive.Outcome{Reason: progressive.OutcomeRolledBack}, want: false},
		{name: "nil", o: nil, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.o.Stops(); got != tt.want {
				t.Errorf("Stops() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestConditionGeneration(t *testing.T) {
	tests := []struct {
		name   string
		c      *appsv1.DaemonSetCondition
		want   int64
		wantOK bool
	}{
		{name: "written by WithGeneration", c: &appsv1.DaemonSetCondition{Message: progressive.WithGeneration("3/4 nodes updated", 8)}, want: 8, wantOK: true},
		{name: "generation 0", c: &appsv1.DaemonSetCondition{Message: progressive.WithGeneration("", 0)}, want: 0, wantOK: true},
		{name: "parentheses inside the message", c: &appsv1.DaemonSetCondition{Message: "waiting (2 nodes) (generation 12)"}, want: 12, wantOK: true},
		{name: "no generation", c: &appsv1.DaemonSetCondition{Message: "the rollout is not paused"}},
		{name: "not a number", c: &appsv1.DaemonSetCondition{Message: "x (generation 1a)"}},
		{name: "negative", c: &appsv1.DaemonSetCondition{Message: "x (generation -1)"}},
		{name: "nil", c: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := progressive.ConditionGeneration(tt.c)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("ConditionGeneration() = %d, %v, want %d, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}
