package simulate_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
	_ "time/tzdata" // the windows' zones, wherever the tests run

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/daemon/progressive/window"
	"github.com/daemonplan/daemonplan/daemon/simulate"
)

// FuzzSimulateGates draws a healthy cluster (rolling out or settled, some
// of its pods crash-looping), a rollout policy (a canary sometimes) and
// gates (windows of a second to hours on some days, in UTC or
// Europe/Amsterdam; approval points; health gates), simulates it (with
// daemontest's invariants checked at every sync, the held ones too, half
// the time) and checks that the gates are kept:
//   - the run ends before the step limit whenever it does without the
//     gates;
//   - no sync starts updating a node while no window is open, and none
//     is held by a window while one is;
//   - the waits are in time order, each window's wait ends at its
//     opening, each approval point is reached once per revision;
//   - a run stopped by a health gate is Blocked at its last step, the
//     failing pods named and sorted by node; one whose gates name no wave
//     of the cluster is Blocked and updates no node; no other run has a
//     gate;
//   - the input, its gates included, is left as it was.
func FuzzSimulateGates(f *testing.F) {
	for seed := range uint64(16) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		r := rand.New(rand.NewPCG(seed, 0x67617465)) // "gate"
		c := dt.GenerateCluster(r, dt.ClusterConfig{Healthy: true, Rollout: r.IntN(4) != 0})
		for i, n := range c.Nodes {
			if n.Labels == nil {
				n.Labels = map[string]string{}
			}
			n.Labels[zoneKey] = fmt.Sprintf("zone-%c", 'a'+i%3)
		}
		c.Rollout = dt.GeneratePolicy(r, zoneKey)
		if r.IntN(3) == 0 {
			c.Rollout.Canary = &daemon.CanarySpec{Count: []intstr.IntOrString{intstr.FromInt32(1), intstr.FromString("30%")}[r.IntN(2)]}
		}
		for _, p := range c.Pods {
			if r.IntN(8) == 0 {
				breakPod(p, c.Now, int32(r.IntN(6)))
			}
		}
		gates := drawGates(r, c.Rollout.Canary != nil)
		c.Gates = &gates
		zones := window.Zones(time.LoadLocation)
		cfg := simulate.Config{Seed: seed, ReadyDelay: 2 * time.Second, GracePeriod: time.Duration(r.IntN(3)) * time.Second,
			MaxSteps: 3000, Zones: zones}
		// The planner's invariants, broken pods or not (a strict budget
		// beside a per-zone one once deleted past maxUnavailable here).
		if r.IntN(2) == 0 {
			cfg.Check = dt.Checker(dt.CheckOptions{})
		}
		before := c.DeepCopy()

		res := simulate.Run(c, cfg)

		if diff := cmp.Diff(before, c, cmpopts.IgnoreFields(daemon.UpdateOrder{}, "Compare")); diff != "" {
			t.Fatalf("Run changed its input (-before +after):\n%s", diff)
		}
		for _, st := range res.Steps {
			if len(st.Violations) > 0 {
				t.Fatalf("gates %+v: step %d at %s (held %q) broke invariants: %v", gates, st.Step, st.At, st.Held, st.Violations)
			}
		}
		ungated := before.DeepCopy()
		ungated.Gates = nil
		free := cfg
		free.MaxSteps = 400
		if res.Outcome == simulate.OutcomeStepLimit && simulate.Run(ungated, free).Outcome != simulate.OutcomeStepLimit {
			t.Fatalf("gates %+v: step limit (%s), but the run without them ends", gates, res.Reason)
		}
		for _, st := range res.Steps {
			open, _, err := gates.Windows.At(c.Now.Add(st.At), zones)
			if err != nil {
				t.Fatal(err)
			}
			if !open && len(st.UpdateNodes) > 0 {
				t.Fatalf("windows %s: step %d at %s updates %v while closed", gates.Windows, st.Step, st.At, st.UpdateNodes)
			}
			if st.Held == progressive.HoldWindow && open {
				t.Fatalf("windows %s: step %d at %s held by a window while one is open", gates.Windows, st.Step, st.At)
			}
		}
		approved := map[[2]string]bool{}
		for i, w := range res.Waits {
			if i > 0 && w.At < res.Waits[i-1].At {
				t.Fatalf("waits out of order: %+v", res.Waits)
			}
			switch w.Hold.Cause {
			case progressive.HoldWindow:
				if w.For <= 0 || !c.Now.Add(w.At+w.For).Equal(w.Hold.Until) {
					t.Fatalf("window wait %+v: want a positive wait to the opening", w)
				}
			case progressive.HoldApproval:
				key := [2]string{res.Steps[w.Step].Hash, w.Hold.Wave}
				if w.Hold.Wave == "" || approved[key] {
					t.Fatalf("approval wait %+v: empty or reached twice", w)
				}
				approved[key] = true
			default:
				t.Fatalf("wait %+v: neither a window nor an approval", w)
			}
		}
		switch {
		case res.Gate.Cause == progressive.HoldUnresolved:
			// A gate naming nothing of the cluster (pause-after without
			// its wave) holds at once: Blocked, no node updated.
			last := res.Steps[len(res.Steps)-1]
			if res.Outcome != simulate.OutcomeBlocked || len(res.Gate.Unresolved) == 0 || last.Held != progressive.HoldUnresolved {
				t.Fatalf("gate %+v: outcome %s, last step held %q", res.Gate, res.Outcome, last.Held)
			}
			for _, st := range res.Steps {
				if len(st.UpdateNodes) > 0 {
					t.Fatalf("gate %s: step %d updates %v", res.Gate, st.Step, st.UpdateNodes)
				}
			}
		case res.Gate.Held():
			last := res.Steps[len(res.Steps)-1]
			var nodes []string
			for _, s := range res.Gate.Signals {
				nodes = append(nodes, s.Node)
			}
			if res.Outcome != simulate.OutcomeBlocked || res.Gate.Cause != progressive.HoldHealthGate || len(nodes) == 0 ||
				!slices.IsSorted(nodes) || last.Held != progressive.HoldHealthGate {
				t.Fatalf("gate %+v: outcome %s, last step held %q", res.Gate, res.Outcome, last.Held)
			}
		case res.Gate.Cause != "" || res.Gate.Signals != nil:
			t.Fatalf("gate %+v not held", res.Gate)
		}
	})
}

// drawGates draws gates: a window or two (a second to six hours, some
// days, UTC or Europe/Amsterdam) half the time, approval points and an
// approval sometimes, the health gates on half the time.
func drawGates(r *rand.Rand, canary bool) progressive.Gates {
	var g progressive.Gates
	if r.IntN(2) == 0 {
		for range 1 + r.IntN(2) {
			var w window.Window
			w.Days[r.IntN(7)] = true
			for d := range w.Days {
				w.Days[d] = w.Days[d] || r.IntN(3) == 0
			}
			w.Start = time.Duration(r.IntN(24*60*60)) * time.Second
			w.End = (w.Start + []time.Duration{time.Second, 30 * time.Second, time.Hour, 6 * time.Hour}[r.IntN(4)]) % (24 * time.Hour)
			w.Zone = []string{"UTC", "Europe/Amsterdam"}[r.IntN(2)]
			g.Windows = append(g.Windows, w)
		}
	}
	points := []string{"every-wave", "zone-a", "zone-c"}
	if canary {
		points = append(points, "canary")
	}
	for _, p := range points {
		if r.IntN(3) == 0 {
			g.PauseAfter = append(g.PauseAfter, p)
		}
	}
	if r.IntN(4) == 0 {
		g.Approved = &progressive.Approval{Hash: "0ld", Wave: "canary"}
	}
	if r.IntN(2) == 0 {
		g.Health = progressive.HealthGates{On: true, MaxRestarts: int32(r.IntN(4)), ReadyTimeout: []time.Duration{time.Second, time.Minute, 10 * time.Minute}[r.IntN(3)]}
	}
	return g
}

// breakPod makes p crash-loop with restarts restarts, not Ready since
// an hour before now.
func breakPod(p *corev1.Pod, now time.Time, restarts int32) {
	p.Status.Phase = corev1.PodRunning
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main", RestartCount: restarts,
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}}}
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse,
		LastTransitionTime: metav1.Time{Time: now.Add(-time.Hour)}}}
}
