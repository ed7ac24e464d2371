package progressive

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/progressive/window"
)

// Gates are what holds a rollout beyond its plan: the health of the new
// revision's pods, the approval points a person must pass, and the
// maintenance windows outside which no old pod is deleted. The plan
// decides which old pods may be replaced now (budgets, waves, bake);
// Gates.Hold decides whether a controller may carry that out at all.
// The zero Gates hold nothing (the health gates are off in the zero
// value; ParseAnnotations turns them on by default).
type Gates struct {
	// Health are the health gates on the new revision's pods.
	Health HealthGates
	// PauseAfter are the approval points, as the pause-after annotation
	// writes them: "canary" (the canary wave, daemon.CanaryWave),
	// "every-wave" (each wave), or a value v of the order label (the wave
	// "<label>=v"). The last wave is never one: nothing follows it. The
	// rollout waits after each such wave until Approved names the
	// current revision and that wave or a later one.
	PauseAfter []string
	// Approved is the latest approval, nil when there is none.
	Approved *Approval
	// Windows are the maintenance windows; empty means always open.
	Windows window.Windows
	// Bake is the policy's wave bake (wave-bake), during which a restart
	// of a finished wave's pod fails the health gates
	// (SignalRestartedDuringBake); ParseAnnotations sets it with
	// Policy.Waves. 0 watches only the bake the judgement reports.
	Bake time.Duration
	// Refs are the policy's names that must resolve in the cluster (the
	// order and domain labels, the order values, the scope), which Hold
	// resolves with PauseAfter and Approved (Unresolved);
	// ParseAnnotations sets them from the policy (ReferencesOf).
	Refs References
}

// OnFailure is what a controller does when a health gate fails.
type OnFailure string

// The on-failure values.
const (
	// OnFailurePause pauses the rollout until a person acts (the default).
	OnFailurePause OnFailure = "pause"
	// OnFailureRollback writes the previous revision's template back
	// (rollout.RollbackTo) and rolls it out under the same policy.
	OnFailureRollback OnFailure = "rollback"
)

// HoldCause names what holds a rollout (Hold.Cause).
type HoldCause string

// The hold causes, in the order Gates.Hold picks the first that applies.
const (
	// HoldNone: nothing holds the rollout.
	HoldNone HoldCause = ""
	// HoldUnresolved: an annotation names something the cluster does not
	// have: a wave, a node label key, a label value, a desired node in
	// scope (Hold.Unresolved). It holds until the annotation or the
	// cluster changes, whatever else the rollout's state.
	HoldUnresolved HoldCause = "UnresolvedReference"
	// HoldHealthGate: a new-revision pod failed a health gate
	// (Hold.Signals).
	HoldHealthGate HoldCause = "HealthGateFailed"
	// HoldApproval: a wave named in pause-after is done and the rollout
	// waits for its approval (Hold.Wave).
	HoldApproval HoldCause = "WaitingForApproval"
	// HoldWindow: no maintenance window is open (Hold.Until).
	HoldWindow HoldCause = "OutsideWindow"
)

// Hold is what holds a rollout beyond its plan at one moment: while
// Cause is not HoldNone, a controller deletes no old pod (the plan's
// create/delete pass runs as ever).
type Hold struct {
	Cause HoldCause
	// Unresolved are the annotation values that name nothing
	// (HoldUnresolved), in key order (see Gates.Unresolved).
	Unresolved []Unresolved
	// Signals are the failing new-revision pods (HoldHealthGate), sorted
	// by node name, then pod name.
	Signals []PodSignal
	// Wave is the wave after which the rollout waits (HoldApproval).
	Wave string
	// Until is when the next window opens (HoldWindow).
	Until time.Time
	// Next is the earliest moment at which the answer may change with
	// the clock alone (a window opens or closes, a new pod reaches its
	// ready timeout): when a controller should look again. Zero when
	// nothing changes with the clock.
	Next time.Time
}

// Held reports whether h holds the rollout.
func (h Hold) Held() bool { return h.Cause != HoldNone }

// Hold decides whether g holds the rollout of ds (Rollout.DaemonSet) at
// now, from its plan (computed with Options.ReportStanding) and j, Judge of
// that plan. The first of these that applies holds it:
//
//  0. A reference that resolves to nothing (Gates.Unresolved): a
//     pause-after value, the approved wave, order-by, order-values,
//     domain or scope names no wave, label key, value or node of the
//     plan's desired nodes. A typo must not switch a control off, so
//     this holds at once, at every sync, also a complete rollout (whose
//     next revision it would hold), until the annotation or the cluster
//     changes.
//  1. The health gates (Health, when On): a new-revision pod (the
//     standing's pods that are Updated and not Deleting) of a desired node
//     in scope fails HealthGates.Check, or restarted during a bake
//     (SignalRestartedDuringBake): while a wave bakes
//     (CauseWaveBaking), a container of a new-revision pod of a finished
//     wave (that wave and those before it) last terminated at or after
//     the bake began (when the wave's last node became available, as the
//     wave barrier counts it); or, with Bake, a pod of the current wave
//     that was Ready, crashed after every other node of its wave was
//     done and within Bake of that, and is not Ready again yet. Pods on
//     a missing node, or on a node whose Ready condition is False or
//     Unknown, do not time out
//     (SignalReadyTimeout): their node, not their revision, keeps them
//     from Ready. Signals lists every failing pod.
//  2. Approval: the latest wave named in PauseAfter (see Gates) that is
//     done, with every wave before it (Judgement.Waves, the last wave
//     never), unless Approved names plan.Hash and that wave or a later
//     one.
//  3. The windows: none is open at now (Windows.At); Until is the next
//     opening.
//
// Besides 0, a skipped plan and a complete rollout are held by nothing:
// the gates guard a rollout under way. Next is the earliest moment the answer may
// change with the clock alone: a pending new pod's ready timeout, and,
// unless a health gate or an approval holds, a window's opening or
// closing; a health-gate hold has none (it holds until the pods or a
// person change something).
//
// zones resolves the windows' time zones (time.LoadLocation is one); it
// is needed only when there are windows. An unknown zone is an error at
// the window annotation, as is a nil zones with windows; a plan without a
// standing (and not skipped) is an error, as for Judge. A nil g holds
// nothing. It modifies nothing; the Hold shares nothing with its inputs
// but names.
func (g *Gates) Hold(ds *appsv1.DaemonSet, plan *daemon.Plan, j Judgement, now time.Time, zones window.Zones) (Hold, error) {
	if ds == nil || plan == nil {
		return Hold{}, fmt.Errorf("%w: Hold needs a DaemonSet and its plan", daemon.ErrInvalidInput)
	}
	if g == nil || plan.Skip != daemon.SkipNone {
		return Hold{}, nil
	}
	ro := plan.Standing
	switch {
	case ro == nil && j.Complete:
		return Hold{}, nil
	case ro == nil:
		return Hold{}, daemon.NewError(ds, daemon.StageInput, errors.New("the plan has no standing: compute it with Options.ReportStanding"))
	}
	if u := g.Unresolved(plan, j); len(u) > 0 {
		return Hold{Cause: HoldUnresolved, Unresolved: u}, nil
	}
	if j.Complete {
		return Hold{}, nil
	}
	signals, pending := g.health(ds, ro, j, now)
	if len(signals) > 0 {
		return Hold{Cause: HoldHealthGate, Signals: signals}, nil
	}
	if p := g.approvalPoint(j.Waves); p >= 0 && !g.Approved.covers(plan.Hash, j.Waves, p) {
		return Hold{Cause: HoldApproval, Wave: j.Waves[p].Wave, Next: pending}, nil
	}
	if len(g.Windows) == 0 {
		return Hold{Next: pending}, nil
	}
	if zones == nil {
		return Hold{}, windowAnnotationError(g.Windows, errors.New("no time zones given to read the windows with"))
	}
	open, change, err := g.Windows.At(now, zones)
	if err != nil {
		return Hold{}, windowAnnotationError(g.Windows, err)
	}
	next := earliest(pending, change)
	if !open {
		return Hold{Cause: HoldWindow, Until: change, Next: next}, nil
	}
	return Hold{Next: next}, nil
}

// windowAnnotationError is err at the window annotation.
func windowAnnotationError(ws window.Windows, err error) error {
	return annotationErrors{field.Invalid(annotationsPath.Key(AnnotationWindow), ws.String(), err.Error())}
}

// earliest returns the earlier of a and b, zero counting as never.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

// health returns the failing new-revision pods of ro, sorted by node and
// pod, and the earliest ready timeout still ahead of a pod that is not
// Ready (zero when none is).
func (g *Gates) health(ds *appsv1.DaemonSet, ro *daemon.Standing, j Judgement, now time.Time) ([]PodSignal, time.Time) {
	h := g.Health
	if !h.On {
		return nil, time.Time{}
	}
	bake := bakeOf(ds, ro, j, g.Bake)
	var signals []PodSignal
	var pending time.Time
	for i := range ro.Nodes {
		n := &ro.Nodes[i]
		if !n.ShouldRun || n.Held == daemon.HeldScope {
			continue
		}
		up := nodeReady(n.Node)
		for k, pod := range n.Pods {
			if st := n.States[k]; !st.Updated || st.Deleting {
				continue
			}
			s, failing, at := h.check(pod, now)
			if up {
				pending = earliest(pending, at)
			}
			if !failing || s.Signal == SignalReadyTimeout {
				// The bake goes before the ready timeout, which only a
				// node that is up can give.
				if bs, ok := bake.restarted(pod, n); ok {
					s, failing = bs, true
				} else if !up {
					failing = false
				}
			}
			if failing {
				s.Node = n.Name
				signals = append(signals, s)
			}
		}
	}
	slices.SortFunc(signals, func(a, b PodSignal) int { return cmp.Or(cmp.Compare(a.Node, b.Node), cmp.Compare(a.Pod, b.Pod)) })
	return signals, pending
}

// nodeReady reports whether n is not known to be down: whether its pods'
// readiness is theirs to answer for. A missing node (nil) is down, as is
// one whose Ready condition is False or Unknown; one without a Ready
// condition is not.
func nodeReady(n *corev1.Node) bool {
	if n == nil {
		return false
	}
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return true
}

// String says h for people, as a status condition or rollout status
// prints it: "health gate failed: CrashLoopBackOff on pod agent-x (node
// n1, container agent: 5 restarts), …", `pause-after "zone-z" names no
// wave; did you mean zone-a? waves: canary, zone-a, zone-b` (each
// Unresolved, joined by "; "), "waiting for approval after wave
// topology.kubernetes.io/zone=a", "outside the maintenance windows until
// 2026-11-28T08:00:00Z", "not held". It names up to MaxReasonNodes pods,
// then how many more fail.
func (h Hold) String() string {
	switch h.Cause {
	case HoldNone:
		return "not held"
	case HoldUnresolved:
		parts := make([]string, len(h.Unresolved))
		for i, u := range h.Unresolved {
			parts[i] = u.String()
		}
		return strings.Join(parts, "; ")
	case HoldHealthGate:
		parts := make([]string, 0, min(len(h.Signals), MaxReasonNodes))
		for _, s := range h.Signals[:min(len(h.Signals), MaxReasonNodes)] {
			parts = append(parts, s.String())
		}
		s := "health gate failed: " + strings.Join(parts, ", ")
		if more := len(h.Signals) - MaxReasonNodes; more > 0 {
			s += fmt.Sprintf(" and %d more", more)
		}
		return s
	case HoldApproval:
		return "waiting for approval after wave " + h.Wave
	case HoldWindow:
		if h.Until.IsZero() {
			return "outside the maintenance windows"
		}
		return "outside the maintenance windows until " + h.Until.UTC().Format(time.RFC3339)
	}
	return string(h.Cause)
}
