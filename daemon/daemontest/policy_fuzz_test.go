package daemontest_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/rollout"
)

// drawPolicy draws a rollout policy from r: each option on or off, with
// values that are sometimes out of range (a partition above the desired
// count, a percentage above 100%, a label no node carries); a wave barrier
// (with or without a bake) on half the policies with an order label.
func drawPolicy(r *rand.Rand) daemon.RolloutPolicy {
	var p daemon.RolloutPolicy
	if r.IntN(2) == 0 {
		p.Partition = intOrStr([]string{"0", "1", "2", "5", "100", "25%", "50%", "100%", "150%"}[r.IntN(9)])
	}
	if r.IntN(3) == 0 {
		p.Scope = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: zoneKey, Operator: metav1.LabelSelectorOpIn, Values: []string{"zone-a", "zone-b"}[:1+r.IntN(2)]}}}
	}
	p.Paused = r.IntN(6) == 0
	switch r.IntN(4) {
	case 1:
		p.Order.Label, p.Order.Values = zoneKey, []string{"zone-c", "zone-a"}
	case 2:
		p.Order.Label = "example.com/none"
	case 3:
		p.Order.Compare = func(a, b *corev1.Node) int { return strings.Compare(b.Name, a.Name) }
	}
	if r.IntN(3) == 0 {
		p.DomainBudget = &daemon.DomainBudget{Label: zoneKey, MaxUnavailable: intOrStr([]string{"1", "50%", "0"}[r.IntN(3)]),
			MaxSurge: intOrStr([]string{"1", "100%"}[r.IntN(2)])}
	}
	p.Strict = r.IntN(3) == 0
	if p.Order.Label != "" && r.IntN(2) == 0 {
		p.Waves = &rollout.WaveBarrier{Bake: []time.Duration{0, 3 * time.Second, time.Minute}[r.IntN(3)]}
	}
	return p
}

// FuzzComputePolicy draws a cluster and a rollout policy together from the
// fuzzer's bytes, checks every invariant (the policy's included) of one
// plan, and, for healthy rollouts, simulates the policy to its end.
func FuzzComputePolicy(f *testing.F) {
	for seed := range uint64(12) {
		f.Add(seed, seed%3 == 0)
	}
	f.Fuzz(func(t *testing.T, seed uint64, healthy bool) {
		r := rand.New(rand.NewPCG(seed, 0x706f6c))
		c := dt.GenerateCluster(r, dt.ClusterConfig{Healthy: healthy, Rollout: healthy})
		zoned(c)
		c.Rollout = drawPolicy(r)
		rep := dt.CheckPlan(c.Input(), dt.CheckOptions{Seed: seed, Permutations: 1})
		if err := rep.Err(); err != nil {
			t.Fatalf("policy %+v: Compute error %v; %v", c.Rollout, rep.ComputeErr, err)
		}
		if !healthy || rep.ComputeErr != nil {
			return
		}
		res := dt.Simulate(c, dt.SimConfig{Seed: seed, Check: true, ReadyDelay: 2 * time.Second,
			CheckOptions: dt.CheckOptions{Permutations: -1}})
		for _, st := range res.Steps {
			if len(st.Violations) > 0 {
				t.Fatalf("policy %+v: step %d: %v", c.Rollout, st.Step, st.Violations)
			}
		}
		if res.Outcome == dt.OutcomeStepLimit {
			t.Fatalf("policy %+v: %s", c.Rollout, res.Reason)
		}
		if res.Outcome == dt.OutcomeStalled && !c.Rollout.Paused && c.DaemonSet.Spec.UpdateStrategy.RollingUpdate != nil {
			t.Fatalf("policy %+v: stalled: %s", c.Rollout, res.Reason)
		}
	})
}
