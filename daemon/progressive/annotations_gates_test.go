package progressive_test

import (
	"errors"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// health returns the default health gates with max restarts and ready
// timeout.
func health(on bool, maxRestarts int32, readyTimeout time.Duration) progressive.HealthGates {
	return progressive.HealthGates{On: on, MaxRestarts: maxRestarts, ReadyTimeout: readyTimeout}
}

var defaultHealth = health(true, progressive.DefaultMaxRestarts, progressive.DefaultReadyTimeout)

func TestParseAnnotationsGates(t *testing.T) {
	invalid := func(k, v string) *field.Error {
		return field.Invalid(field.NewPath("metadata", "annotations").Key(k), v, "")
	}
	required := func(k string) *field.Error {
		return field.Required(field.NewPath("metadata", "annotations").Key(k), "")
	}
	canary := func(count, spread string) *daemon.CanarySpec {
		return &daemon.CanarySpec{Count: intstr.Parse(count), Spread: spread}
	}
	tests := []struct {
		name       string
		in         map[string]string
		want       *progressive.Annotations
		wantErr    []*field.Error
		wantDetail string // in the error text
	}{
		// The defaults.
		{name: "opting in turns the health gates on", in: map[string]string{pfx + "paused": "false"},
			want: &progressive.Annotations{Gates: progressive.Gates{Health: defaultHealth}, OnFailure: progressive.OnFailurePause}},

		// canary.
		{name: "canary count, no spread", in: map[string]string{pfx + "canary": "2"},
			want: &progressive.Annotations{Policy: daemon.RolloutPolicy{Canary: canary("2", "")}}},
		{name: "canary percentage spread across order-by", in: map[string]string{pfx + "canary": "5%", pfx + "order-by": "zone"},
			want: &progressive.Annotations{Policy: daemon.RolloutPolicy{Canary: canary("5%", "zone"), Order: daemon.UpdateOrder{Label: "zone"}}}},
		{name: "canary spread across domain before order-by", in: map[string]string{pfx + "canary": "3", pfx + "order-by": "zone", pfx + "domain": "rack", pfx + "domain-max-unavailable": "1"},
			want: &progressive.Annotations{Policy: daemon.RolloutPolicy{Canary: canary("3", "rack"), Order: daemon.UpdateOrder{Label: "zone"},
				DomainBudget: &daemon.DomainBudget{Label: "rack", MaxUnavailable: ios("1")}}}},
		{name: "canary 0 is an error", in: map[string]string{pfx + "canary": "0"}, wantErr: []*field.Error{invalid(pfx+"canary", "0")}},
		{name: "canary 101% is an error", in: map[string]string{pfx + "canary": "101%"}, wantErr: []*field.Error{invalid(pfx+"canary", "101%")}},

		// pause-after.
		{name: "pause-after canary", in: map[string]string{pfx + "canary": "1", pfx + "pause-after": "canary"},
			want: &progressive.Annotations{Policy: daemon.RolloutPolicy{Canary: canary("1", "")}, Gates: progressive.Gates{PauseAfter: []string{"canary"}}}},
		{name: "pause-after every-wave and values, spaces dropped", in: map[string]string{pfx + "order-by": "zone", pfx + "pause-after": "every-wave, a ,b"},
			want: &progressive.Annotations{Policy: daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: "zone"}}, Gates: progressive.Gates{PauseAfter: []string{"every-wave", "a", "b"}}}},
		{name: "pause-after every-wave with a canary and no order-by", in: map[string]string{pfx + "canary": "1", pfx + "pause-after": "every-wave"},
			want: &progressive.Annotations{Policy: daemon.RolloutPolicy{Canary: canary("1", "")}, Gates: progressive.Gates{PauseAfter: []string{"every-wave"}}}},
		{name: "pause-after canary without canary", in: map[string]string{pfx + "pause-after": "canary"}, wantErr: []*field.Error{required(pfx + "canary")}},
		{name: "pause-after a value without order-by", in: map[string]string{pfx + "pause-after": "a,b"}, wantErr: []*field.Error{required(pfx + "order-by")},
			wantDetail: `needed by rollout.daemonplan.io/pause-after "a"`},
		{name: "pause-after every-wave without waves", in: map[string]string{pfx + "pause-after": "every-wave"}, wantErr: []*field.Error{required(pfx + "order-by")}},
		{name: "pause-after every_wave is a near miss", in: map[string]string{pfx + "order-by": "zone", pfx + "pause-after": "every_wave"},
			wantErr: []*field.Error{invalid(pfx+"pause-after", "every_wave")}, wantDetail: `"every_wave" is not an approval point: did you mean every-wave?`},
		{name: "pause-after Canary is a near miss", in: map[string]string{pfx + "canary": "1", pfx + "pause-after": "Canary"},
			wantErr: []*field.Error{invalid(pfx+"pause-after", "Canary")}, wantDetail: "did you mean canary?"},
		{name: "pause-after a listed order value is a wave, not a near miss", in: map[string]string{pfx + "order-by": "zone", pfx + "order-values": "canari", pfx + "pause-after": "canari"},
			want: &progressive.Annotations{Policy: daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: "zone", Values: []string{"canari"}}}, Gates: progressive.Gates{PauseAfter: []string{"canari"}}}},
		{name: "pause-after empty value", in: map[string]string{pfx + "order-by": "zone", pfx + "pause-after": "a,"}, wantErr: []*field.Error{invalid(pfx+"pause-after", "a,")}},
		{name: "pause-after repeated", in: map[string]string{pfx + "order-by": "zone", pfx + "pause-after": "a,a"}, wantErr: []*field.Error{invalid(pfx+"pause-after", "a,a")}},
		{name: "pause-after not a label value", in: map[string]string{pfx + "order-by": "zone", pfx + "pause-after": "a b"}, wantErr: []*field.Error{invalid(pfx+"pause-after", "a b")}},

		// approved.
		{name: "approved canary", in: map[string]string{pfx + "approved": "5d8f9c/canary"},
			want: &progressive.Annotations{Gates: progressive.Gates{Approved: &progressive.Approval{Hash: "5d8f9c", Wave: "canary"}}}},
		{name: "approved a wave of a prefixed label", in: map[string]string{pfx + "approved": "5d8f9c/topology.kubernetes.io/zone=a"},
			want: &progressive.Annotations{Gates: progressive.Gates{Approved: &progressive.Approval{Hash: "5d8f9c", Wave: "topology.kubernetes.io/zone=a"}}}},
		{name: "approved the wave without the label", in: map[string]string{pfx + "approved": "5d8f9c/!zone"},
			want: &progressive.Annotations{Gates: progressive.Gates{Approved: &progressive.Approval{Hash: "5d8f9c", Wave: "!zone"}}}},
		{name: "approved rest", in: map[string]string{pfx + "approved": "5d8f9c/rest"},
			want: &progressive.Annotations{Gates: progressive.Gates{Approved: &progressive.Approval{Hash: "5d8f9c", Wave: "rest"}}}},
		{name: "approved without a wave", in: map[string]string{pfx + "approved": "5d8f9c/"}, wantErr: []*field.Error{invalid(pfx+"approved", "5d8f9c/")}},
		{name: "approved without a slash", in: map[string]string{pfx + "approved": "5d8f9c"}, wantErr: []*field.Error{invalid(pfx+"approved", "5d8f9c")}},
		{name: "approved without a hash", in: map[string]string{pfx + "approved": "/canary"}, wantErr: []*field.Error{invalid(pfx+"approved", "/canary")}},
		{name: "approved an unknown wave", in: map[string]string{pfx + "approved": "5d8f9c/zone-a"}, wantErr: []*field.Error{invalid(pfx+"approved", "5d8f9c/zone-a")}},

		// health-gates, max-restarts, ready-timeout.
		{name: "health-gates false", in: map[string]string{pfx + "health-gates": "false"},
			want: &progressive.Annotations{Gates: progressive.Gates{Health: health(false, progressive.DefaultMaxRestarts, progressive.DefaultReadyTimeout)}}},
		{name: "health-gates yes is an error", in: map[string]string{pfx + "health-gates": "yes"}, wantErr: []*field.Error{invalid(pfx+"health-gates", "yes")}},
		{name: "max-restarts 0", in: map[string]string{pfx + "max-restarts": "0"},
			want: &progressive.Annotations{Gates: progressive.Gates{Health: health(true, 0, progressive.DefaultReadyTimeout)}}},
		{name: "max-restarts negative", in: map[string]string{pfx + "max-restarts": "-1"}, wantErr: []*field.Error{invalid(pfx+"max-restarts", "-1")}},
		{name: "max-restarts past int32", in: map[string]string{pfx + "max-restarts": "2147483648"}, wantErr: []*field.Error{invalid(pfx+"max-restarts", "2147483648")}},
		{name: "ready-timeout", in: map[string]string{pfx + "ready-timeout": "3m"},
			want: &progressive.Annotations{Gates: progressive.Gates{Health: health(true, progressive.DefaultMaxRestarts, 3*time.Minute)}}},
		{name: "ready-timeout 0 is an error", in: map[string]string{pfx + "ready-timeout": "0s"}, wantErr: []*field.Error{invalid(pfx+"ready-timeout", "0s")}},
		{name: "ready-timeout without a unit", in: map[string]string{pfx + "ready-timeout": "10"}, wantErr: []*field.Error{invalid(pfx+"ready-timeout", "10")}},

		// on-failure and rolled-back-from.
		{name: "on-failure rollback", in: map[string]string{pfx + "on-failure": "rollback"},
			want: &progressive.Annotations{OnFailure: progressive.OnFailureRollback}},
		{name: "on-failure pause", in: map[string]string{pfx + "on-failure": "pause"}, want: &progressive.Annotations{}},
		{name: "on-failure rolback is a near miss", in: map[string]string{pfx + "on-failure": "rolback"},
			wantErr: []*field.Error{invalid(pfx+"on-failure", "rolback")}, wantDetail: `did you mean "rollback"?`},
		{name: "on-failure Pause is a near miss", in: map[string]string{pfx + "on-failure": "Pause"},
			wantErr: []*field.Error{invalid(pfx+"on-failure", "Pause")}, wantDetail: `did you mean "pause"?`},
		{name: "on-failure far off", in: map[string]string{pfx + "on-failure": "explode"}, wantErr: []*field.Error{invalid(pfx+"on-failure", "explode")}},
		{name: "rolled-back-from", in: map[string]string{pfx + "rolled-back-from": "7b6c5d"}, want: &progressive.Annotations{RolledBackFrom: "7b6c5d"}},
		{name: "rolled-back-from empty", in: map[string]string{pfx + "rolled-back-from": ""}, wantErr: []*field.Error{invalid(pfx+"rolled-back-from", "")}},
		{name: "rolled-back-from not a hash", in: map[string]string{pfx + "rolled-back-from": "a/b"}, wantErr: []*field.Error{invalid(pfx+"rolled-back-from", "a/b")}},

		// outcome, a controller's record.
		{name: "outcome of a health gate", in: map[string]string{pfx + "outcome": `{"reason":"HealthGateFailed","revision":"57b66bf88d","paused":null}`},
			want: &progressive.Annotations{Outcome: &progressive.Outcome{Reason: progressive.OutcomeHealthGateFailed, Revision: "57b66bf88d"}}},
		{name: "outcome of a rollback", in: map[string]string{pfx + "outcome": `{"reason":"RolledBack","revision":"aaa","paused":"false","from":"bbb","by":"on-failure","why":"health gate failed"}`},
			want: &progressive.Annotations{Outcome: &progressive.Outcome{Reason: progressive.OutcomeRolledBack, Revision: "aaa", Paused: ptr("false"), From: "bbb", By: progressive.RolledBackOnFailure, Why: "health gate failed"}}},
		{name: "outcome not JSON", in: map[string]string{pfx + "outcome": "[paused=unset revision=57b66bf88d]"},
			wantErr: []*field.Error{invalid(pfx+"outcome", "[paused=unset revision=57b66bf88d]")}, wantDetail: "must be the JSON a controller writes"},
		{name: "outcome with an unknown reason", in: map[string]string{pfx + "outcome": `{"reason":"Exploded","revision":"aaa"}`},
			wantErr: []*field.Error{invalid(pfx+"outcome", `{"reason":"Exploded","revision":"aaa"}`)}, wantDetail: "reason: must be"},
		{name: "outcome with an unknown field", in: map[string]string{pfx + "outcome": `{"reason":"HealthGateFailed","revision":"aaa","extra":1}`},
			wantErr: []*field.Error{invalid(pfx+"outcome", `{"reason":"HealthGateFailed","revision":"aaa","extra":1}`)}, wantDetail: "unknown field"},
		{name: "outcome without a revision", in: map[string]string{pfx + "outcome": `{"reason":"HealthGateFailed"}`},
			wantErr: []*field.Error{invalid(pfx+"outcome", `{"reason":"HealthGateFailed"}`)}, wantDetail: "revision: must be a revision hash"},
		{name: "outcome of a rollback by nobody", in: map[string]string{pfx + "outcome": `{"reason":"RolledBack","revision":"aaa","from":"bbb"}`},
			wantErr: []*field.Error{invalid(pfx+"outcome", `{"reason":"RolledBack","revision":"aaa","from":"bbb"}`)}, wantDetail: "by: must be"},
		{name: "outcome of a rollback from nothing", in: map[string]string{pfx + "outcome": `{"reason":"RolledBack","revision":"aaa","by":"undo"}`},
			wantErr: []*field.Error{invalid(pfx+"outcome", `{"reason":"RolledBack","revision":"aaa","by":"undo"}`)}, wantDetail: "from: must be a revision hash"},

		// Misspelt keys.
		{name: "a misspelt key says which it means", in: map[string]string{pfx + "pause-afer": "canary"},
			wantErr: []*field.Error{invalid(pfx+"pause-afer", "canary")}, wantDetail: "did you mean rollout.daemonplan.io/pause-after?"},
		{name: "a misspelt new key under another prefix", in: map[string]string{"rollouts.daemonplan.io/on-failure": "rollback"},
			wantErr: []*field.Error{invalid("rollouts.daemonplan.io/on-failure", "rollback")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := maps.Clone(tt.in)
			got, err := progressive.ParseAnnotations(tt.in)
			if diff := cmp.Diff(tt.wantErr, fieldErrs(t, err), cmpopts.IgnoreFields(field.Error{}, "Detail")); diff != "" {
				t.Fatalf("ParseAnnotations() errors (-want +got):\n%s\nerror: %v", diff, err)
			}
			if tt.wantDetail != "" && (err == nil || !strings.Contains(err.Error(), tt.wantDetail)) {
				t.Errorf("error %v does not say %q", err, tt.wantDetail)
			}
			if got, want := errors.Is(err, daemon.ErrInvalidInput), tt.wantErr != nil; got != want {
				t.Errorf("errors.Is(%v, ErrInvalidInput) = %v, want %v", err, got, want)
			}
			if diff := cmp.Diff(withDefaults(tt.want), got); diff != "" {
				t.Errorf("ParseAnnotations() (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tt.in); diff != "" {
				t.Errorf("ParseAnnotations() modified its input (-before +after):\n%s", diff)
			}
			if got == nil {
				return
			}
			if err := got.Policy.Validate(); err != nil {
				t.Errorf("parsed policy fails Validate: %v", err)
			}
			out, err := got.Format()
			if err != nil {
				t.Fatalf("Format(): %v", err)
			}
			again, err := progressive.ParseAnnotations(out)
			if err != nil {
				t.Fatalf("parsing Format()'s %q: %v", out, err)
			}
			if diff := cmp.Diff(got, again); diff != "" {
				t.Errorf("parse(format(x)) != x (-x +again):\n%s", diff)
			}
		})
	}
}

func TestAnnotationsFormatGates(t *testing.T) {
	tests := []struct {
		name    string
		in      progressive.Annotations
		want    map[string]string
		wantErr string
	}{
		{name: "every gate key", in: progressive.Annotations{
			Policy: daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: "zone"}, Canary: &daemon.CanarySpec{Count: intstr.FromString("10%"), Spread: "zone"}},
			Gates: progressive.Gates{
				Health:     health(false, 0, time.Minute),
				PauseAfter: []string{"canary", "a"},
				Approved:   &progressive.Approval{Hash: "h1", Wave: "canary"},
			},
			OnFailure:      progressive.OnFailureRollback,
			RolledBackFrom: "h0",
		}, want: map[string]string{
			pfx + "order-by": "zone", pfx + "canary": "10%", pfx + "pause-after": "canary,a", pfx + "approved": "h1/canary",
			pfx + "health-gates": "false", pfx + "max-restarts": "0", pfx + "ready-timeout": "1m0s",
			pfx + "on-failure": "rollback", pfx + "rolled-back-from": "h0",
		}},
		{name: "default health gates and on-failure are left out", in: progressive.Annotations{
			MaxUnavailable: ios("2"), Gates: progressive.Gates{Health: defaultHealth}, OnFailure: progressive.OnFailurePause,
		}, want: map[string]string{pfx + "max-unavailable": "2"}},
		{name: "a canary spread the annotations cannot say", in: progressive.Annotations{
			Policy: daemon.RolloutPolicy{Canary: &daemon.CanarySpec{Count: intstr.FromInt32(1), Spread: "rack"}}}, wantErr: "Canary.Spread (canary)"},
		{name: "a health gate without a ready timeout", in: progressive.Annotations{Gates: progressive.Gates{Health: health(true, 3, 0)}},
			wantErr: "metadata.annotations[rollout.daemonplan.io/ready-timeout]"},
		{name: "an unknown on-failure", in: progressive.Annotations{OnFailure: "explode"}, wantErr: "metadata.annotations[rollout.daemonplan.io/on-failure]"},
		{name: "pause-after canary without a canary", in: progressive.Annotations{Gates: progressive.Gates{PauseAfter: []string{"canary"}}},
			wantErr: "metadata.annotations[rollout.daemonplan.io/canary]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.in.Format()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, daemon.ErrInvalidInput) {
					t.Fatalf("Format() error = %v, want an invalid-input error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Format(): %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Format() (-want +got):\n%s", diff)
			}
		})
	}
}
