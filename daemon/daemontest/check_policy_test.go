package daemontest_test

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/simulate"
	"github.com/daemonplan/daemonplan/rollout"
)

// policyInput is six nodes in zones a and b running old pods (the ones in
// unready not ready) under a template at v2 with maxUnavailable maxU.
func policyInput(maxU string, unready ...int) simulate.Input {
	ds := dt.DaemonSet("agent", dt.WithImage("registry.example/agent:v2"), dt.WithMaxUnavailable(maxU))
	in := simulate.Input{DaemonSet: ds, Options: daemon.Options{Now: dt.Epoch}}
	for i := range 6 {
		name := fmt.Sprintf("n%d", i)
		in.Nodes = append(in.Nodes, dt.Node(name, dt.WithLabel(zoneKey, fmt.Sprintf("zone-%c", 'a'+i%2))))
		opts := []dt.PodOption{dt.WithHash("v1")}
		for _, u := range unready {
			if u == i {
				opts = append(opts, dt.NotReadyPod())
			}
		}
		in.Pods = append(in.Pods, dt.Pod(ds, "agent-"+name, name, opts...))
	}
	return in
}

// TestPolicyInvariants: a plan computed under the policy holds every
// invariant, and the upstream plan of the same input, judged as if it had
// been computed under the policy, breaks the policy's invariant.
func TestPolicyInvariants(t *testing.T) {
	tests := []struct {
		name   string
		in     simulate.Input
		pol    daemon.RolloutPolicy
		broken dt.Invariant
	}{
		{name: "paused", in: policyInput("2"), pol: daemon.RolloutPolicy{Paused: true}, broken: dt.InvariantPaused},
		{name: "partition", in: policyInput("100%"), pol: daemon.RolloutPolicy{Partition: intOrStr("50%")}, broken: dt.InvariantPartition},
		{name: "scope", in: policyInput("100%"), pol: daemon.RolloutPolicy{Scope: &metav1.LabelSelector{MatchLabels: map[string]string{zoneKey: "zone-a"}}},
			broken: dt.InvariantScope},
		{name: "order", in: policyInput("2"), pol: daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: zoneKey, Values: []string{"zone-b"}}},
			broken: dt.InvariantOrder},
		{name: "domain budget", in: policyInput("100%"), pol: daemon.RolloutPolicy{DomainBudget: &daemon.DomainBudget{Label: zoneKey, MaxUnavailable: intOrStr("1")}},
			broken: dt.InvariantDomainBudget},
		{name: "strict", in: policyInput("1", 1, 2, 4), pol: daemon.RolloutPolicy{Strict: true}, broken: dt.InvariantStrictBudget},
		{name: "waves", in: policyInput("100%"), pol: daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: zoneKey}, Waves: &rollout.WaveBarrier{}},
			broken: dt.InvariantWaveBarrier},
		{name: "waves hold unavailable old pods too", in: policyInput("1", 1), pol: daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: zoneKey}, Waves: &rollout.WaveBarrier{}},
			broken: dt.InvariantWaveBarrier},
		{name: "canary", in: policyInput("100%"), pol: daemon.RolloutPolicy{Canary: &daemon.CanarySpec{Count: *intOrStr("1")}},
			broken: dt.InvariantWaveBarrier},
		{name: "canary spread", in: policyInput("2"), pol: daemon.RolloutPolicy{Canary: &daemon.CanarySpec{Count: *intOrStr("2"), Spread: zoneKey},
			Order: daemon.UpdateOrder{Compare: func(a, b *corev1.Node) int { return strings.Compare(b.Name, a.Name) }}},
			broken: dt.InvariantOrder},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			upstream, err := tt.in.Compute()
			if err != nil {
				t.Fatal(err)
			}
			in := tt.in
			in.Options.Rollout = tt.pol
			if err := dt.CheckPlan(in, dt.CheckOptions{}).Err(); err != nil {
				t.Fatalf("the plan under the policy: %v", err)
			}
			found := false
			for _, v := range dt.CheckGivenPlan(in, upstream, nil) {
				found = found || v.Invariant == tt.broken
			}
			if !found {
				t.Errorf("the upstream plan judged under the policy does not break %s", tt.broken)
			}
		})
	}
}

// TestCanaryInvariant: a plan whose canary wave reports more desired
// nodes than Count allows, or that replaces more canary nodes than the
// budget, breaks CanaryWave.
func TestCanaryInvariant(t *testing.T) {
	in := policyInput("1")
	in.Options.Rollout = daemon.RolloutPolicy{Canary: &daemon.CanarySpec{Count: *intOrStr("2")}}
	plan, err := in.Compute()
	if err != nil {
		t.Fatal(err)
	}
	if vs := dt.CheckGivenPlan(in, plan, nil); len(vs) > 0 {
		t.Fatalf("the plan under the policy: %v", vs)
	}
	if got := plan.Rolling.Policy.Wave; got == nil || got.Name != daemon.CanaryWave || got.Desired != 2 {
		t.Fatalf("Rolling.Policy.Wave = %+v, want the canary of 2", got)
	}
	w := *plan.Rolling.Policy.Wave
	w.Desired = 3
	pol := *plan.Rolling.Policy
	pol.Wave = &w
	rolling := *plan.Rolling
	rolling.Policy = &pol
	bigger := plan
	bigger.Rolling = &rolling
	found := false
	for _, v := range dt.CheckGivenPlan(in, bigger, nil) {
		found = found || v.Invariant == dt.InvariantCanary
	}
	if !found {
		t.Errorf("a canary wave of 3 desired nodes, Count 2, does not break %s", dt.InvariantCanary)
	}
}
