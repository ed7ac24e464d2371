package progressive_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/daemon/simulate"
)

// zoned labels c's nodes with three zones.
func zoned(c *simulate.Cluster) {
	for i, n := range c.Nodes {
		if n.Labels == nil {
			n.Labels = map[string]string{}
		}
		n.Labels[zone] = fmt.Sprintf("zone-%c", 'a'+i%3)
	}
}

// FuzzJudge judges clusters drawn as daemontest's policy fuzzers draw
// them, under a drawn policy, and every sync of a simulated rollout from
// the healthy ones, and checks what a judgement promises: the judgement of
// a Planner's plan is Compute's, also after the Planner planned another
// cluster (the standing is the plan's own); Complete is the reason's; a
// complete rollout's plan asks for nothing; the counts add up (per wave to
// the total; updated and waiting within desired; kept within old); a
// paused cause only under Paused. Until the judge replaced it, this target
// also held Judge equal to daemon.RolloutComplete on every input (its
// corpus was found then).
func FuzzJudge(f *testing.F) {
	for seed := range uint64(12) {
		f.Add(seed, uint8(seed))
	}
	f.Fuzz(func(t *testing.T, seed uint64, kind uint8) {
		r := rand.New(rand.NewPCG(seed, 0x6a756467))
		cfg := []dt.ClusterConfig{{}, {Healthy: true}, {Healthy: true, Rollout: true}}[kind%3]
		c := dt.GenerateCluster(r, cfg)
		zoned(c)
		c.Rollout = dt.GeneratePolicy(r, zone)
		other := dt.GenerateCluster(rand.New(rand.NewPCG(seed, 2)), dt.ClusterConfig{Healthy: true, Rollout: true}).Input()
		p := daemon.NewPlanner()
		check := func(cl *simulate.Cluster) {
			in := cl.Input()
			opts := in.Options
			opts.ReportStanding = true
			want, wantErr := judge(in.DaemonSet, in.Nodes, in.Pods, opts)
			plan, err := p.Compute(in.DaemonSet, in.Nodes, in.Pods, opts)
			_, _ = p.Compute(other.DaemonSet, other.Nodes, other.Pods, daemon.Options{Now: other.Options.Now, Rollout: c.Rollout, ReportStanding: true})
			var got progressive.Judgement
			if err == nil {
				got, err = progressive.Judge(in.DaemonSet, &plan)
			}
			if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
				t.Fatalf("policy %+v: Planner: error %v, Compute's %v", cl.Rollout, err, wantErr)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("policy %+v: judgement (-Compute +Planner):\n%s", cl.Rollout, diff)
			}
			if v := judgementViolations(cl, &plan, got); v != "" {
				t.Fatalf("policy %+v: %s; judgement %+v", cl.Rollout, v, got)
			}
		}
		check(c)
		if !cfg.Healthy {
			return
		}
		simulate.Run(c, simulate.Config{Seed: seed, ReadyDelay: 2 * time.Second, MaxSteps: 80,
			OnStep: func(_ simulate.StepTrace, cl *simulate.Cluster) { check(cl) }})
	})
}

// judgementViolations says what j, the judgement of plan, breaks of its
// promises; "" when nothing.
func judgementViolations(cl *simulate.Cluster, plan *daemon.Plan, j progressive.Judgement) string {
	acts := len(plan.Creates) + len(plan.Deletes) + plan.DeferredCreates + plan.DeferredDeletes
	switch {
	case j.Complete != j.Reason.Complete():
		return "Complete is not the reason's"
	case j.Reason.Cause == "":
		return "no cause"
	case plan.Skip != daemon.SkipNone && j.Reason.Cause != progressive.CauseSkipped:
		return "a skipped plan not judged skipped"
	case j.Complete && acts > 0:
		return "complete while the plan acts"
	case j.Reason.Cause == progressive.CausePaused && !cl.Rollout.Paused:
		return "paused without Paused"
	}
	t := j.Total
	if t.Updated+t.Waiting > t.Desired || t.Available > t.Desired || t.Old > t.Desired || t.Kept > t.Old {
		return "total counts out of range"
	}
	if len(j.Waiting) != t.Waiting {
		return "Waiting names another count"
	}
	if len(j.Waves) > 0 {
		var sum progressive.Tally
		for _, w := range j.Waves {
			sum.Desired += w.Desired
			sum.Updated += w.Updated
			sum.Held += w.Held
			sum.Waiting += w.Waiting
		}
		if sum.Desired != t.Desired || sum.Updated != t.Updated || sum.Held != t.Held || sum.Waiting != t.Waiting {
			return "the waves do not add up to the total"
		}
	}
	return ""
}
