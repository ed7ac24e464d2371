package livecmd

import (
	"fmt"
	"strings"
	"time"
	// The image kubectl-dsplan may run in has no zoneinfo; the windows'
	// time zones come from the binary then.
	_ "time/tzdata"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// assessment is where one DaemonSet's rollout stands at one moment, as
// rollout status reports it and rollout approve acts on it: the rollout
// its annotations ask for, its plan, the judgement of that plan and what
// holds it beyond the plan (progressive.Gates.Hold). assess is the one
// place that computes it.
type assessment struct {
	rollout progressive.Rollout
	plan    daemon.Plan
	judged  progressive.Judgement
	hold    progressive.Hold
	// gates are the annotated gates (zero without annotations).
	gates progressive.Gates
}

// assess computes the assessment of ds at now from the live objects: its
// rollout annotations (an error names the DaemonSet and the key), the
// plan, the judgement and the hold. It modifies nothing.
func assess(ds *appsv1.DaemonSet, nodes []*corev1.Node, pods []*corev1.Pod, revs []*appsv1.ControllerRevision, now time.Time) (assessment, error) {
	key := ds.Namespace + "/" + ds.Name
	r, err := progressive.ForDaemonSet(ds)
	if err != nil {
		return assessment{}, fmt.Errorf("daemonset %s: rollout annotations: %w", key, err)
	}
	a := assessment{rollout: r}
	a.plan, err = daemon.Compute(r.DaemonSet, nodes, pods, r.Options(daemon.Options{Now: now, Revisions: revs}))
	if err != nil {
		return assessment{}, fmt.Errorf("daemonset %s: %w", key, err)
	}
	if a.judged, err = progressive.Judge(r.DaemonSet, &a.plan); err != nil {
		return assessment{}, fmt.Errorf("daemonset %s: %w", key, err)
	}
	if r.Annotations != nil {
		a.gates = r.Annotations.Gates
	}
	if a.hold, err = a.gates.Hold(r.DaemonSet, &a.plan, a.judged, now, time.LoadLocation); err != nil {
		return assessment{}, fmt.Errorf("daemonset %s: %w", key, err)
	}
	return a, nil
}

// holdText says what holds the rollout of the DaemonSet key, "" when
// nothing does; program names the command that approves ("kubectl
// dsplan").
func holdText(h progressive.Hold, program, key string) string {
	switch h.Cause {
	case progressive.HoldNone:
		return ""
	case progressive.HoldApproval:
		return fmt.Sprintf("waiting for approval after wave %s (%s rollout approve %s)", h.Wave, program, key)
	case progressive.HoldWindow:
		return "outside the maintenance windows until " + h.Until.UTC().Format(time.RFC3339)
	case progressive.HoldHealthGate:
		return "health gate failed: " + signalsText(h.Signals)
	}
	return string(h.Cause)
}

// maxSignals is the most failing pods a line names.
const maxSignals = 5

// signalsText names the failing pods: "pod agent-x on node a-1:
// CrashLoopBackOff (container agent: back-off 5m0s)", the first
// maxSignals of them.
func signalsText(signals []progressive.PodSignal) string {
	parts := make([]string, 0, min(len(signals), maxSignals)+1)
	for i, s := range signals {
		if i == maxSignals {
			parts = append(parts, fmt.Sprintf("and %d more", len(signals)-maxSignals))
			break
		}
		parts = append(parts, signalText(s))
	}
	if len(parts) == 0 {
		return "no pod named"
	}
	return strings.Join(parts, "; ")
}

// signalText is one failing pod in words.
func signalText(s progressive.PodSignal) string {
	out := fmt.Sprintf("pod %s on node %s: %s", s.Pod, s.Node, s.Signal)
	var detail []string
	if s.Container != "" {
		detail = append(detail, "container "+s.Container)
	}
	if s.Detail != "" {
		detail = append(detail, s.Detail)
	}
	if len(detail) > 0 {
		out += " (" + strings.Join(detail, ": ") + ")"
	}
	return out
}
