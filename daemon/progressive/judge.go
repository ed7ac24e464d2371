package progressive

import (
	"errors"
	"fmt"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/rollout"
)

// Judgement is where a rollout stands, read from one plan: complete or
// not and why, and the counts of its desired nodes, in all and per wave.
type Judgement struct {
	// Complete is Reason.Complete(): the rollout is complete, at the
	// partition when the policy has one.
	Complete bool
	// Reason says why (see Judge).
	Reason Reason
	// Total counts every desired node; Waves count them per order-label
	// group, in the order the rollout starts them (nil without an order
	// label; groups with no desired node left out).
	Total Tally
	Waves []Tally
	// Waiting are the desired nodes in scope whose pod is being replaced:
	// they run no live pod, or an updated one that is not yet available or
	// still beside an old one. Sorted by name.
	Waiting []string
	// LastAvailable is the latest moment an updated pod of a desired node
	// in scope became available (rollout.AvailableSince); zero when none
	// has.
	LastAvailable time.Time
}

// Tally counts desired nodes (nodes that should run the pod).
type Tally struct {
	// Wave is the order-label group counted (daemon.RolloutPolicy.WaveOf),
	// "" for Judgement.Total.
	Wave string
	// Desired is the number of desired nodes in the policy's scope. Of
	// them, Updated run an updated, available pod and no old one,
	// Available run an available pod (of any revision), Old run an old pod,
	// Waiting are being replaced (see Judgement.Waiting), and Kept run only
	// old pods that the partition keeps.
	Desired, Updated, Available, Old, Waiting, Kept int
	// Held is the number of desired nodes outside the scope: the rollout
	// leaves them as they are and does not count them in Desired.
	Held int
}

// Done reports whether every desired node in scope of t is updated.
func (t Tally) Done() bool { return t.Updated == t.Desired }

// Judge judges the rollout of ds from plan, a plan of ds computed with
// Options.ReportStanding (see Rollout.Options): it reads the plan and its
// standing, and computes no plan of its own. ds must be the DaemonSet the
// plan was computed for (Rollout.DaemonSet).
//
// The rollout is complete when the plan asks for nothing (a paused plan:
// when the step the pause held back, Standing.Paused, asks for nothing) and:
//   - under the zero policy, or a strategy other than RollingUpdate,
//     rollout.Complete holds for ds with the plan's status (every desired
//     node runs one available pod of the current revision);
//   - under a non-zero policy, every desired node has an available pod, no
//     node runs an old and a new pod, and at most the partition of the
//     in-scope desired nodes run only old pods (nodes outside the scope
//     keep theirs): complete at the partition, not at 100%.
//
// When it is not complete, the reason names the first cause in this order,
// in the policy's terms: the sync is skipped; the plan acts (paused, when
// the pause holds back the rolling step's replacements; replacing; or the
// create/delete pass at work); and, when nothing acts while nodes in scope
// still run only old pods beyond the partition: the current wave bakes;
// the budget is used up (by unavailable nodes outside the scope, naming
// them, or by nodes in flight); the per-domain budgets are; the current
// wave waits for its nodes. Otherwise: nodes without an available pod,
// nodes not updated (zero policy), nodes in flight.
//
// It fails when the plan has no standing (and is not skipped), and with
// the paused step's error (Standing.PausedErr), which the plan would return
// once resumed. It modifies nothing; the Judgement shares nothing with the
// plan but node names.
func Judge(ds *appsv1.DaemonSet, plan *daemon.Plan) (Judgement, error) {
	if ds == nil || plan == nil {
		return Judgement{}, fmt.Errorf("%w: Judge needs a DaemonSet and its plan", daemon.ErrInvalidInput)
	}
	if plan.Skip != daemon.SkipNone {
		r := Reason{Cause: CauseSkipped, Skip: plan.Skip}
		return Judgement{Reason: r}, nil
	}
	ro := plan.Standing
	if ro == nil {
		return Judgement{}, daemon.NewError(ds, daemon.StageInput, errors.New("the plan has no standing: compute it with Options.ReportStanding"))
	}
	if ro.PausedErr != nil {
		return Judgement{}, ro.PausedErr
	}
	j := tally(ds, ro)
	j.Reason = reasonOf(ds, plan, ro)
	j.Complete = j.Reason.Complete()
	return j, nil
}

// Deadline is the progress-deadline arithmetic: a rollout last made
// progress at the latest of since (when the caller started watching, the
// revision was created, or the rollout was resumed) and LastAvailable; it
// exceeds a deadline d once now is d or more past that. wait is the time
// left until then (0 once exceeded). A complete rollout, or d <= 0 (no
// deadline), never exceeds it.
func (j Judgement) Deadline(since time.Time, d time.Duration, now time.Time) (exceeded bool, wait time.Duration) {
	if d <= 0 || j.Complete {
		return false, 0
	}
	last := since
	if j.LastAvailable.After(last) {
		last = j.LastAvailable
	}
	if wait = last.Add(d).Sub(now); wait <= 0 {
		return true, 0
	}
	return false, wait
}

// Current returns the index in Waves of the first wave not done, -1 when
// every wave is (or there are none).
func (j Judgement) Current() int {
	return slices.IndexFunc(j.Waves, func(t Tally) bool { return !t.Done() })
}

// tally counts the desired nodes of ro.
func tally(ds *appsv1.DaemonSet, ro *daemon.Standing) Judgement {
	var j Judgement
	waves := make([]Tally, len(ro.Waves))
	for i, name := range ro.Waves {
		waves[i].Wave = name
	}
	for i := range ro.Nodes {
		n := &ro.Nodes[i]
		if !n.ShouldRun {
			continue
		}
		var w *Tally
		if k := slices.Index(ro.Waves, n.Wave); k >= 0 {
			w = &waves[k]
		}
		count := func(f func(t *Tally)) {
			f(&j.Total)
			if w != nil {
				f(w)
			}
		}
		if n.Held == daemon.HeldScope {
			count(func(t *Tally) { t.Held++ })
			continue
		}
		var live, updated, updatedAvailable, old, available int
		for k, s := range n.States {
			if s.Deleting {
				continue
			}
			live++
			if s.Available {
				available++
			}
			if !s.Updated {
				old++
				continue
			}
			updated++
			if s.Available {
				updatedAvailable++
				if at := rollout.AvailableSince(n.Pods[k], ds.Spec.MinReadySeconds); at.After(j.LastAvailable) {
					j.LastAvailable = at
				}
			}
		}
		count(func(t *Tally) {
			t.Desired++
			if available > 0 {
				t.Available++
			}
			if old > 0 {
				t.Old++
			}
			if n.Held == daemon.HeldPartition {
				t.Kept++
			}
		})
		switch {
		case updatedAvailable > 0 && old == 0:
			count(func(t *Tally) { t.Updated++ })
		case live == 0 || updated > 0:
			count(func(t *Tally) { t.Waiting++ })
			j.Waiting = append(j.Waiting, n.Name)
		}
	}
	slices.Sort(j.Waiting)
	for _, w := range waves {
		if w.Desired+w.Held > 0 {
			j.Waves = append(j.Waves, w)
		}
	}
	return j
}
