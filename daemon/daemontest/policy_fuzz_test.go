package daemontest_test

import (
	"math/rand/v2"
	"testing"
	"time"

	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/simulate"
)

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
		c.Rollout = dt.GeneratePolicy(r, zoneKey)
		rep := dt.CheckPlan(c.Input(), dt.CheckOptions{Seed: seed, Permutations: 1})
		if err := rep.Err(); err != nil {
			t.Fatalf("policy %+v: Compute error %v; %v", c.Rollout, rep.ComputeErr, err)
		}
		if !healthy || rep.ComputeErr != nil {
			return
		}
		res := simulate.Run(c, simulate.Config{Seed: seed, Check: dt.Checker(dt.CheckOptions{Permutations: -1}), ReadyDelay: 2 * time.Second})
		for _, st := range res.Steps {
			if len(st.Violations) > 0 {
				t.Fatalf("policy %+v: step %d: %v", c.Rollout, st.Step, st.Violations)
			}
		}
		if res.Outcome == simulate.OutcomeStepLimit {
			t.Fatalf("policy %+v: %s", c.Rollout, res.Reason)
		}
		if res.Outcome == simulate.OutcomeStalled && !c.Rollout.Paused && c.DaemonSet.Spec.UpdateStrategy.RollingUpdate != nil {
			t.Fatalf("policy %+v: stalled: %s", c.Rollout, res.Reason)
		}
	})
}
