package progressive_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/rollout"
)

// drawPolicy draws a rollout policy from r, as daemontest's policy fuzzers
// do: each option on or off, with values sometimes out of range.
func drawPolicy(r *rand.Rand) daemon.RolloutPolicy {
	var p daemon.RolloutPolicy
	if r.IntN(2) == 0 {
		p.Partition = pios([]string{"0", "1", "2", "5", "100", "25%", "50%", "100%", "150%"}[r.IntN(9)])
	}
	if r.IntN(3) == 0 {
		p.Scope = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: zone, Operator: metav1.LabelSelectorOpIn, Values: []string{"zone-a", "zone-b"}[:1+r.IntN(2)]}}}
	}
	p.Paused = r.IntN(6) == 0
	switch r.IntN(4) {
	case 1:
		p.Order.Label, p.Order.Values = zone, []string{"zone-c", "zone-a"}
	case 2:
		p.Order.Label = "example.com/none"
	case 3:
		p.Order.Compare = func(a, b *corev1.Node) int { return strings.Compare(b.Name, a.Name) }
	}
	if r.IntN(3) == 0 {
		p.DomainBudget = &daemon.DomainBudget{Label: zone, MaxUnavailable: pios([]string{"1", "50%", "0"}[r.IntN(3)]),
			MaxSurge: pios([]string{"1", "100%"}[r.IntN(2)])}
	}
	p.Strict = r.IntN(3) == 0
	if p.Order.Label != "" && r.IntN(2) == 0 {
		p.Waves = &rollout.WaveBarrier{Bake: []time.Duration{0, 3 * time.Second, time.Minute}[r.IntN(3)]}
	}
	return p
}

// zoned labels c's nodes with three zones.
func zoned(c *dt.Cluster) {
	for i, n := range c.Nodes {
		if n.Labels == nil {
			n.Labels = map[string]string{}
		}
		n.Labels[zone] = fmt.Sprintf("zone-%c", 'a'+i%3)
	}
}

// FuzzJudgeMatchesRolloutComplete holds Judge, reading one plan, equal to
// daemon.RolloutComplete, which walks the pods again, on the same inputs:
// clusters drawn as daemontest's policy fuzzers draw them, under a drawn
// policy, and every sync of a simulated rollout from the healthy ones. The
// plan is computed by a Planner that then plans another cluster, so that
// the read-out is also checked to outlive the Planner's next plan.
func FuzzJudgeMatchesRolloutComplete(f *testing.F) {
	for seed := range uint64(12) {
		f.Add(seed, uint8(seed))
	}
	f.Fuzz(func(t *testing.T, seed uint64, kind uint8) {
		r := rand.New(rand.NewPCG(seed, 0x6a756467))
		cfg := []dt.ClusterConfig{{}, {Healthy: true}, {Healthy: true, Rollout: true}}[kind%3]
		c := dt.GenerateCluster(r, cfg)
		zoned(c)
		c.Rollout = drawPolicy(r)
		other := dt.GenerateCluster(rand.New(rand.NewPCG(seed, 2)), dt.ClusterConfig{Healthy: true, Rollout: true}).Input()
		p := daemon.NewPlanner()
		check := func(cl *dt.Cluster) {
			in := cl.Input()
			wantDone, want, wantErr := daemon.RolloutComplete(in.DaemonSet, in.Nodes, in.Pods, in.Options)
			opts := in.Options
			opts.ReadOut = true
			plan, err := p.Compute(in.DaemonSet, in.Nodes, in.Pods, opts)
			_, _ = p.Compute(other.DaemonSet, other.Nodes, other.Pods, daemon.Options{Now: other.Options.Now, Rollout: c.Rollout, ReadOut: true})
			var got progressive.Judgement
			if err == nil {
				got, err = progressive.Judge(in.DaemonSet, &plan)
			}
			if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
				t.Fatalf("policy %+v: error %v, RolloutComplete's %v", cl.Rollout, err, wantErr)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(fromOld(want), got.Reason); diff != "" || got.Complete != wantDone {
				t.Fatalf("policy %+v: complete %v, RolloutComplete's %v; reason (-RolloutComplete +Judge):\n%s", cl.Rollout, got.Complete, wantDone, diff)
			}
		}
		check(c)
		if !cfg.Healthy {
			return
		}
		dt.Simulate(c, dt.SimConfig{Seed: seed, ReadyDelay: 2 * time.Second, MaxSteps: 80,
			OnStep: func(_ dt.StepTrace, cl *dt.Cluster) { check(cl) }})
	})
}

// fromOld is RolloutComplete's reason as a Reason.
func fromOld(r daemon.RolloutReason) progressive.Reason {
	return progressive.Reason{Cause: progressive.Cause(r.Cause), Count: r.Count, Of: r.Of, Nodes: r.Nodes, MoreNodes: r.MoreNodes,
		Wave: r.Wave, Until: r.Until, Skip: r.Skip, Surge: r.Surge}
}
