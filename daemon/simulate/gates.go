package simulate

import (
	"fmt"
	"time"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/daemon/progressive/window"
)

// A run under Cluster.Gates asks progressive.Assess at every sync, with
// the sync's plan (the judgement, then (*progressive.Gates).Hold), and
// takes the answer as a controller does, with one difference: nobody approves in a simulation,
// so an approval point is recorded and taken as approved at once.
//   - HoldApproval: a Wait is recorded and the run's own copy of the gates
//     gets the approval (the revision and the wave), then Hold is asked
//     again.
//   - HoldWindow: the sync runs its plan paused (the create/delete pass
//     only, as RolloutPolicy.Paused plans it: no old pod is replaced), a
//     Wait is recorded once per closed window, and unless the rollout is
//     complete the clock may move to the opening (Hold.Next).
//   - HoldHealthGate and HoldUnresolved (an annotation that names no
//     wave, label, value or node of the cluster): the sync runs its plan
//     paused and the run ends OutcomeBlocked (Result.Gate), as a
//     controller holds it until a person acts.
// Nothing else about the gates is decided here.

// Wait is a hold of Cluster.Gates that a run went past: an approval point,
// taken as approved at once, or a closed maintenance window, waited out.
type Wait struct {
	// Step and At are the sync that met the hold and its time since the
	// start.
	Step int
	At   time.Duration
	// Hold is the hold: Cause progressive.HoldApproval with the Wave after
	// which the rollout waits, or progressive.HoldWindow with Until, when
	// the next window opens.
	Hold progressive.Hold
	// For is how long the rollout waits: Until less the sync's time for a
	// window, 0 for an approval (the simulation assumes it at once; a
	// person takes longer).
	For time.Duration
}

// gateRun is the state of Cluster.Gates in one run.
type gateRun struct {
	// gates are a copy of Cluster.Gates that receives the approvals the
	// run assumes.
	gates progressive.Gates
	zones window.Zones
	waits []Wait
	// stop is the health-gate or unresolved-reference hold that ends the
	// run.
	stop progressive.Hold
	// next is when the clock alone changes what holds the rollout, and a
	// sync should run: zero when nothing does (see sim.gate).
	next time.Time
}

// newGateRun returns the run's gates, nil when c has none. It checks the
// windows' time zones first: an unknown one is an error.
func newGateRun(c *Cluster, cfg Config) (*gateRun, error) {
	if c.Gates == nil {
		return nil, nil
	}
	g := &gateRun{gates: copyGates(*c.Gates), zones: cfg.Zones}
	if g.zones == nil {
		g.zones = utcOnly
	}
	if _, _, err := g.gates.Windows.At(c.Now, g.zones); err != nil {
		return nil, fmt.Errorf("gates: %w", err)
	}
	return g, nil
}

// utcOnly resolves "UTC" only: the zones of a run without Config.Zones.
func utcOnly(name string) (*time.Location, error) {
	if name == "UTC" {
		return time.UTC, nil
	}
	return nil, fmt.Errorf("unknown time zone %q: the simulation has no zone database (Config.Zones)", name)
}

// copyGates returns g with slices and pointers of its own.
func copyGates(g progressive.Gates) progressive.Gates {
	out := g
	out.PauseAfter = append([]string(nil), g.PauseAfter...)
	out.Windows = append(window.Windows(nil), g.Windows...)
	if g.Approved != nil {
		a := *g.Approved
		out.Approved = &a
	}
	return out
}

// gate asks the gates about the sync whose input is in and whose plan is
// got (computed with the standing), and returns what the sync carries out:
// got, or the plan of in paused when the gates hold it; and the hold.
// A plan without a standing (a skipped sync, or one that stopped before
// it) or that the judge refuses is not gated: it replaces no old pod.
func (s *sim) gate(step int, in Input, got Checked) (Checked, progressive.Hold, error) {
	g := s.gates
	g.next = time.Time{}
	plan := &got.Plan
	if got.Panicked || plan.Standing == nil {
		return got, progressive.Hold{}, nil
	}
	now, at := s.c.Now, s.c.Now.Sub(s.start)
	var (
		a progressive.Assessment
		h progressive.Hold
		j progressive.Judgement
	)
	// Each approval covers its wave and the earlier ones, so the run
	// approves at most once per wave at a sync (the first assessment
	// tells how many waves there are).
	for i := 0; i == 0 || i <= len(j.Waves); i++ {
		var err error
		a, err = progressive.Assess(progressive.AssessInput{
			DaemonSet: in.DaemonSet, Plan: plan, Gates: &g.gates,
			Options: daemon.Options{Now: now}, Zones: g.zones,
		})
		switch progressive.StepOf(err) {
		case progressive.AssessPlan, progressive.AssessJudge:
			return got, progressive.Hold{}, nil
		case progressive.AssessGates:
			return got, a.Hold, fmt.Errorf("gates: %w", err)
		}
		h, j = a.Hold, a.Judgement
		if h.Cause != progressive.HoldApproval {
			break
		}
		g.waits = append(g.waits, Wait{Step: step, At: at, Hold: h})
		g.gates.Approved = &progressive.Approval{Hash: plan.Hash, Wave: h.Wave}
	}
	switch h.Cause {
	case progressive.HoldApproval:
		return got, h, fmt.Errorf("gates: the approval of wave %q (revision %s) did not pass its point", h.Wave, plan.Hash)
	case progressive.HoldWindow:
		if n := len(g.waits); n == 0 || g.waits[n-1].Hold.Cause != progressive.HoldWindow || !g.waits[n-1].Hold.Until.Equal(h.Until) {
			g.waits = append(g.waits, Wait{Step: step, At: at, Hold: h, For: h.Until.Sub(now)})
		}
		if !j.Complete {
			g.next = h.Next
			if g.next.IsZero() {
				g.next = h.Until
			}
		}
	case progressive.HoldHealthGate, progressive.HoldUnresolved:
		g.stop = h
	case progressive.HoldNone:
		var err error
		if g.next, err = s.readyDeadline(in, plan, j, h); err != nil {
			return got, h, fmt.Errorf("gates: %w", err)
		}
	}
	if !h.Held() {
		return got, h, nil
	}
	paused := in
	paused.Options.Rollout.Paused = true
	again := s.compute(step, paused)
	again.Violations = append(got.Violations, again.Violations...)
	return again, h, nil
}

// readyDeadline is when a new pod of the sync reaches its ready timeout
// while nothing holds the rollout (h): Hold.Next of the health gates alone,
// since h.Next also names the windows' changes, which matter to a run only
// once they hold it. Zero when the health gates are off.
func (s *sim) readyDeadline(in Input, plan *daemon.Plan, j progressive.Judgement, h progressive.Hold) (time.Time, error) {
	g := s.gates
	switch {
	case !g.gates.Health.On || h.Next.IsZero():
		return time.Time{}, nil
	case len(g.gates.Windows) == 0:
		return h.Next, nil
	}
	health := progressive.Gates{Health: g.gates.Health}
	hh, err := health.Hold(in.DaemonSet, plan, j, s.c.Now, g.zones)
	return hh.Next, err
}
