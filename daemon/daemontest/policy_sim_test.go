package daemontest_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/rollout"
)

const zoneKey = "topology.kubernetes.io/zone"

// zoned labels the nodes of c with three zones and a canary label on every
// fourth node, in place.
func zoned(c *dt.Cluster) {
	for i, n := range c.Nodes {
		if n.Labels == nil {
			n.Labels = map[string]string{}
		}
		n.Labels[zoneKey] = fmt.Sprintf("zone-%c", 'a'+i%3)
		if i%4 == 0 {
			n.Labels["canary"] = "true"
		}
	}
}

func intOrStr(s string) *intstr.IntOrString {
	v := intstr.Parse(s)
	return &v
}

// policies are the options the simulator runs on generated clusters.
func policies() []struct {
	name string
	pol  daemon.RolloutPolicy
} {
	return []struct {
		name string
		pol  daemon.RolloutPolicy
	}{
		{"partition 2", daemon.RolloutPolicy{Partition: intOrStr("2")}},
		{"partition 50%", daemon.RolloutPolicy{Partition: intOrStr("50%")}},
		{"partition above desired", daemon.RolloutPolicy{Partition: intOrStr("100")}},
		{"scope canary", daemon.RolloutPolicy{Scope: &metav1.LabelSelector{MatchLabels: map[string]string{"canary": "true"}}}},
		{"order by zone", daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: zoneKey, Values: []string{"zone-c", "zone-a"}}}},
		{"order by caller priority", daemon.RolloutPolicy{Order: daemon.UpdateOrder{Compare: func(a, b *corev1.Node) int {
			return strings.Compare(b.Name, a.Name) // reverse name order
		}}}},
		{"domain budget 1 per zone", daemon.RolloutPolicy{DomainBudget: &daemon.DomainBudget{Label: zoneKey, MaxUnavailable: intOrStr("1"), MaxSurge: intOrStr("1")}}},
		{"strict", daemon.RolloutPolicy{Strict: true}},
		{"zone order, partition 1, strict", daemon.RolloutPolicy{Partition: intOrStr("1"), Strict: true,
			Order: daemon.UpdateOrder{Label: zoneKey}}},
		{"zone waves, bake 30s", daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: zoneKey, Values: []string{"zone-b"}},
			Waves: &rollout.WaveBarrier{Bake: 30 * time.Second}}},
		{"zone waves, 1 per zone, partition 1, strict", daemon.RolloutPolicy{Partition: intOrStr("1"), Strict: true,
			Order: daemon.UpdateOrder{Label: zoneKey}, Waves: &rollout.WaveBarrier{Bake: 10 * time.Second},
			DomainBudget: &daemon.DomainBudget{Label: zoneKey, MaxUnavailable: intOrStr("1"), MaxSurge: intOrStr("1")}}},
		{"canary waves, scope zone-a and zone-b", daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: "canary"},
			Waves: &rollout.WaveBarrier{},
			Scope: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: zoneKey, Operator: metav1.LabelSelectorOpIn, Values: []string{"zone-a", "zone-b"}}}}}},
	}
}

// TestSimulatePolicies runs every policy on generated rollouts to
// convergence (at the partition, within the scope) with every invariant
// checked at every step.
func TestSimulatePolicies(t *testing.T) {
	seeds := 12
	if testing.Short() {
		seeds = 4
	}
	for _, p := range policies() {
		t.Run(p.name, func(t *testing.T) {
			for seed := range uint64(seeds) {
				c := dt.GenerateCluster(rand.New(rand.NewPCG(seed, 12)), dt.ClusterConfig{Healthy: true, Rollout: true})
				if c.DaemonSet.Spec.UpdateStrategy.Type != appsv1.RollingUpdateDaemonSetStrategyType {
					continue // OnDelete waits for the user under any policy
				}
				zoned(c)
				c.Rollout = p.pol
				cfg := dt.SimConfig{Seed: seed, Check: true, ReadyDelay: 5 * time.Second, GracePeriod: 3 * time.Second,
					CheckOptions: dt.CheckOptions{Permutations: 1}}
				if seed%2 == 1 {
					// Some new pods fail, and a node goes NotReady for a while:
					// its old pod turns unavailable mid-rollout.
					cfg.FailFraction = 0.2
					cfg.Events = []dt.ClusterEvent{
						{At: 3 * time.Second, Kind: dt.NodeNotReady, NodeName: c.Nodes[0].Name},
						{At: time.Minute, Kind: dt.NodeReady, NodeName: c.Nodes[0].Name}}
				}
				res := dt.Simulate(c, cfg)
				if err := res.Err(); err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
			}
		})
	}
}

// TestSimulatePaused: a paused rollout replaces nothing and stalls, with
// every invariant holding; a rollout with nothing to update converges.
func TestSimulatePaused(t *testing.T) {
	for seed := range uint64(6) {
		c := dt.GenerateCluster(rand.New(rand.NewPCG(seed, 12)), dt.ClusterConfig{Healthy: true, Rollout: true})
		c.Rollout.Paused = true
		res := dt.Simulate(c, dt.SimConfig{Seed: seed, Check: true, ReadyDelay: 5 * time.Second})
		for _, st := range res.Steps {
			if len(st.Violations) > 0 || st.Rolling {
				t.Fatalf("seed %d step %d: rolling %v, violations %v", seed, st.Step, st.Rolling, st.Violations)
			}
		}
		if res.Outcome == dt.OutcomeStalled && !strings.Contains(res.Reason, "paused") {
			t.Errorf("seed %d: stalled for %q, want the pause named", seed, res.Reason)
		}
		if res.Outcome == dt.OutcomeStepLimit {
			t.Errorf("seed %d: step limit", seed)
		}
	}
}
