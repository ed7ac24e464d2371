package progressive_test

import (
	"errors"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/rollout"
)

const pfx = progressive.AnnotationPrefix

func ios(s string) *intstr.IntOrString {
	v := intstr.Parse(s)
	return &v
}

// withDefaults returns a copy of a with ParseAnnotations' defaults where
// a leaves them zero: the health gates on with the default thresholds,
// OnFailurePause, and the gates watching the policy's wave bake. nil stays
// nil.
func withDefaults(a *progressive.Annotations) *progressive.Annotations {
	if a == nil {
		return nil
	}
	c := *a
	if c.Gates.Health == (progressive.HealthGates{}) {
		c.Gates.Health = progressive.HealthGates{On: true, MaxRestarts: progressive.DefaultMaxRestarts, ReadyTimeout: progressive.DefaultReadyTimeout}
	}
	if c.OnFailure == "" {
		c.OnFailure = progressive.OnFailurePause
	}
	if w := c.Policy.Waves; w != nil && c.Gates.Bake == 0 {
		c.Gates.Bake = w.Bake
	}
	if c.Gates.Refs.IsZero() {
		c.Gates.Refs = progressive.ReferencesOf(&c.Policy)
	}
	return &c
}

func annPath(k string) string { return field.NewPath("metadata", "annotations").Key(k).String() }

// fieldErrs returns the *field.Error values err unwraps to.
func fieldErrs(t *testing.T, err error) []*field.Error {
	t.Helper()
	if err == nil {
		return nil
	}
	u, ok := err.(interface{ Unwrap() []error })
	if !ok {
		t.Fatalf("error %v does not unwrap to field errors", err)
	}
	var out []*field.Error
	for _, e := range u.Unwrap() {
		var fe *field.Error
		if !errors.As(e, &fe) {
			t.Fatalf("error %v is not a *field.Error", e)
		}
		out = append(out, fe)
	}
	return out
}

func expr(key string, op metav1.LabelSelectorOperator, vals ...string) metav1.LabelSelectorRequirement {
	return metav1.LabelSelectorRequirement{Key: key, Operator: op, Values: vals}
}

func TestParseAnnotations(t *testing.T) {
	invalid := func(k, v string) *field.Error {
		return field.Invalid(field.NewPath("metadata", "annotations").Key(k), v, "")
	}
	required := func(k string) *field.Error {
		return field.Required(field.NewPath("metadata", "annotations").Key(k), "")
	}
	tests := []struct {
		name    string
		in      map[string]string
		want    *progressive.Annotations
		wantErr []*field.Error
	}{
		// Opting in.
		{name: "no annotations: not opted in", in: nil},
		{name: "only other annotations: not opted in", in: map[string]string{"deprecated.daemonset.template.generation": "3", "example.com/rollout": "x"}},
		{name: "one key opts in with the defaults", in: map[string]string{pfx + "paused": "false"}, want: &progressive.Annotations{}},

		// max-unavailable.
		{name: "max-unavailable integer", in: map[string]string{pfx + "max-unavailable": "3"}, want: &progressive.Annotations{MaxUnavailable: ios("3")}},
		{name: "max-unavailable percentage", in: map[string]string{pfx + "max-unavailable": "25%"}, want: &progressive.Annotations{MaxUnavailable: ios("25%")}},
		{name: "max-unavailable 100%", in: map[string]string{pfx + "max-unavailable": "100%"}, want: &progressive.Annotations{MaxUnavailable: ios("100%")}},
		{name: "max-unavailable at MaxCount", in: map[string]string{pfx + "max-unavailable": "100000"}, want: &progressive.Annotations{MaxUnavailable: ios("100000")}},
		{name: "max-unavailable past MaxCount is an error", in: map[string]string{pfx + "max-unavailable": "100001"}, wantErr: []*field.Error{invalid(pfx+"max-unavailable", "100001")}},
		// 0 with maxSurge 0 replaces nothing; upstream rejects it too.
		{name: "max-unavailable 0 is an error", in: map[string]string{pfx + "max-unavailable": "0"}, wantErr: []*field.Error{invalid(pfx+"max-unavailable", "0")}},
		{name: "max-unavailable 0% is an error", in: map[string]string{pfx + "max-unavailable": "0%"}, wantErr: []*field.Error{invalid(pfx+"max-unavailable", "0%")}},
		{name: "max-unavailable 101% is an error", in: map[string]string{pfx + "max-unavailable": "101%"}, wantErr: []*field.Error{invalid(pfx+"max-unavailable", "101%")}},
		{name: "max-unavailable past int32 is an error", in: map[string]string{pfx + "max-unavailable": "2147483648"}, wantErr: []*field.Error{invalid(pfx+"max-unavailable", "2147483648")}},
		{name: "max-unavailable negative is an error", in: map[string]string{pfx + "max-unavailable": "-1"}, wantErr: []*field.Error{invalid(pfx+"max-unavailable", "-1")}},
		{name: "max-unavailable with a sign is an error", in: map[string]string{pfx + "max-unavailable": "+2"}, wantErr: []*field.Error{invalid(pfx+"max-unavailable", "+2")}},
		{name: "max-unavailable with a leading zero is an error", in: map[string]string{pfx + "max-unavailable": "02"}, wantErr: []*field.Error{invalid(pfx+"max-unavailable", "02")}},
		{name: "max-unavailable fraction is an error", in: map[string]string{pfx + "max-unavailable": "1.5"}, wantErr: []*field.Error{invalid(pfx+"max-unavailable", "1.5")}},
		{name: "max-unavailable empty is an error", in: map[string]string{pfx + "max-unavailable": ""}, wantErr: []*field.Error{invalid(pfx+"max-unavailable", "")}},
		{name: "max-unavailable bare percent sign is an error", in: map[string]string{pfx + "max-unavailable": "%"}, wantErr: []*field.Error{invalid(pfx+"max-unavailable", "%")}},

		// partition.
		{name: "partition integer", in: map[string]string{pfx + "partition": "4"}, want: &progressive.Annotations{Policy: daemon.RolloutPolicy{Partition: ios("4")}}},
		{name: "partition 0 keeps none", in: map[string]string{pfx + "partition": "0"}, want: &progressive.Annotations{Policy: daemon.RolloutPolicy{Partition: ios("0")}}},
		{name: "partition 0%", in: map[string]string{pfx + "partition": "0%"}, want: &progressive.Annotations{Policy: daemon.RolloutPolicy{Partition: ios("0%")}}},
		{name: "partition 90%", in: map[string]string{pfx + "partition": "90%"}, want: &progressive.Annotations{Policy: daemon.RolloutPolicy{Partition: ios("90%")}}},
		{name: "partition x is an error", in: map[string]string{pfx + "partition": "x"}, wantErr: []*field.Error{invalid(pfx+"partition", "x")}},
		{name: "partition 100.5% is an error", in: map[string]string{pfx + "partition": "100.5%"}, wantErr: []*field.Error{invalid(pfx+"partition", "100.5%")}},
		{name: "partition with spaces is an error", in: map[string]string{pfx + "partition": " 4"}, wantErr: []*field.Error{invalid(pfx+"partition", " 4")}},

		// scope.
		{name: "scope equality", in: map[string]string{pfx + "scope": "pool=a"},
			want: &progressive.Annotations{Policy: daemon.RolloutPolicy{Scope: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("pool", metav1.LabelSelectorOpIn, "a")}}}}},
		{name: "scope double equals", in: map[string]string{pfx + "scope": "pool==a"},
			want: &progressive.Annotations{Policy: daemon.RolloutPolicy{Scope: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("pool", metav1.LabelSelectorOpIn, "a")}}}}},
		{name: "scope inequality", in: map[string]string{pfx + "scope": "pool!=a"},
			want: &progressive.Annotations{Policy: daemon.RolloutPolicy{Scope: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("pool", metav1.LabelSelectorOpNotIn, "a")}}}}},
		{name: "scope set-based, sorted by key and value", in: map[string]string{pfx + "scope": "zone in (b, a),tier notin (x,w),gpu,!spot"},
			want: &progressive.Annotations{Policy: daemon.RolloutPolicy{Scope: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				expr("gpu", metav1.LabelSelectorOpExists),
				expr("spot", metav1.LabelSelectorOpDoesNotExist),
				expr("tier", metav1.LabelSelectorOpNotIn, "w", "x"),
				expr("zone", metav1.LabelSelectorOpIn, "a", "b"),
			}}}}},
		{name: "scope with a prefixed key", in: map[string]string{pfx + "scope": "topology.kubernetes.io/zone=us-east-1a"},
			want: &progressive.Annotations{Policy: daemon.RolloutPolicy{Scope: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("topology.kubernetes.io/zone", metav1.LabelSelectorOpIn, "us-east-1a")}}}}},
		// Issue 37: an empty scope (a template's missing value) would
		// select every node, a restriction switched off: refused.
		{name: "scope empty is refused", in: map[string]string{pfx + "scope": ""}, wantErr: []*field.Error{invalid(pfx+"scope", "")}},
		{name: "scope of spaces is refused", in: map[string]string{pfx + "scope": "  "}, wantErr: []*field.Error{invalid(pfx+"scope", "  ")}},
		{name: "scope greater-than has no selector form", in: map[string]string{pfx + "scope": "rank>3"}, wantErr: []*field.Error{invalid(pfx+"scope", "rank>3")}},
		{name: "scope syntax error", in: map[string]string{pfx + "scope": "zone in (a"}, wantErr: []*field.Error{invalid(pfx+"scope", "zone in (a")}},
		{name: "scope bad label value", in: map[string]string{pfx + "scope": "zone=a b"}, wantErr: []*field.Error{invalid(pfx+"scope", "zone=a b")}},

		// paused and strict.
		{name: "paused true", in: map[string]string{pfx + "paused": "true"}, want: &progressive.Annotations{Policy: daemon.RolloutPolicy{Paused: true}}},
		{name: "paused True is an error", in: map[string]string{pfx + "paused": "True"}, wantErr: []*field.Error{invalid(pfx+"paused", "True")}},
		{name: "paused 1 is an error", in: map[string]string{pfx + "paused": "1"}, wantErr: []*field.Error{invalid(pfx+"paused", "1")}},
		{name: "strict true", in: map[string]string{pfx + "strict": "true"}, want: &progressive.Annotations{Policy: daemon.RolloutPolicy{Strict: true}}},
		{name: "strict false", in: map[string]string{pfx + "strict": "false"}, want: &progressive.Annotations{}},
		{name: "strict yes is an error", in: map[string]string{pfx + "strict": "yes"}, wantErr: []*field.Error{invalid(pfx+"strict", "yes")}},

		// order-by and order-values.
		{name: "order-by", in: map[string]string{pfx + "order-by": "topology.kubernetes.io/zone"},
			want: &progressive.Annotations{Policy: daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: "topology.kubernetes.io/zone"}}}},
		{name: "order-values, spaces dropped", in: map[string]string{pfx + "order-by": "zone", pfx + "order-values": "c, a ,b"},
			want: &progressive.Annotations{Policy: daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: "zone", Values: []string{"c", "a", "b"}}}}},
		{name: "order-by malformed key", in: map[string]string{pfx + "order-by": "-zone"}, wantErr: []*field.Error{invalid(pfx+"order-by", "-zone")}},
		{name: "order-by empty", in: map[string]string{pfx + "order-by": ""}, wantErr: []*field.Error{invalid(pfx+"order-by", "")}},
		{name: "order-values without order-by", in: map[string]string{pfx + "order-values": "a,b"}, wantErr: []*field.Error{required(pfx + "order-by")}},
		{name: "order-values with an empty value", in: map[string]string{pfx + "order-by": "zone", pfx + "order-values": "a,,b"}, wantErr: []*field.Error{invalid(pfx+"order-values", "a,,b")}},
		{name: "order-values repeated", in: map[string]string{pfx + "order-by": "zone", pfx + "order-values": "a,b,a"}, wantErr: []*field.Error{invalid(pfx+"order-values", "a,b,a")}},
		{name: "order-values not label values", in: map[string]string{pfx + "order-by": "zone", pfx + "order-values": "a/b"}, wantErr: []*field.Error{invalid(pfx+"order-values", "a/b")}},

		// domain and domain-max-unavailable.
		{name: "domain budget", in: map[string]string{pfx + "domain": "topology.kubernetes.io/zone", pfx + "domain-max-unavailable": "1"},
			want: &progressive.Annotations{Policy: daemon.RolloutPolicy{DomainBudget: &daemon.DomainBudget{Label: "topology.kubernetes.io/zone", MaxUnavailable: ios("1")}}}},
		{name: "domain budget percentage", in: map[string]string{pfx + "domain": "rack", pfx + "domain-max-unavailable": "10%"},
			want: &progressive.Annotations{Policy: daemon.RolloutPolicy{DomainBudget: &daemon.DomainBudget{Label: "rack", MaxUnavailable: ios("10%")}}}},
		{name: "domain without its budget", in: map[string]string{pfx + "domain": "rack"}, wantErr: []*field.Error{required(pfx + "domain-max-unavailable")}},
		{name: "domain budget without its domain", in: map[string]string{pfx + "domain-max-unavailable": "1"}, wantErr: []*field.Error{required(pfx + "domain")}},
		// A per-domain budget is at least 1 anyway: 0 would mislead.
		{name: "domain budget 0", in: map[string]string{pfx + "domain": "rack", pfx + "domain-max-unavailable": "0"}, wantErr: []*field.Error{invalid(pfx+"domain-max-unavailable", "0")}},
		{name: "domain malformed key", in: map[string]string{pfx + "domain": "a b", pfx + "domain-max-unavailable": "1"}, wantErr: []*field.Error{invalid(pfx+"domain", "a b")}},

		// wave-bake.
		{name: "wave-bake", in: map[string]string{pfx + "order-by": "zone", pfx + "wave-bake": "10m"},
			want: &progressive.Annotations{Policy: daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: "zone"}, Waves: &rollout.WaveBarrier{Bake: 10 * time.Minute}}}},
		{name: "wave-bake 0s is a barrier without a bake", in: map[string]string{pfx + "order-by": "zone", pfx + "wave-bake": "0s"},
			want: &progressive.Annotations{Policy: daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: "zone"}, Waves: &rollout.WaveBarrier{}}}},
		{name: "wave-bake without order-by", in: map[string]string{pfx + "wave-bake": "1m"}, wantErr: []*field.Error{required(pfx + "order-by")}},
		{name: "wave-bake negative", in: map[string]string{pfx + "order-by": "zone", pfx + "wave-bake": "-1s"}, wantErr: []*field.Error{invalid(pfx+"wave-bake", "-1s")}},
		{name: "wave-bake without a unit", in: map[string]string{pfx + "order-by": "zone", pfx + "wave-bake": "10"}, wantErr: []*field.Error{invalid(pfx+"wave-bake", "10")}},

		// progress-deadline.
		{name: "progress-deadline", in: map[string]string{pfx + "progress-deadline": "15m"}, want: &progressive.Annotations{ProgressDeadline: 15 * time.Minute}},
		{name: "progress-deadline 0 is an error", in: map[string]string{pfx + "progress-deadline": "0s"}, wantErr: []*field.Error{invalid(pfx+"progress-deadline", "0s")}},
		{name: "progress-deadline negative", in: map[string]string{pfx + "progress-deadline": "-5m"}, wantErr: []*field.Error{invalid(pfx+"progress-deadline", "-5m")}},
		{name: "progress-deadline overflow", in: map[string]string{pfx + "progress-deadline": "9999999999h"}, wantErr: []*field.Error{invalid(pfx+"progress-deadline", "9999999999h")}},

		// Keys that are not keys.
		{name: "unknown key", in: map[string]string{pfx + "partiton": "2"}, wantErr: []*field.Error{invalid(pfx+"partiton", "2")}},
		{name: "empty key name", in: map[string]string{pfx: "x"}, wantErr: []*field.Error{invalid(pfx, "x")}},
		{name: "max-surge is refused", in: map[string]string{pfx + "max-surge": "1"}, wantErr: []*field.Error{invalid(pfx+"max-surge", "1")}},
		{name: "misspelt prefix", in: map[string]string{"rollouts.daemonplan.io/partition": "2"}, wantErr: []*field.Error{invalid("rollouts.daemonplan.io/partition", "2")}},
		{name: "another daemonplan.io key is not a typo", in: map[string]string{"notes.daemonplan.io/owner": "team-a"}},

		// Everything at once, and several errors at once, in key order.
		{name: "every key", in: map[string]string{
			pfx + "max-unavailable": "2", pfx + "partition": "10%", pfx + "scope": "pool=a", pfx + "paused": "true",
			pfx + "order-by": "zone", pfx + "order-values": "b,a", pfx + "domain": "rack", pfx + "domain-max-unavailable": "1",
			pfx + "strict": "true", pfx + "wave-bake": "1m30s", pfx + "progress-deadline": "1h",
		}, want: &progressive.Annotations{
			MaxUnavailable: ios("2"),
			Policy: daemon.RolloutPolicy{
				Partition: ios("10%"),
				Scope:     &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("pool", metav1.LabelSelectorOpIn, "a")}},
				Paused:    true, Strict: true,
				Order:        daemon.UpdateOrder{Label: "zone", Values: []string{"b", "a"}},
				DomainBudget: &daemon.DomainBudget{Label: "rack", MaxUnavailable: ios("1")},
				Waves:        &rollout.WaveBarrier{Bake: 90 * time.Second},
			},
			ProgressDeadline: time.Hour,
		}},
		{name: "several errors", in: map[string]string{pfx + "strict": "on", pfx + "partition": "x", pfx + "zzz": "1", pfx + "wave-bake": "1m"},
			wantErr: []*field.Error{required(pfx + "order-by"), invalid(pfx+"partition", "x"), invalid(pfx+"strict", "on"), invalid(pfx+"zzz", "1")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := maps.Clone(tt.in)
			got, err := progressive.ParseAnnotations(tt.in)
			if diff := cmp.Diff(tt.wantErr, fieldErrs(t, err), cmpopts.IgnoreFields(field.Error{}, "Detail")); diff != "" {
				t.Fatalf("ParseAnnotations() errors (-want +got):\n%s\nerror: %v", diff, err)
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
			if got != nil {
				if err := got.Policy.Validate(); err != nil {
					t.Errorf("parsed policy fails Validate: %v", err)
				}
			}
		})
	}
}

// TestParseAnnotationsErrorText locks the shape of the text people
// read in an event: the annotation's path, the value and the reason.
func TestParseAnnotationsErrorText(t *testing.T) {
	_, err := progressive.ParseAnnotations(map[string]string{pfx + "partition": "x"})
	want := `metadata.annotations[rollout.daemonplan.io/partition]: Invalid value: "x": must be an integer from 0 to 100000 or a percentage from 0% to 100%, without sign or leading zeros`
	if err == nil || err.Error() != want {
		t.Errorf("error text:\n got %v\nwant %s", err, want)
	}
	var fe *field.Error
	if !errors.As(err, &fe) || fe.Field != annPath(pfx+"partition") {
		t.Errorf("errors.As(*field.Error) = %v", fe)
	}
}

// TestScopeMatchesKubectl checks that a parsed scope selects exactly the
// nodes kubectl -l selects with the same string.
func TestScopeMatchesKubectl(t *testing.T) {
	nodes := []labels.Set{
		{}, {"zone": "a"}, {"zone": "b"}, {"zone": "c"}, {"zone": "a", "spot": "true"},
		{"gpu": ""}, {"gpu": "x", "zone": "b"}, {"tier": "w"}, {"tier": "y", "zone": "a"},
	}
	for _, s := range []string{
		"zone=a", "zone==a", "zone!=a", "zone in (a,b)", "zone notin (a,b)", "gpu", "!gpu",
		"zone in (a),!spot", "zone!=b,tier notin (w)", "gpu,zone=b", "tier,zone",
	} {
		t.Run(s, func(t *testing.T) {
			a, err := progressive.ParseAnnotations(map[string]string{pfx + "scope": s})
			if err != nil {
				t.Fatal(err)
			}
			got, err := metav1.LabelSelectorAsSelector(a.Policy.Scope)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := labels.Parse(s)
			for _, n := range nodes {
				if w, g := want.Matches(n), got.Matches(n); w != g {
					t.Errorf("node %v: kubectl -l %q matches %v, parsed scope %v", n, s, w, g)
				}
			}
		})
	}
}

func TestAnnotationsFormat(t *testing.T) {
	tests := []struct {
		name    string
		in      progressive.Annotations
		want    map[string]string
		wantErr string
	}{
		// The zero HealthGates are off: written as such.
		{name: "zero opts in with the health gates off", want: map[string]string{pfx + "health-gates": "false"}},
		{name: "the defaults still opt in", in: *withDefaults(&progressive.Annotations{}), want: map[string]string{pfx + "health-gates": "true"}},
		{name: "scope with matchLabels and expressions", in: *withDefaults(&progressive.Annotations{Policy: daemon.RolloutPolicy{Scope: &metav1.LabelSelector{
			MatchLabels:      map[string]string{"pool": "a"},
			MatchExpressions: []metav1.LabelSelectorRequirement{expr("zone", metav1.LabelSelectorOpIn, "b", "a"), expr("spot", metav1.LabelSelectorOpDoesNotExist)},
		}}}), want: map[string]string{pfx + "scope": "pool=a,zone in (a,b),!spot"}},
		{name: "waves and deadline", in: *withDefaults(&progressive.Annotations{ProgressDeadline: 90 * time.Second, Policy: daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: "zone"}, Waves: &rollout.WaveBarrier{}}}),
			want: map[string]string{pfx + "order-by": "zone", pfx + "wave-bake": "0s", pfx + "progress-deadline": "1m30s"}},
		{name: "comparator has no annotation", in: progressive.Annotations{Policy: daemon.RolloutPolicy{Order: daemon.UpdateOrder{Compare: func(a, b *corev1.Node) int { return 0 }}}}, wantErr: "Order.Compare"},
		{name: "per-domain surge has no annotation", in: progressive.Annotations{Policy: daemon.RolloutPolicy{DomainBudget: &daemon.DomainBudget{Label: "z", MaxSurge: ios("1")}}}, wantErr: "MaxSurge"},
		{name: "a value parse rejects", in: progressive.Annotations{MaxUnavailable: ios("0")}, wantErr: "metadata.annotations[rollout.daemonplan.io/max-unavailable]"},
		{name: "an empty values list", in: progressive.Annotations{Policy: daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: "z", Values: []string{}}}}, wantErr: "order-values"},
		{name: "a value with a comma", in: progressive.Annotations{Policy: daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: "z", Values: []string{"a,b"}}}}, wantErr: "Order.Values (order-values)"},
		{name: "a Gt scope", in: progressive.Annotations{Policy: daemon.RolloutPolicy{Scope: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("z", "Gt", "1")}}}}, wantErr: "Scope (scope)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.in.Format()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Format() error = %v, want one containing %q", err, tt.wantErr)
				}
				if !errors.Is(err, daemon.ErrInvalidInput) {
					t.Errorf("Format() error %v does not match ErrInvalidInput", err)
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

func TestAnnotationsStrategy(t *testing.T) {
	one, zero, two := intstr.FromInt32(1), intstr.FromInt32(0), intstr.FromInt32(2)
	pct := intstr.FromString("20%")
	onDelete := func(ru *appsv1.RollingUpdateDaemonSet) *appsv1.DaemonSet {
		return &appsv1.DaemonSet{Spec: appsv1.DaemonSetSpec{UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType, RollingUpdate: ru}}}
	}
	rolling := &appsv1.DaemonSet{Spec: appsv1.DaemonSetSpec{UpdateStrategy: appsv1.DaemonSetUpdateStrategy{
		Type: appsv1.RollingUpdateDaemonSetStrategyType, RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &zero, MaxSurge: &two}}}}
	rollingWith := func(mu intstr.IntOrString) appsv1.DaemonSetUpdateStrategy {
		return appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType, RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &mu, MaxSurge: &zero}}
	}
	tests := []struct {
		name    string
		a       *progressive.Annotations
		ds      *appsv1.DaemonSet
		want    appsv1.DaemonSetUpdateStrategy
		wantErr string
	}{
		{name: "not opted in keeps OnDelete", a: nil, ds: onDelete(nil), want: onDelete(nil).Spec.UpdateStrategy},
		{name: "OnDelete rolls with upstream's default budget", a: &progressive.Annotations{}, ds: onDelete(nil), want: rollingWith(one)},
		{name: "OnDelete rolls with the annotated budget", a: &progressive.Annotations{MaxUnavailable: &pct}, ds: onDelete(nil), want: rollingWith(pct)},
		{name: "OnDelete with a zero maxSurge left in spec", a: &progressive.Annotations{}, ds: onDelete(&appsv1.RollingUpdateDaemonSet{MaxSurge: &zero}), want: rollingWith(one)},
		{name: "OnDelete asking for surge is refused", a: &progressive.Annotations{}, ds: onDelete(&appsv1.RollingUpdateDaemonSet{MaxSurge: &two}), wantErr: "spec.updateStrategy.rollingUpdate.maxSurge"},
		{name: "RollingUpdate keeps its own budget, surge included", a: &progressive.Annotations{}, ds: rolling, want: rolling.Spec.UpdateStrategy},
		{name: "RollingUpdate with max-unavailable is refused", a: &progressive.Annotations{MaxUnavailable: &one}, ds: rolling, wantErr: "metadata.annotations[rollout.daemonplan.io/max-unavailable]"},
		{name: "nil DaemonSet", a: &progressive.Annotations{}, ds: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before *appsv1.DaemonSet
			if tt.ds != nil {
				before = tt.ds.DeepCopy()
			}
			got, err := tt.a.Strategy(tt.ds)
			if tt.wantErr != "" {
				var fe *field.Error
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &fe) {
					t.Fatalf("Strategy() error = %v, want a *field.Error containing %q", err, tt.wantErr)
				}
				if !errors.Is(err, daemon.ErrInvalidInput) {
					t.Errorf("Strategy() error = %v does not match ErrInvalidInput", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Strategy(): %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Strategy() (-want +got):\n%s", diff)
			}
			if tt.ds != nil {
				if diff := cmp.Diff(before, tt.ds); diff != "" {
					t.Errorf("Strategy() modified the DaemonSet (-before +after):\n%s", diff)
				}
			}
		})
	}
}
