package e2e

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	kstatus "sigs.k8s.io/cli-utils/pkg/kstatus/status"

	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/examples/controller/internal/companion"
)

// reasonHealthGateFailed is the reason of the companion's conditions once
// a health gate stopped the rollout: the hold's cause.
const reasonHealthGateFailed = string(progressive.HoldHealthGate)

// healthGateBlocked are the companion's conditions once a health gate
// stopped the rollout.
var healthGateBlocked = []conditionWant{
	{companion.ConditionBlocked, corev1.ConditionTrue, reasonHealthGateFailed},
	{companion.ConditionPaused, corev1.ConditionTrue, reasonHealthGateFailed},
	{companion.ConditionProgressing, corev1.ConditionFalse, reasonHealthGateFailed},
}

// gateFailure is a scenario whose new revision fails a health gate.
type gateFailure struct {
	// name names the scenario in the tally and kstatus lines.
	name string
	// label is the kwok fault label the new revision's pods carry.
	label string
	// signal is the health-gate signal expected in RolloutBlocked.
	signal progressive.Signal
	// hold is how long the rollout must stay stopped, nothing deleted.
	hold time.Duration
}

// runGateFailure: six nodes in two zones under max-unavailable 1 and
// zone waves baking 5s; the new revision's pods fail as g.label makes
// kwok play them. The rollout stops by itself on the first failure: no
// node outside the first wave is touched, RolloutBlocked (reason
// HealthGateFailed) names the failing pods, their nodes and the signal, a
// Warning event says so, kstatus says Failed, and no old pod is deleted
// over g.hold (longer than the bake, after which the waves alone would
// go on). A new template without the fault resumes the rollout, which
// completes. The budget (workloadBudgetCheck) holds on every pod event.
func runGateFailure(t *testing.T, g gateFailure) {
	zones := []string{"zone-a", "zone-b"}
	e, nodes := startCompanionScenario(t, zones, 3)
	e.createDaemonSet(newDaemonSet("agent", onDelete(), annotate(map[string]string{
		progressive.AnnotationMaxUnavailable: "1",
		progressive.AnnotationOrderBy:        zoneLabel,
		progressive.AnnotationWaveBake:       "5s",
		progressive.AnnotationHealthGates:    "true",
	})))
	e.converge("agent", names(nodes), 2*time.Minute)
	e.waitRolledOut("companion reports generation 1 complete", "agent", names(nodes), time.Minute)
	pv := e.previewRollout("agent", "--image", "example.invalid/agent:v2", "--grace", "1s")

	m, dr := e.startDeleteMonitor("agent", workloadBudgetCheck("agent", names(nodes), 1))
	start := time.Now()
	e.updateTemplate("agent", newRevision("example.invalid/agent:v2", g.label))
	ks := e.recordKstatus("agent")
	e.eventually("stopped by a health gate", time.Minute, func() (bool, string) {
		return e.conditionsAre("agent", healthGateBlocked)
	})
	blockedAfter := time.Since(start)
	deletedAtBlock := dr.count()
	ds := e.daemonSet("agent")
	badHash := e.currentHash(ds)
	blocked := conditionOf(ds, companion.ConditionBlocked)

	// RolloutBlocked names the signal and failing pods with their nodes.
	failing, firstCrash := e.failingPods("agent", badHash)
	if !strings.Contains(blocked.Message, string(g.signal)) {
		t.Errorf("RolloutBlocked %q does not name the signal %s", blocked.Message, g.signal)
	}
	named := 0
	for pod, node := range failing {
		if strings.Contains(blocked.Message, pod) {
			named++
			if !strings.Contains(blocked.Message, node) {
				t.Errorf("RolloutBlocked %q names pod %s but not its node %s", blocked.Message, pod, node)
			}
		}
	}
	if named == 0 {
		t.Errorf("RolloutBlocked %q names none of the failing pods %v", blocked.Message, failing)
	}
	warnings := e.waitWarning("agent", "RolloutBlocked")
	e.waitKstatus(ks, kstatus.FailedStatus, 20*time.Second)

	// Nothing more is deleted while it holds, well past the bake.
	time.Sleep(g.hold)
	if n := dr.count(); n != deletedAtBlock {
		t.Errorf("stopped after %d deletions, yet %d more old pods were deleted in %s", deletedAtBlock, n-deletedAtBlock, g.hold)
	}
	if ok, why := e.conditionsAre("agent", healthGateBlocked); !ok {
		t.Errorf("after %s: %s", g.hold, why)
	}
	deletedNodes, deletedTimes := dr.deleted()
	for _, n := range deletedNodes {
		if !strings.HasPrefix(n, "zone-a-") {
			t.Errorf("node %s was started; the rollout should have stopped in its first wave (zone-a): %q", n, deletedNodes)
		}
	}
	// "At once": no deletion asked for after the first crash seen (the
	// API server's times are whole seconds: one second of slack).
	late := 0
	for _, at := range deletedTimes {
		if !firstCrash.IsZero() && at.After(firstCrash.Add(time.Second)) {
			late++
		}
	}
	if late > 0 {
		t.Errorf("%d old pods deleted more than 1s after the first crash (%s): %q at %v", late, firstCrash.Format(time.TimeOnly), deletedNodes, deletedTimes)
	}
	comparePreviewGate(t, e, g.name, pv, deletedNodes, g.signal, badHash)

	// A new template without the fault resumes the rollout.
	resumed := time.Now()
	e.updateTemplate("agent", newRevision("example.invalid/agent:v3", ""))
	e.waitRolledOut("rollout to v3 complete", "agent", names(nodes), 2*time.Minute)
	resumedTook := time.Since(resumed)
	for _, c := range []conditionWant{
		{companion.ConditionBlocked, corev1.ConditionFalse, companion.ReasonNotBlocked},
		{companion.ConditionPaused, corev1.ConditionFalse, companion.ReasonNotPaused},
	} {
		if ok, why := e.conditionIs("agent", c.t, c.status, c.reason); !ok {
			t.Errorf("after the new template: %s", why)
		}
	}
	e.waitKstatus(ks, kstatus.CurrentStatus, 20*time.Second)
	_, events := m.stopAndFailOnViolations(t)
	reportKstatus(t, ks, g.name, kstatus.InProgressStatus, kstatus.FailedStatus, kstatus.InProgressStatus, kstatus.CurrentStatus)
	t.Logf("companion-%s: stopped %s after the template change with %d of %d old pods deleted (%q), nothing more deleted for %s; RolloutBlocked: %s; Warning: %q; resumed by a new template and completed in %s; %d pod events checked",
		g.name, blockedAfter.Round(100*time.Millisecond), deletedAtBlock, len(nodes), deletedNodes, g.hold, blocked.Message, warnings[0],
		resumedTook.Round(100*time.Millisecond), events)
}

// TestCompanionCrashLoop: the new revision's pods become Ready, then
// crash-loop (CrashLoopBackOff, one restart, exit code 1): the rollout
// stops on the first crash, in its first wave, and holds for 30s
// (runGateFailure).
func TestCompanionCrashLoop(t *testing.T) {
	runGateFailure(t, gateFailure{name: "crash-loop", label: crashLabel, signal: progressive.SignalCrashLoop, hold: 30 * time.Second})
}

// TestCompanionImagePull: the new revision's image cannot be pulled
// (ErrImagePull, then ImagePullBackOff; never Ready): the rollout stops
// at once, on its first node (runGateFailure).
func TestCompanionImagePull(t *testing.T) {
	runGateFailure(t, gateFailure{name: "image-pull", label: imagePullLabel, signal: progressive.SignalImagePull, hold: 10 * time.Second})
}
