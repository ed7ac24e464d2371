package daemon_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/rollout"
)

const zone = "topology.kubernetes.io/zone"

func pios(s string) *intstr.IntOrString {
	v := intstr.Parse(s)
	return &v
}

// oldCluster returns n nodes n1..n<n> in zones a and b alternately, each
// running an old (hash v1) pod; the pods on the nodes in unready are not
// ready.
func oldCluster(ds *appsv1.DaemonSet, n int, unready ...string) ([]*corev1.Node, []*corev1.Pod) {
	var nodes []*corev1.Node
	var pods []*corev1.Pod
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("n%d", i)
		nodes = append(nodes, dt.Node(name, dt.WithLabel(zone, string(rune('a'+(i-1)%2)))))
		opts := []dt.PodOption{dt.WithHash("v1")}
		for _, u := range unready {
			if u == name {
				opts = append(opts, dt.NotReadyPod())
			}
		}
		pods = append(pods, dt.Pod(ds, ds.Name+"-"+name, name, opts...))
	}
	return nodes, pods
}

// actedOn lists the nodes of a plan's creates and deletes, in order.
func actedOn(p daemon.Plan) []string {
	var out []string
	for _, c := range p.Creates {
		out = append(out, "create "+c.NodeName)
	}
	for _, d := range p.Deletes {
		out = append(out, "delete "+d.NodeName)
	}
	return out
}

func TestRolloutPolicy(t *testing.T) {
	reverse := func(a, b *corev1.Node) int { return strings.Compare(b.Name, a.Name) }
	tests := []struct {
		name     string
		maxU     string
		maxSurge string
		unready  []string
		pol      daemon.RolloutPolicy
		want     []string
		wantStep bool // a rolling step ran
	}{
		{name: "zero policy is upstream", maxU: "2", want: []string{"delete n1", "delete n2"}, wantStep: true},
		{name: "partition 4 of 6 keeps the last 4", maxU: "100%", pol: daemon.RolloutPolicy{Partition: pios("4")},
			want: []string{"delete n1", "delete n2"}, wantStep: true},
		{name: "partition 50% of 6 keeps 3", maxU: "100%", pol: daemon.RolloutPolicy{Partition: pios("50%")},
			want: []string{"delete n1", "delete n2", "delete n3"}, wantStep: true},
		{name: "partition 34% of 6 rounds up to 3", maxU: "100%", pol: daemon.RolloutPolicy{Partition: pios("34%")},
			want: []string{"delete n1", "delete n2", "delete n3"}, wantStep: true},
		{name: "partition above desired updates nothing", maxU: "100%", pol: daemon.RolloutPolicy{Partition: pios("10")},
			wantStep: true},
		{name: "partition bounds unavailable old pods too, first in order", maxU: "1", unready: []string{"n4", "n6"},
			pol: daemon.RolloutPolicy{Partition: pios("5")}, want: []string{"delete n4"}, wantStep: true},
		{name: "scope updates matching nodes only", maxU: "100%",
			pol:  daemon.RolloutPolicy{Scope: &metav1.LabelSelector{MatchLabels: map[string]string{zone: "b"}}},
			want: []string{"delete n2", "delete n4", "delete n6"}, wantStep: true},
		{name: "scope leaves unavailable old pods outside it", maxU: "1", unready: []string{"n1"},
			pol:  daemon.RolloutPolicy{Scope: &metav1.LabelSelector{MatchLabels: map[string]string{zone: "b"}}},
			want: nil, wantStep: true},
		{name: "partition counts in-scope nodes only", maxU: "100%",
			pol:  daemon.RolloutPolicy{Partition: pios("1"), Scope: &metav1.LabelSelector{MatchLabels: map[string]string{zone: "b"}}},
			want: []string{"delete n2", "delete n4"}, wantStep: true},
		{name: "order by zone, listed value first", maxU: "2",
			pol:  daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: zone, Values: []string{"b"}}},
			want: []string{"delete n2", "delete n4"}, wantStep: true},
		{name: "order by zone, unlisted values in string order", maxU: "4",
			pol:  daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: zone}},
			want: []string{"delete n1", "delete n2", "delete n3", "delete n5"}, wantStep: true},
		{name: "order label no node carries ties: name decides", maxU: "2",
			pol:  daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: "example.com/rack"}},
			want: []string{"delete n1", "delete n2"}, wantStep: true},
		{name: "caller priority", maxU: "2", pol: daemon.RolloutPolicy{Order: daemon.UpdateOrder{Compare: reverse}},
			want: []string{"delete n5", "delete n6"}, wantStep: true},
		{name: "partition keeps the last in the caller's order", maxU: "100%",
			pol:  daemon.RolloutPolicy{Partition: pios("4"), Order: daemon.UpdateOrder{Compare: reverse}},
			want: []string{"delete n5", "delete n6"}, wantStep: true},
		{name: "unavailable pods still go first in any order", maxU: "2", unready: []string{"n1"},
			pol:  daemon.RolloutPolicy{Order: daemon.UpdateOrder{Compare: reverse}},
			want: []string{"delete n1", "delete n6"}, wantStep: true},
		{name: "domain budget: one node per zone at once", maxU: "100%",
			pol:  daemon.RolloutPolicy{DomainBudget: &daemon.DomainBudget{Label: zone, MaxUnavailable: pios("1")}},
			want: []string{"delete n1", "delete n2"}, wantStep: true},
		{name: "domain budget as a percentage, rounded up", maxU: "100%",
			pol:  daemon.RolloutPolicy{DomainBudget: &daemon.DomainBudget{Label: zone, MaxUnavailable: pios("50%")}},
			want: []string{"delete n1", "delete n2", "delete n3", "delete n4"}, wantStep: true},
		{name: "domain budget with surge", maxU: "0", maxSurge: "100%",
			pol:  daemon.RolloutPolicy{DomainBudget: &daemon.DomainBudget{Label: zone, MaxSurge: pios("1")}},
			want: []string{"create n1", "create n2"}, wantStep: true},
		{name: "upstream replaces every unavailable old pod at once", maxU: "1", unready: []string{"n2", "n3", "n5"},
			want: []string{"delete n2", "delete n3", "delete n5"}, wantStep: true},
		{name: "strict: unavailable old pods within the budget", maxU: "1", unready: []string{"n2", "n3", "n5"},
			pol: daemon.RolloutPolicy{Strict: true}, want: []string{"delete n2"}, wantStep: true},
		{name: "strict with surge", maxU: "0", maxSurge: "1", unready: []string{"n2", "n3"},
			pol: daemon.RolloutPolicy{Strict: true}, want: []string{"create n2"}, wantStep: true},
		{name: "paused: no step", maxU: "100%", pol: daemon.RolloutPolicy{Paused: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := []dt.DaemonSetOption{dt.WithMaxUnavailable(tt.maxU)}
			if tt.maxSurge != "" {
				opts = append(opts, dt.WithMaxSurge(tt.maxSurge))
			}
			ds := dt.DaemonSet("agent", opts...)
			nodes, pods := oldCluster(ds, 6, tt.unready...)
			plan, err := daemon.Compute(ds, nodes, pods, daemon.Options{Now: dt.Epoch, Rollout: tt.pol})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, actedOn(plan)); diff != "" {
				t.Errorf("actions (-want +got):\n%s", diff)
			}
			if got := plan.Rolling != nil; got != tt.wantStep {
				t.Errorf("rolling step ran = %v, want %v", got, tt.wantStep)
			}
		})
	}
}

// TestRolloutPolicyReport: Plan.Rolling.Policy is reported exactly when
// the policy shapes the step; a policy that cannot change it (a partition
// of 0, Order.Values without a label) runs upstream's step and reports
// nothing, while a scope that holds no node, or an order over one node,
// still reports the counts.
func TestRolloutPolicyReport(t *testing.T) {
	tests := []struct {
		name  string
		nodes int
		pol   daemon.RolloutPolicy
		want  *rollout.StepPolicy
	}{
		{name: "zero policy", nodes: 3},
		{name: "partition 0", nodes: 3, pol: daemon.RolloutPolicy{Partition: pios("0")}},
		{name: "partition 0%", nodes: 3, pol: daemon.RolloutPolicy{Partition: pios("0%")}},
		{name: "order values without a label", nodes: 3, pol: daemon.RolloutPolicy{Order: daemon.UpdateOrder{Values: []string{"a"}}}},
		{name: "partition 1", nodes: 3, pol: daemon.RolloutPolicy{Partition: pios("1")}, want: &rollout.StepPolicy{Partition: 1, Remaining: 3}},
		{name: "empty scope holds nothing", nodes: 3, pol: daemon.RolloutPolicy{Scope: &metav1.LabelSelector{}}, want: &rollout.StepPolicy{Remaining: 3}},
		{name: "scope holds zone b", nodes: 3, pol: daemon.RolloutPolicy{Scope: &metav1.LabelSelector{MatchLabels: map[string]string{zone: "a"}}},
			want: &rollout.StepPolicy{Remaining: 2, Held: 1}},
		{name: "order over one node", nodes: 1, pol: daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: zone}}, want: &rollout.StepPolicy{Remaining: 1}},
		{name: "strict", nodes: 3, pol: daemon.RolloutPolicy{Strict: true}, want: &rollout.StepPolicy{Remaining: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := dt.DaemonSet("agent", dt.WithMaxUnavailable("1"))
			nodes, pods := oldCluster(ds, tt.nodes)
			plan, err := daemon.Compute(ds, nodes, pods, daemon.Options{Now: dt.Epoch, Rollout: tt.pol})
			if err != nil {
				t.Fatal(err)
			}
			if plan.Rolling == nil {
				t.Fatal("no rolling step")
			}
			if diff := cmp.Diff(tt.want, plan.Rolling.Policy); diff != "" {
				t.Errorf("Rolling.Policy (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRolloutPolicyPausedCreates: while paused, the create/delete pass
// still runs; the missing pod is created at the current revision.
func TestRolloutPolicyPausedCreates(t *testing.T) {
	ds := dt.DaemonSet("agent", dt.WithMaxUnavailable("100%"))
	nodes, pods := oldCluster(ds, 3)
	nodes = append(nodes, dt.Node("n4"))
	plan, err := daemon.Compute(ds, nodes, pods, daemon.Options{Now: dt.Epoch, Rollout: daemon.RolloutPolicy{Paused: true}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"create n4"}, actedOn(plan)); diff != "" {
		t.Errorf("actions (-want +got):\n%s", diff)
	}
	if got, want := plan.Creates[0].Pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey], plan.Hash; got != want {
		t.Errorf("created pod's revision = %q, want the current %q", got, want)
	}
}

func TestRolloutPolicyErrors(t *testing.T) {
	tests := []struct {
		name string
		pol  daemon.RolloutPolicy
		want string
	}{
		{name: "partition above 100%", pol: daemon.RolloutPolicy{Partition: pios("150%")},
			want: `rollout.partition: Invalid value: "150%"`},
		{name: "partition not a percentage", pol: daemon.RolloutPolicy{Partition: pios("1x%")},
			want: `rollout.partition: Invalid value: "1x%"`},
		{name: "negative partition", pol: daemon.RolloutPolicy{Partition: pios("-1")},
			want: `rollout.partition: Invalid value: "-1"`},
		{name: "malformed scope", pol: daemon.RolloutPolicy{Scope: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "zone", Operator: "Near"}}}},
			want: `rollout.scope: Invalid value:`},
		{name: "malformed order label", pol: daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: "not a key!"}},
			want: `rollout.order.label: Invalid value: "not a key!"`},
		{name: "domain budget without a label", pol: daemon.RolloutPolicy{DomainBudget: &daemon.DomainBudget{MaxUnavailable: pios("1")}},
			want: `rollout.domainBudget.label: Required value`},
		{name: "domain budget without a budget", pol: daemon.RolloutPolicy{DomainBudget: &daemon.DomainBudget{Label: zone}},
			want: `rollout.domainBudget.maxUnavailable: Required value`},
		{name: "canary of 0", pol: daemon.RolloutPolicy{Canary: &daemon.CanarySpec{Count: intstr.FromInt32(0)}},
			want: `rollout.canary.count: Invalid value: 0: must be an integer at least 1 or a percentage from 1% to 100%`},
		{name: "canary of 0%", pol: daemon.RolloutPolicy{Canary: &daemon.CanarySpec{Count: intstr.FromString("0%")}},
			want: `rollout.canary.count: Invalid value: "0%"`},
		{name: "canary above 100%", pol: daemon.RolloutPolicy{Canary: &daemon.CanarySpec{Count: intstr.FromString("101%")}},
			want: `rollout.canary.count: Invalid value: "101%"`},
		{name: "canary not a number", pol: daemon.RolloutPolicy{Canary: &daemon.CanarySpec{Count: intstr.FromString("three")}},
			want: `rollout.canary.count: Invalid value: "three"`},
		{name: "canary spread malformed", pol: daemon.RolloutPolicy{Canary: &daemon.CanarySpec{Count: intstr.FromInt32(1), Spread: "not a key!"}},
			want: `rollout.canary.spread: Invalid value: "not a key!"`},
		{name: "waves without an order label or a canary", pol: daemon.RolloutPolicy{Waves: &rollout.WaveBarrier{}},
			want: `rollout.order.label: Required value: waves are the values of an order label (or a canary and the rest)`},
		{name: "domain budget negative", pol: daemon.RolloutPolicy{DomainBudget: &daemon.DomainBudget{Label: zone, MaxSurge: pios("-2")}},
			want: `rollout.domainBudget.maxSurge: Invalid value: "-2"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := dt.DaemonSet("agent")
			nodes, pods := oldCluster(ds, 2)
			plan, err := daemon.Compute(ds, nodes, pods, daemon.Options{Now: dt.Epoch, Rollout: tt.pol})
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			const prefix = `daemonset "default/agent": rollout policy: `
			if !strings.HasPrefix(err.Error(), prefix+tt.want) {
				t.Errorf("error = %q, want prefix %q", err, prefix+tt.want)
			}
			if !errors.Is(err, daemon.ErrInvalidInput) {
				t.Errorf("error %v does not wrap ErrInvalidInput", err)
			}
			if diff := cmp.Diff(daemon.Plan{}, plan); diff != "" {
				t.Errorf("plan is not zero (-want +got):\n%s", diff)
			}
		})
	}
}
