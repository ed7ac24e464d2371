package cli

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	_ "time/tzdata" // the windows' time zones: the image has no zoneinfo

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/daemon/simulate"
)

// The gates in a simulation (progressive.Gates, from a DaemonSet's rollout
// annotations): simulate.Run applies them at every sync, as the companion
// does; this file says what it made of them. The canary wave is the
// plan's first wave; an approval point is shown where the run reaches it
// and is taken as given at once (the expected duration counts no time for
// a person); a closed window is waited out, and the expected duration
// counts it; a new-revision pod that fails a health gate stops the run,
// Blocked, at the sync where the companion would pause the rollout.

// zones resolves the windows' time zones: the IANA database, embedded.
func zones(name string) (*time.Location, error) { return time.LoadLocation(name) }

// gatesOf returns the gates of a DaemonSet's rollout annotations for a
// simulation, nil when it has none (no annotations: the zero gates hold
// nothing; but flags naming labels, values or a scope get gates that
// resolve them, progressive.Gates.Refs). An unknown time zone of a window is an input error naming the
// DaemonSet.
func gatesOf(r *dsRollout, name string, now time.Time) (*progressive.Gates, error) {
	// The names the simulated policy gives (flags over the annotations)
	// resolve as a controller resolves the annotations': one naming
	// nothing holds the run at once.
	refs := progressive.ReferencesOf(&r.policy)
	if r.parsed == nil {
		if refs.IsZero() {
			return nil, nil
		}
		return &progressive.Gates{Refs: refs}, nil
	}
	g := r.parsed.Gates
	g.Refs = refs
	if _, _, err := g.Windows.At(now, zones); err != nil {
		// At the annotation's field, as the companion refuses it.
		fe := field.Invalid(field.NewPath("metadata", "annotations").Key(progressive.AnnotationWindow), g.Windows.String(), err.Error())
		return nil, &inputError{fmt.Errorf("daemonset %q: rollout annotations: %w", name, fe)}
	}
	return &g, nil
}

// hasGates reports whether g holds anything: health gates on, approval
// points or windows.
func hasGates(g *progressive.Gates) bool {
	return g != nil && (g.Health.On || len(g.PauseAfter) > 0 || len(g.Windows) > 0)
}

// plannedWavesOf are the waves a rollout under p goes through:
// progressive.WavesOf of the desired nodes; under a canary, the waves of
// the first sync's standing (the canary first), each one's nodes in update
// order. The canary is the plan's own pick, which keeps the nodes already
// updated: in a capture caught mid-rollout it is the canary under way,
// where WavesOf picks one as before any node is updated. nil without
// waves.
func plannedWavesOf(p *daemon.RolloutPolicy, cl *simulate.Cluster) []progressive.Wave {
	if p.Canary == nil {
		return progressive.WavesOf(p, desiredNodes(cl))
	}
	in := cl.Input()
	in.Options.ReportStanding = true
	plan, err := daemon.Compute(in.DaemonSet, in.Nodes, in.Pods, in.Options)
	if err != nil || plan.Standing == nil {
		return nil
	}
	ro := plan.Standing
	byWave := map[string][]*corev1.Node{}
	for _, n := range ro.Nodes {
		if n.ShouldRun && n.Node != nil {
			byWave[n.Wave] = append(byWave[n.Wave], n.Node)
		}
	}
	var out []progressive.Wave
	for _, name := range ro.Waves {
		nodes := byWave[name]
		if len(nodes) == 0 {
			continue
		}
		slices.SortStableFunc(nodes, func(a, b *corev1.Node) int { return cmp.Or(p.CompareNodes(a, b), cmp.Compare(a.Name, b.Name)) })
		w := progressive.Wave{Name: name}
		for _, n := range nodes {
			w.Nodes = append(w.Nodes, n.Name)
		}
		out = append(out, w)
	}
	return out
}

// describeGates says in a line what the gates ask for; "" without any.
func describeGates(p *daemon.RolloutPolicy, g *progressive.Gates) string {
	var parts []string
	if c := p.Canary; c != nil {
		s := "a canary of " + c.Count.String()
		if c.Count.Type == intstr.Int {
			s += " node" + plural(c.Count.IntValue())
		} else {
			s += " of the nodes"
		}
		if c.Spread != "" {
			s += ", spread across " + c.Spread
		}
		parts = append(parts, s)
	}
	if g != nil && len(g.PauseAfter) > 0 {
		parts = append(parts, "pause after "+strings.Join(g.PauseAfter, ", "))
	}
	if g != nil && len(g.Windows) > 0 {
		parts = append(parts, "windows "+g.Windows.String())
	}
	if g != nil && g.Health.On {
		parts = append(parts, fmt.Sprintf("health gates on (more than %d restarts, not Ready %s after creation)", g.Health.MaxRestarts, fmtDur(g.Health.ReadyTimeout)))
	}
	return strings.Join(parts, "; ")
}

// outsideWindows is the time res waited for windows.
func outsideWindows(res simulate.Result) time.Duration {
	var d time.Duration
	for _, w := range res.Waits {
		if w.Hold.Cause == progressive.HoldWindow {
			d += w.For
		}
	}
	return d
}

// approvals counts the approval points res reached.
func approvals(res simulate.Result) int {
	n := 0
	for _, w := range res.Waits {
		if w.Hold.Cause == progressive.HoldApproval {
			n++
		}
	}
	return n
}

// gatesNote is what the expected duration says of the gates: the time
// outside the windows it counts, the approvals it does not.
func gatesNote(res simulate.Result) string {
	var parts []string
	if d := outsideWindows(res); d > 0 {
		parts = append(parts, fmt.Sprintf("%s of it outside the maintenance windows", fmtDur(d)))
	}
	if n := approvals(res); n > 0 {
		parts = append(parts, fmt.Sprintf("plus the time a person takes to approve %d point%s", n, plural(n)))
	}
	if len(parts) == 0 {
		return ""
	}
	return "; " + strings.Join(parts, ", ")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// waitLine says one wait: "waits for approval after wave canary at +4m0s
// (...)", "outside the window at +0s: waits 14h10m0s, until Mon 08:00
// Europe/Amsterdam".
func (r *simReport) waitLine(w simulate.Wait) string {
	switch w.Hold.Cause {
	case progressive.HoldApproval:
		return fmt.Sprintf("waits for approval after wave %s at +%s (kubectl dsplan rollout approve %s; assumed given at once)", w.Hold.Wave, fmtDur(w.At), r.name)
	case progressive.HoldWindow:
		return fmt.Sprintf("outside the window at +%s: waits %s, until %s", fmtDur(w.At), fmtDur(w.For), r.opening(w.Hold.Until))
	}
	return fmt.Sprintf("held at +%s: %s", fmtDur(w.At), w.Hold.Cause)
}

// opening writes when a window opens, on the wall clock of the window
// that opens then: "Mon 08:00 Europe/Amsterdam" (seconds when not 0).
func (r *simReport) opening(t time.Time) string {
	zone := "UTC"
	if g := r.gates; g != nil && len(g.Windows) > 0 {
		zone = g.Windows[0].Zone
		for _, w := range g.Windows {
			loc, err := zones(w.Zone)
			if err != nil {
				continue
			}
			local := t.In(loc)
			midnight := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, loc)
			if w.Days[local.Weekday()] && local.Sub(midnight) == w.Start {
				zone = w.Zone
				break
			}
		}
	}
	layout := "Mon 15:04"
	if t.Second() != 0 {
		layout = "Mon 15:04:05"
	}
	if loc, err := zones(zone); err == nil {
		t = t.In(loc)
	}
	return t.Format(layout) + " " + zone
}

// printGates says what the gates ask for and where the run met them.
func (r *simReport) printGates(w io.Writer) {
	if d := describeGates(&r.rollout.policy, r.gates); d != "" {
		fmt.Fprintf(w, "gates: %s\n", d)
	}
	for _, wv := range r.planned {
		if wv.Name == daemon.CanaryWave {
			fmt.Fprintf(w, "canary wave: %d node%s: %s\n", len(wv.Nodes), plural(len(wv.Nodes)), listSome(wv.Nodes))
		}
	}
	for _, wt := range r.res.Waits {
		fmt.Fprintf(w, "%s\n", r.waitLine(wt))
	}
	if g := r.res.Gate; g.Cause == progressive.HoldUnresolved {
		fmt.Fprintf(w, "held at once: no old pod is replaced: %s\n", g)
	} else if g.Held() {
		last := r.res.Steps[len(r.res.Steps)-1]
		then := fmt.Sprintf("the companion would pause the rollout here, RolloutBlocked %s, until a person acts (a new template, or kubectl dsplan rollout resume %s)", g.Cause, r.name)
		if r.onFailure() == progressive.OnFailureRollback {
			then = fmt.Sprintf("the companion would roll back here (on-failure: rollback): RolloutBlocked %s, the previous revision's template written back and rolled out under the same policy", g.Cause)
		}
		fmt.Fprintf(w, "stopped by a health gate at step %d (+%s): %s\n", last.Step, fmtDur(last.At), then)
		for i, s := range g.Signals {
			if i == maxBlockerLines {
				fmt.Fprintf(w, "    ... and %d more (-o json lists them all)\n", len(g.Signals)-i)
				break
			}
			fmt.Fprintf(w, "    %s\n", s)
		}
	}
}

// onFailure is what the companion does when a health gate fails: the
// on-failure annotation, pause without it.
func (r *simReport) onFailure() progressive.OnFailure {
	if a := r.rollout.parsed; a != nil && a.OnFailure != "" {
		return a.OnFailure
	}
	return progressive.OnFailurePause
}

// gatesJSON is what a simulation made of the gates of the DaemonSet's
// rollout annotations.
type gatesJSON struct {
	// Canary is the canary wave (the canary annotation), absent without
	// one.
	Canary *canaryJSON `json:"canary,omitempty"`
	// PauseAfter are the approval points asked for (pause-after): canary,
	// every-wave, or values of the order label.
	PauseAfter []string `json:"pauseAfter"`
	// Windows are the maintenance windows (window), as the annotation
	// writes them; "" when the rollout may delete at any time.
	Windows string `json:"windows,omitempty"`
	// Health are the health gates (health-gates, max-restarts,
	// ready-timeout).
	Health healthJSON `json:"health"`
	// Waits are the approval points the run reached (each taken as
	// approved at once) and the closed windows it waited out, in order.
	Waits []waitJSON `json:"waits"`
	// OutsideWindows is the time the run waited for windows, which the
	// duration counts (a Go duration).
	OutsideWindows string `json:"outsideWindows"`
	// OnFailure is what the companion does when a health gate fails (the
	// on-failure annotation): pause, or rollback (the previous revision's
	// template written back and rolled out under the same policy).
	OnFailure string `json:"onFailure"`
	// Stop is the health gate that stopped the run (outcome Blocked),
	// absent otherwise.
	Stop *gateStopJSON `json:"stop,omitempty"`
}

// canaryJSON is the canary wave.
type canaryJSON struct {
	// Count is the canary annotation: a number of nodes or a percentage.
	Count string `json:"count"`
	// Spread is the node label the canary is spread across, "" for none.
	Spread string `json:"spread,omitempty"`
	// Nodes are the canary's nodes, in update order (as its planned wave
	// lists them).
	Nodes []string `json:"nodes"`
}

// healthJSON is progressive.HealthGates.
type healthJSON struct {
	// On says whether the health gates are on (the health-gates
	// annotation; on by default).
	On bool `json:"on"`
	// MaxRestarts is the restarts a new-revision container may have; one
	// more stops the rollout.
	MaxRestarts int32 `json:"maxRestarts"`
	// ReadyTimeout is how long a new pod may take to become Ready (a Go
	// duration).
	ReadyTimeout string `json:"readyTimeout"`
}

// waitJSON is one simulate.Wait.
type waitJSON struct {
	// Step and At are the sync that met it and its time since the start.
	Step int    `json:"step"`
	At   string `json:"at"`
	// Cause is WaitingForApproval or OutsideWindow (progressive.HoldCause).
	Cause string `json:"cause"`
	// Wave is the wave after which the rollout waits for approval.
	Wave string `json:"wave,omitempty"`
	// Until is when the next window opens (RFC 3339, UTC) and Opens the
	// same on the window's wall clock ("Mon 08:00 Europe/Amsterdam"); For
	// how long the rollout waits (a Go duration). Windows only.
	Until string `json:"until,omitempty"`
	Opens string `json:"opens,omitempty"`
	For   string `json:"for,omitempty"`
}

// gateStopJSON is where a health gate stopped the run.
type gateStopJSON struct {
	// Step and At are the sync at which the gate fires.
	Step int    `json:"step"`
	At   string `json:"at"`
	// Cause is HealthGateFailed or UnresolvedReference (an annotation or
	// flag naming no wave, label, value or node of the cluster), the
	// RolloutBlocked reason the companion reports.
	Cause string `json:"cause"`
	// Message names the key, the value and what exists, for
	// UnresolvedReference; absent otherwise.
	Message string `json:"message,omitempty"`
	// Signals are the failing new-revision pods, sorted by node.
	Signals []signalJSON `json:"signals"`
}

// signalJSON is progressive.PodSignal.
type signalJSON struct {
	// Pod and Node name the failing pod and its node.
	Pod  string `json:"pod"`
	Node string `json:"node"`
	// Signal is CrashLoopBackOff, OOMKilled, ImagePullError,
	// CreateContainerError, TooManyRestarts, RestartedDuringBake or
	// ReadyTimeout.
	Signal string `json:"signal"`
	// Container names the container the signal concerns, "" for the pod.
	Container string `json:"container,omitempty"`
	// Detail says it for people ("5 restarts").
	Detail string `json:"detail,omitempty"`
}

// gatesToJSON is the gates' part of the simulation's document, nil when
// the DaemonSet has neither gates nor a canary.
func (r *simReport) gatesToJSON() *gatesJSON {
	g, pol := r.gates, &r.rollout.policy
	if !hasGates(g) && pol.Canary == nil {
		return nil
	}
	out := &gatesJSON{PauseAfter: []string{}, Waits: []waitJSON{}, OutsideWindows: fmtDur(outsideWindows(r.res)), OnFailure: string(r.onFailure())}
	if c := pol.Canary; c != nil {
		out.Canary = &canaryJSON{Count: c.Count.String(), Spread: c.Spread, Nodes: []string{}}
		for _, wv := range r.planned {
			if wv.Name == daemon.CanaryWave {
				out.Canary.Nodes = append(out.Canary.Nodes, wv.Nodes...)
			}
		}
	}
	if g != nil {
		out.PauseAfter = append(out.PauseAfter, g.PauseAfter...)
		if len(g.Windows) > 0 {
			out.Windows = g.Windows.String()
		}
		out.Health = healthJSON{On: g.Health.On, MaxRestarts: g.Health.MaxRestarts, ReadyTimeout: fmtDur(g.Health.ReadyTimeout)}
	}
	for _, w := range r.res.Waits {
		wj := waitJSON{Step: w.Step, At: fmtDur(w.At), Cause: string(w.Hold.Cause), Wave: w.Hold.Wave}
		if w.Hold.Cause == progressive.HoldWindow {
			wj.Until, wj.Opens, wj.For = w.Hold.Until.UTC().Format(time.RFC3339), r.opening(w.Hold.Until), fmtDur(w.For)
		}
		out.Waits = append(out.Waits, wj)
	}
	if h := r.res.Gate; h.Held() {
		last := r.res.Steps[len(r.res.Steps)-1]
		st := &gateStopJSON{Step: last.Step, At: fmtDur(last.At), Cause: string(h.Cause), Signals: []signalJSON{}}
		if h.Cause == progressive.HoldUnresolved {
			st.Message = h.String()
		}
		for _, s := range h.Signals {
			st.Signals = append(st.Signals, signalJSON{Pod: s.Pod, Node: s.Node, Signal: string(s.Signal), Container: s.Container, Detail: s.Detail})
		}
		out.Stop = st
	}
	return out
}
