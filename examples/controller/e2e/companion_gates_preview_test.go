package e2e

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// comparePreviewGate compares the preview of a rollout that a health gate
// stopped with what happened: before the change, pv planned the first wave
// (zone-a), where every node the rollout started must be; once stopped,
// a preview of the live cluster, whose pods now show the failure (those of
// revision hash), must stop at once at the same gate: the signal on
// exactly the pods failing now.
// It logs "preview: …" lines.
func comparePreviewGate(t *testing.T, e *companionEnv, name string, pv preview, started []string, signal progressive.Signal, hash string) {
	t.Helper()
	comparePreviewFirstWave(t, name, pv, started)
	// The pods failing now, which the preview reads: more than when the
	// rollout stopped, as each crashes a while after its own start.
	failing, _ := e.failingPods("agent", hash)
	now := e.previewRollout("agent", "--grace", "1s")
	if now.Outcome != "Blocked" || now.Gates == nil || now.Gates.Stop == nil {
		t.Errorf("%s: the preview of the stopped rollout does not stop at a gate: %s", name, now.raw)
		return
	}
	predicted := map[string]string{}
	var wrong []string
	for _, s := range now.Gates.Stop.Signals {
		predicted[s.Pod] = s.Node
		if s.Signal != string(signal) {
			wrong = append(wrong, fmt.Sprintf("%s on %s: %s", s.Pod, s.Node, s.Signal))
		}
	}
	t.Logf("%s: preview of the stopped rollout: %s, %s: %s on %v; failing now: %v", name, now.Outcome, now.Gates.Stop.Cause, signal, predicted, failing)
	if len(wrong) > 0 {
		t.Errorf("%s: the preview's gate fires on other signals than %s: %s", name, signal, strings.Join(wrong, "; "))
	}
	if !maps.Equal(predicted, failing) {
		t.Errorf("%s: the preview's gate names pods %v, the failing pods are %v", name, predicted, failing)
	}
}

// comparePreviewFirstWave requires the nodes the rollout started before
// it stopped to be in the first wave pv planned.
func comparePreviewFirstWave(t *testing.T, name string, pv preview, started []string) {
	t.Helper()
	if len(pv.PlannedWaves) == 0 {
		t.Errorf("%s: the preview planned no waves: %s", name, pv.raw)
		return
	}
	first := pv.PlannedWaves[0]
	inFirst := 0
	for _, n := range started {
		if slices.Contains(first.Nodes, n) {
			inFirst++
		}
	}
	t.Logf("%s: preview: first wave %s %q; %d/%d started nodes in it", name, first.Name, first.Nodes, inFirst, len(started))
	if inFirst != len(started) || len(started) == 0 {
		t.Errorf("%s: nodes %q started, the preview's first wave is %q", name, started, first.Nodes)
	}
}

// comparePreviewCanary compares the canary and approval point pv
// predicted with what happened: the canary's nodes are the ones updated
// before the approval, and the preview's first wait is the approval after
// the canary.
func comparePreviewCanary(t *testing.T, name string, pv preview, canary []string) {
	t.Helper()
	if pv.Gates == nil || pv.Gates.Canary == nil {
		t.Errorf("%s: the preview shows no canary: %s", name, pv.raw)
		return
	}
	want := slices.Sorted(slices.Values(pv.Gates.Canary.Nodes))
	got := slices.Sorted(slices.Values(canary))
	var waits []string
	for _, w := range pv.Gates.Waits {
		waits = append(waits, w.Cause+" "+w.Wave)
	}
	t.Logf("%s: preview: canary %q, observed %q; waits %q", name, want, got, waits)
	if !slices.Equal(want, got) {
		t.Errorf("%s: the preview's canary %q, the rollout's %q", name, want, got)
	}
	if len(pv.Gates.Waits) == 0 || pv.Gates.Waits[0].Cause != string(progressive.HoldApproval) || pv.Gates.Waits[0].Wave != "canary" {
		t.Errorf("%s: the preview's waits %q do not start with the approval after the canary", name, waits)
	}
}

// comparePreviewWindow compares the closed window pv predicted with the
// one the rollout waited out: the preview waits for the window that
// opens at reopenAt, which the companion named as the next opening.
func comparePreviewWindow(t *testing.T, name string, pv preview, reopenAt time.Time, observedMessage string) {
	t.Helper()
	until := reopenAt.UTC().Format(time.RFC3339)
	var waits []string
	found := false
	if pv.Gates != nil {
		for _, w := range pv.Gates.Waits {
			waits = append(waits, fmt.Sprintf("%s until %s for %s", w.Cause, w.Until, w.For))
			found = found || w.Cause == string(progressive.HoldWindow) && w.Until == until
		}
	}
	t.Logf("%s: preview: waits %q; the companion: %q", name, waits, observedMessage)
	if !found {
		t.Errorf("%s: the preview does not wait for the window opening at %s: %s", name, until, pv.raw)
	}
	if !strings.Contains(observedMessage, until) {
		t.Errorf("%s: the companion's message %q does not name the opening %s", name, observedMessage, until)
	}
}
