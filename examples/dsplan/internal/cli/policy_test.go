package cli

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/rollout"
)

func ios(v string) *intstr.IntOrString {
	x := intstr.Parse(v)
	return &x
}

// TestRolloutOf: the policy and the DaemonSet to plan with come from the
// rollout annotations, the flags given override the fields they name, and
// an OnDelete DaemonSet with annotations is planned as companion mode
// plans it.
func TestRolloutOf(t *testing.T) {
	const zone = "topology.kubernetes.io/zone"
	annotated := map[string]string{
		progressive.AnnotationMaxUnavailable:       "3",
		progressive.AnnotationOrderBy:              zone,
		progressive.AnnotationOrderValues:          "b",
		progressive.AnnotationDomain:               zone,
		progressive.AnnotationDomainMaxUnavailable: "1",
		progressive.AnnotationWaveBake:             "1m",
		progressive.AnnotationPaused:               "true",
	}
	annotatedPolicy := daemon.RolloutPolicy{
		Paused:       true,
		Order:        daemon.UpdateOrder{Label: zone, Values: []string{"b"}},
		DomainBudget: &daemon.DomainBudget{Label: zone, MaxUnavailable: ios("1")},
		Waves:        &rollout.WaveBarrier{Bake: time.Minute},
	}
	tests := []struct {
		name        string
		strategy    appsv1.DaemonSetUpdateStrategyType
		annotations map[string]string
		args        []string
		want        daemon.RolloutPolicy
		// wantBudget is the maxUnavailable planned with, "" when the
		// DaemonSet's own strategy is kept.
		wantBudget    string
		wantOverrides []string
		wantUsage     bool
		wantInput     bool
	}{
		{name: "no annotations, no flags: upstream", strategy: appsv1.OnDeleteDaemonSetStrategyType},
		{name: "flags alone", strategy: appsv1.RollingUpdateDaemonSetStrategyType, args: []string{"--partition", "10%", "--strict"},
			want: daemon.RolloutPolicy{Partition: ios("10%"), Strict: true}, wantOverrides: []string{"--partition", "--strict"}},
		{name: "a canary and a boolean flag without a value", strategy: appsv1.RollingUpdateDaemonSetStrategyType, args: []string{"--canary", "2", "--paused"},
			want: daemon.RolloutPolicy{Paused: true, Canary: &daemon.CanarySpec{Count: intstr.FromInt32(2)}}, wantOverrides: []string{"--paused", "--canary"}},
		{name: "annotations of an OnDelete DaemonSet: companion mode", strategy: appsv1.OnDeleteDaemonSetStrategyType,
			annotations: annotated, want: annotatedPolicy, wantBudget: "3"},
		{name: "max-unavailable defaults to 1", strategy: appsv1.OnDeleteDaemonSetStrategyType,
			annotations: map[string]string{progressive.AnnotationStrict: "true"}, want: daemon.RolloutPolicy{Strict: true}, wantBudget: "1"},
		{name: "a RollingUpdate DaemonSet keeps its budget", strategy: appsv1.RollingUpdateDaemonSetStrategyType,
			annotations: map[string]string{progressive.AnnotationPartition: "2"}, want: daemon.RolloutPolicy{Partition: ios("2")}},
		{name: "--paused=false and --wave-bake override", strategy: appsv1.OnDeleteDaemonSetStrategyType,
			annotations: annotated, args: []string{"--paused=false", "--wave-bake", "0s"},
			want: func() daemon.RolloutPolicy {
				p := annotatedPolicy
				p.Paused, p.Waves = false, &rollout.WaveBarrier{}
				return p
			}(), wantBudget: "3", wantOverrides: []string{"--paused", "--wave-bake"}},
		{name: "--order-label, the older name of --order-by, replaces the label", strategy: appsv1.OnDeleteDaemonSetStrategyType,
			annotations: annotated, args: []string{"--order-label", "rack"},
			want: func() daemon.RolloutPolicy {
				p := annotatedPolicy
				p.Order = daemon.UpdateOrder{Label: "rack", Values: []string{"b"}}
				return p
			}(), wantBudget: "3", wantOverrides: []string{"--order-by"}},
		{name: "a flag that makes the annotations invalid", strategy: appsv1.OnDeleteDaemonSetStrategyType,
			annotations: annotated, args: []string{"--pause-after", "canary"}, wantUsage: true},
		{name: "a flag that fixes an invalid annotation", strategy: appsv1.OnDeleteDaemonSetStrategyType,
			annotations: map[string]string{progressive.AnnotationPartition: "x"}, args: []string{"--partition", "1"},
			want: daemon.RolloutPolicy{Partition: ios("1")}, wantBudget: "1", wantOverrides: []string{"--partition"}},
		{name: "--order-values alone keeps the annotated label", strategy: appsv1.OnDeleteDaemonSetStrategyType,
			annotations: annotated, args: []string{"--order-values", "c,a"},
			want: func() daemon.RolloutPolicy {
				p := annotatedPolicy
				p.Order = daemon.UpdateOrder{Label: zone, Values: []string{"c", "a"}}
				return p
			}(), wantBudget: "3", wantOverrides: []string{"--order-values"}},
		{name: "--domain-max-unavailable alone keeps the annotated domain", strategy: appsv1.OnDeleteDaemonSetStrategyType,
			annotations: annotated, args: []string{"--domain-max-unavailable", "2"},
			want: func() daemon.RolloutPolicy {
				p := annotatedPolicy
				p.DomainBudget = &daemon.DomainBudget{Label: zone, MaxUnavailable: ios("2")}
				return p
			}(), wantBudget: "3", wantOverrides: []string{"--domain-max-unavailable"}},
		{name: "--wave-bake with the annotated order label", strategy: appsv1.OnDeleteDaemonSetStrategyType,
			annotations: map[string]string{progressive.AnnotationOrderBy: zone}, args: []string{"--wave-bake", "5s"},
			want:       daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: zone}, Waves: &rollout.WaveBarrier{Bake: 5 * time.Second}},
			wantBudget: "1", wantOverrides: []string{"--wave-bake"}},
		{name: "--wave-bake without any order label", strategy: appsv1.OnDeleteDaemonSetStrategyType,
			args: []string{"--wave-bake", "5s"}, wantUsage: true},
		{name: "--domain-max-unavailable without any domain", strategy: appsv1.OnDeleteDaemonSetStrategyType,
			annotations: map[string]string{progressive.AnnotationStrict: "true"}, args: []string{"--domain-max-unavailable", "1"}, wantUsage: true},
		{name: "invalid annotations", strategy: appsv1.OnDeleteDaemonSetStrategyType,
			annotations: map[string]string{progressive.AnnotationPartition: "x"}, wantInput: true},
		{name: "max-unavailable on a RollingUpdate DaemonSet", strategy: appsv1.RollingUpdateDaemonSetStrategyType,
			annotations: map[string]string{progressive.AnnotationMaxUnavailable: "2"}, wantInput: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := &appsv1.DaemonSet{
				ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "agent", Annotations: tt.annotations},
				Spec:       appsv1.DaemonSetSpec{UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: tt.strategy}},
			}
			before := ds.DeepCopy()
			var pf policyFlags
			fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
			fs.SetOutput(io.Discard)
			pf.register(fs, true)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			pf.parsed(fs)
			if err := pf.check(); err != nil {
				t.Fatalf("check() = %v", err)
			}
			got, err := pf.rolloutOf(ds, nil)
			var ue *usageError
			var ie *inputError
			if gotUsage, gotInput := errors.As(err, &ue), errors.As(err, &ie); gotUsage != tt.wantUsage || gotInput != tt.wantInput {
				t.Fatalf("rolloutOf() error = %v, want usage %v, input %v", err, tt.wantUsage, tt.wantInput)
			}
			if diff := cmp.Diff(before, ds); diff != "" {
				t.Errorf("rolloutOf modified the DaemonSet (-before +after):\n%s", diff)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tt.want, got.policy, cmp.Comparer(func(a, b intstr.IntOrString) bool { return a == b })); diff != "" {
				t.Errorf("policy (-want +got):\n%s", diff)
			}
			budget := ""
			if got.strategyChanged() {
				if got.ds.Spec.UpdateStrategy.Type != appsv1.RollingUpdateDaemonSetStrategyType {
					t.Errorf("planned with %s, want RollingUpdate", got.ds.Spec.UpdateStrategy.Type)
				}
				budget = got.ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable.String()
			} else if got.ds != ds {
				t.Errorf("the DaemonSet's own strategy is kept, yet another DaemonSet is planned")
			}
			if budget != tt.wantBudget {
				t.Errorf("maxUnavailable planned with %q, want %q", budget, tt.wantBudget)
			}
			if diff := cmp.Diff(tt.wantOverrides, got.overrides); diff != "" {
				t.Errorf("overrides (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEveryKeyHasAFlag: simulate has a flag for every key of the
// schema (progressive.Keys), named as the key, with the key's doc as its
// help; plan those that shape a plan.
func TestEveryKeyHasAFlag(t *testing.T) {
	for _, cmd := range []struct {
		name  string
		flags func(*invocation, *pflag.FlagSet)
		all   bool
	}{{"simulate", simulateFlags, true}, {"plan", planFlags, false}} {
		fs := pflag.NewFlagSet(cmd.name, pflag.ContinueOnError)
		cmd.flags(&invocation{}, fs)
		for _, k := range progressive.Keys() {
			name := strings.TrimPrefix(k.Name, progressive.AnnotationPrefix)
			f := fs.Lookup(name)
			switch {
			case f == nil && (cmd.all || k.Plan):
				t.Errorf("%s has no --%s for the annotation %s", cmd.name, name, k.Name)
			case f != nil && !cmd.all && !k.Plan:
				t.Errorf("plan has --%s, a key read beyond one plan", name)
			case f != nil && !strings.Contains(f.Usage, k.Doc):
				t.Errorf("%s --%s: help %q, want the key's doc %q", cmd.name, name, f.Usage, k.Doc)
			}
		}
	}
}

// TestKeyFlagErrors: a value the library's parser refuses names the flag
// and the key, before any input is read.
func TestKeyFlagErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--canary", "0"}, `rollout controls: --canary "0" (rollout.daemonplan.io/canary): must be an integer from 1 to 100000 or a percentage from 1% to 100%`},
		{[]string{"--window", "Mon 25:00-26:00"}, `rollout controls: --window "Mon 25:00-26:00" (rollout.daemonplan.io/window): `},
		{[]string{"--paused=maybe"}, `rollout controls: --paused "maybe" (rollout.daemonplan.io/paused): must be "true" or "false"`},
		{[]string{"--domain-label", "-bad"}, `rollout controls: --domain "-bad" (rollout.daemonplan.io/domain): must be a node label key`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var pf policyFlags
			fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
			pf.register(fs, true)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			pf.parsed(fs)
			err := pf.check()
			var ue *usageError
			if !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("check() = %v, want a usage error starting %q", err, tt.want)
			}
		})
	}
}
