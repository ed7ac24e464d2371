package daemontest_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/daemonplan/daemonplan/daemon/backoff"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/simulate"
	"github.com/daemonplan/daemonplan/rollout"
)

// seeds is how many generated clusters each property test simulates. The
// default keeps the package's tests within a few seconds; raise it for a
// long run: go test ./daemon/daemontest -run Property -daemontest.seeds=5000
var seeds = flag.Int("daemontest.seeds", 60, "number of seeds per property test")

// propertySeeds returns the number of seeds to run: -daemontest.seeds,
// scaled down by sample.
func propertySeeds() int { return sample(*seeds) }

// sample scales a heavy test's count n down under -short (a fifth) and
// under the race detector (an eighth), never below 1.
func sample(n int) int {
	switch {
	case raceEnabled:
		n /= 8
	case testing.Short():
		n /= 5
	}
	return max(n, 1)
}

// timing is the pace of one simulated cluster.
type timing struct {
	bind, ready, grace time.Duration
	minReady           time.Duration
}

// batch is the time one update batch of a rollout takes: a new pod is
// bound, runs, becomes available after minReadySeconds; without surge, the
// old pod's grace period comes first.
func (tm timing) batch(surge bool) time.Duration {
	w := max(tm.bind, tm.ready) + tm.minReady
	if !surge {
		w += tm.grace
	}
	return w
}

// drawSim draws a simulator configuration for cluster c from r.
func drawSim(r *rand.Rand, c *simulate.Cluster, seed uint64) (simulate.Config, timing) {
	tm := timing{
		bind:     []time.Duration{0, 0, 2 * time.Second}[r.IntN(3)],
		ready:    []time.Duration{0, 5 * time.Second, 20 * time.Second}[r.IntN(3)],
		grace:    []time.Duration{0, 10 * time.Second, 30 * time.Second}[r.IntN(3)],
		minReady: time.Duration(c.DaemonSet.Spec.MinReadySeconds) * time.Second,
	}
	cfg := simulate.Config{
		Seed: seed, BindDelay: tm.bind, ReadyDelay: tm.ready, GracePeriod: tm.grace,
		Check: dt.Checker(dt.CheckOptions{Seed: seed, Permutations: 1}),
	}
	// A small burst defers creates and deletes to the next sync, which
	// runs at once: it changes the number of steps, not the time.
	c.BurstReplicas = []int{0, 0, 0, 1, 2}[r.IntN(5)]
	return cfg, tm
}

// rolloutCase is one generated rollout: the cluster, the simulator
// configuration, its timing and its budgets at the start.
type rolloutCase struct {
	seed    uint64
	cluster *simulate.Cluster
	cfg     simulate.Config
	tm      timing
	budgets simulate.Budgets
	surge   bool
}

func newRolloutCase(seed uint64) rolloutCase {
	r := rand.New(rand.NewPCG(seed, 20250601))
	c := dt.GenerateCluster(r, dt.ClusterConfig{Healthy: true, Rollout: true})
	cfg, tm := drawSim(r, c, seed)
	desired := int(c.DaemonSet.Status.DesiredNumberScheduled)
	b := simulate.BudgetsOf(c.DaemonSet, desired)
	return rolloutCase{seed: seed, cluster: c, cfg: cfg, tm: tm, budgets: b, surge: b.MaxSurge != 0}
}

func (rc rolloutCase) String() string {
	ru := rc.cluster.DaemonSet.Spec.UpdateStrategy.RollingUpdate
	strategy := string(rc.cluster.DaemonSet.Spec.UpdateStrategy.Type)
	if ru != nil {
		strategy = fmt.Sprintf("maxUnavailable %v, maxSurge %v", ru.MaxUnavailable, ru.MaxSurge)
	}
	return fmt.Sprintf("seed %d: %d nodes, desired %d, %s, minReady %v, bind %v, ready %v, grace %v, burst %d",
		rc.seed, len(rc.cluster.Nodes), rc.budgets.Desired, strategy, rc.tm.minReady, rc.tm.bind, rc.tm.ready, rc.tm.grace, rc.cluster.BurstReplicas)
}

// batches is ⌈desired / budget⌉: maxSurge with surge, maxUnavailable without.
func (rc rolloutCase) batches() int {
	per := rc.budgets.MaxUnavailable
	if rc.surge {
		per = rc.budgets.MaxSurge
	}
	if per <= 0 || rc.budgets.Desired == 0 {
		return 0
	}
	return (rc.budgets.Desired + per - 1) / per
}

// bound is the longest a rollout may take: one batch per budget's worth of
// nodes, plus one batch of slack (a sync may start a batch just after the
// pods it waits for became available) and one grace period (the last old
// pods' deletion).
func (rc rolloutCase) bound() time.Duration {
	w := rc.tm.batch(rc.surge)
	return time.Duration(rc.batches()+1)*w + rc.tm.grace
}

// simulate runs the case and fails the test on a violation or when it
// does not converge.
func (rc rolloutCase) simulate(t *testing.T) simulate.Result {
	t.Helper()
	res := simulate.Run(rc.cluster, rc.cfg)
	if err := res.Err(); err != nil {
		t.Fatalf("%v:\n%v", rc, err)
	}
	return res
}

// TestPropertyRolloutConverges simulates rollouts of healthy clusters and
// checks that each converges in time, within its budgets, with every plan
// passing CheckPlan:
//   - it takes at most (⌈desired/budget⌉ + 1) batches plus a grace period
//     (see rolloutCase.bound);
//   - without surge, the nodes without an available pod never exceed
//     max(maxUnavailable, at the start);
//   - with surge, no node loses availability (the owner expects 100%), and
//     no more than max(maxSurge, at the start) nodes run two pods.
func TestPropertyRolloutConverges(t *testing.T) {
	var worst time.Duration // the largest time beyond the batches, for the log
	for seed := range uint64(propertySeeds()) {
		rc := newRolloutCase(seed)
		res := rc.simulate(t)
		if got, limit := res.Duration(), rc.bound(); got > limit {
			t.Errorf("%v: took %v, more than %d batches of %v plus slack (%v)", rc, got, rc.batches(), rc.tm.batch(rc.surge), limit)
		}
		worst = max(worst, res.Duration()-time.Duration(rc.batches())*rc.tm.batch(rc.surge))
		for _, st := range res.Steps {
			b := st.Budgets
			switch {
			case b.MaxSurge == 0 && st.Down > max(b.MaxUnavailable, res.StartDown):
				t.Errorf("%v: step %d at %v: %d nodes down, maxUnavailable %d, %d at the start", rc, st.Step, st.At, st.Down, b.MaxUnavailable, res.StartDown)
			case b.MaxSurge != 0 && st.Down > res.StartDown:
				t.Errorf("%v: step %d at %v: %d nodes down with surge, %d at the start", rc, st.Step, st.At, st.Down, res.StartDown)
			case b.MaxSurge != 0 && st.Surge > max(b.MaxSurge, res.StartSurge):
				t.Errorf("%v: step %d at %v: %d nodes surging, maxSurge %d", rc, st.Step, st.At, st.Surge, b.MaxSurge)
			}
		}
		checkFinalHash(t, rc, res)
	}
	t.Logf("the longest time beyond ⌈desired/budget⌉ batches: %v", worst)
}

// checkFinalHash checks that the rollout ended on the revision of the
// final template (Converged checks the pods against the last plan's hash).
func checkFinalHash(t *testing.T, rc rolloutCase, res simulate.Result) {
	t.Helper()
	ds := res.Final.DaemonSet
	if want := rollout.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount); res.Hash != want {
		t.Errorf("%v: converged on hash %q, the final template's is %q", rc, res.Hash, want)
	}
}

// TestPropertyTemplateChangeMidRollout changes the image again while the
// first rollout is under way: the rollout must converge on the newest
// template.
func TestPropertyTemplateChangeMidRollout(t *testing.T) {
	for seed := range uint64(propertySeeds()) {
		rc := newRolloutCase(seed)
		r := rand.New(rand.NewPCG(seed, 3))
		at := time.Duration(r.Int64N(int64(rc.bound()/2) + 1))
		rc.cfg.Events = []simulate.Event{{At: at, Kind: simulate.TemplateChange, Image: "registry.example/v3"}}
		res := rc.simulate(t)
		checkFinalHash(t, rc, res)
	}
}

// TestPropertyNodeChurn adds a node and removes another while the rollout
// is under way; it must still converge.
func TestPropertyNodeChurn(t *testing.T) {
	for seed := range uint64(propertySeeds()) {
		rc := newRolloutCase(seed)
		r := rand.New(rand.NewPCG(seed, 4))
		half := int64(rc.bound()/2) + 1
		events := []simulate.Event{{At: time.Duration(r.Int64N(half)), Kind: simulate.NodeJoin,
			Node: dt.Node("late-node", dt.WithLabel("role", "worker"))}}
		if n := len(rc.cluster.Nodes); n > 0 {
			events = append(events, simulate.Event{At: time.Duration(r.Int64N(half)), Kind: simulate.NodeLeave,
				NodeName: rc.cluster.Nodes[r.IntN(n)].Name})
		}
		rc.cfg.Events = events
		rc.simulate(t)
	}
}

// TestPropertyNodeNotReadyRecovers turns a node NotReady during the
// rollout and Ready again later; the rollout must converge. (A node that
// stays NotReady may stall a rollout, as upstream's does: see
// TestSimulateNotReadyNodeStallsRollout.)
func TestPropertyNodeNotReadyRecovers(t *testing.T) {
	for seed := range uint64(propertySeeds()) {
		rc := newRolloutCase(seed)
		if len(rc.cluster.Nodes) == 0 {
			continue
		}
		r := rand.New(rand.NewPCG(seed, 5))
		down := time.Duration(r.Int64N(int64(rc.bound()/2) + 1))
		node := rc.cluster.Nodes[r.IntN(len(rc.cluster.Nodes))].Name
		rc.cfg.Events = []simulate.Event{
			{At: down, Kind: simulate.NodeNotReady, NodeName: node},
			{At: down + time.Minute, Kind: simulate.NodeReady, NodeName: node},
		}
		rc.simulate(t)
	}
}

// TestPropertyFailedPodsBackoff lets 30% of the created pods fail: the
// rollout must still converge, and on each node the deletions of failed
// pods must be spaced as the failed-pod backoff demands (first at once,
// then 1s, 2s, 4s, ... up to 15m; forgotten after 30m; keyed by the
// stored observedGeneration and the node). It checks the spacing from the
// trace alone, with its own model of the backoff.
func TestPropertyFailedPodsBackoff(t *testing.T) {
	for seed := range uint64(propertySeeds()) {
		rc := newRolloutCase(seed)
		rc.cfg.FailFraction = 0.3
		rc.cfg.MaxSteps = 5000
		res := rc.simulate(t)
		type key struct {
			gen  int64
			node string
		}
		type entry struct {
			last  time.Duration
			delay time.Duration
		}
		model := map[key]entry{}
		for _, st := range res.Steps {
			for _, node := range st.FailedDeletes {
				k := key{st.ObservedGeneration, node}
				e, ok := model[k]
				if ok && st.At-e.last <= 2*backoff.Max {
					if gap := st.At - e.last; gap < e.delay {
						t.Errorf("%v: failed pod on %s deleted %v after the previous one, backoff %v", rc, node, gap, e.delay)
					}
					e = entry{last: st.At, delay: min(2*e.delay, backoff.Max)}
				} else {
					e = entry{last: st.At, delay: backoff.Initial}
				}
				model[k] = e
			}
		}
	}
}

// TestPropertyFreshDaemonSet starts from a healthy cluster with no pods
// and no revisions: one batch creates every pod.
func TestPropertyFreshDaemonSet(t *testing.T) {
	for seed := range uint64(propertySeeds()) {
		rc := newRolloutCase(seed)
		rc.cluster.Pods, rc.cluster.Revisions = nil, nil
		rc.cluster.DaemonSet.Status = appsv1.DaemonSetStatus{}
		res := rc.simulate(t)
		if limit := max(rc.tm.bind, rc.tm.ready) + rc.tm.minReady; res.Duration() > limit {
			t.Errorf("%v: a fresh DaemonSet took %v, more than one batch (%v)", rc, res.Duration(), limit)
		}
	}
}

// TestPropertyChaoticPlansHold simulates chaotic clusters (see
// GenerateCluster) and checks every plan with CheckPlan. Convergence is not
// required: chaotic inputs hold pods whose state only the simulator's own
// pods change (an unready pod stays unready), DaemonSets upstream stalls
// on, and selectors that do not match their template, on which upstream
// creates pods without end.
func TestPropertyChaoticPlansHold(t *testing.T) {
	for seed := range uint64(propertySeeds()) {
		r := rand.New(rand.NewPCG(seed, 78))
		c := dt.GenerateCluster(r, dt.ClusterConfig{})
		res := simulate.Run(c, simulate.Config{Seed: seed, ReadyDelay: 3 * time.Second, GracePeriod: 5 * time.Second,
			BindDelay: time.Second, FailFraction: 0.1, MaxSteps: 100, Check: dt.Checker(dt.CheckOptions{Seed: seed, Permutations: 1})})
		for _, st := range res.Steps {
			if len(st.Violations) > 0 {
				t.Errorf("seed %d, step %d at %v: %v", seed, st.Step, st.At, st.Violations)
				break
			}
		}
	}
}
