package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	kstatus "sigs.k8s.io/cli-utils/pkg/kstatus/status"

	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/examples/controller/internal/companion"
)

// TestCompanionCanaryApproval: a canary of two nodes spread across three
// zones, then a pause for approval (canary "2", pause-after canary): once
// the canary is updated nothing more is deleted, RolloutProgressing says
// WaitingForApproval and how to approve, "dsplan rollout status" exits 6,
// and kstatus stays InProgress; "dsplan rollout approve" lets the rollout
// go on to completion.
func TestCompanionCanaryApproval(t *testing.T) {
	zones := []string{"zone-a", "zone-b", "zone-c"}
	e, nodes := startCompanionScenario(t, zones, 2)
	e.createDaemonSet(newDaemonSet("agent", onDelete(), annotate(map[string]string{
		progressive.AnnotationMaxUnavailable: "1",
		progressive.AnnotationOrderBy:        zoneLabel,
		progressive.AnnotationCanary:         "2",
		progressive.AnnotationPauseAfter:     "canary",
	})))
	e.converge("agent", names(nodes), 2*time.Minute)
	e.waitRolledOut("companion reports generation 1 complete", "agent", names(nodes), time.Minute)
	pv := e.previewRollout("agent", "--image", "example.invalid/agent:v2", "--grace", "1s")

	m, dr := e.startDeleteMonitor("agent", budgetCheck("agent", names(nodes), 1, 1))
	start := time.Now()
	e.setImage("agent", "example.invalid/agent:v2")
	ks := e.recordKstatus("agent")
	status := e.rolloutStatus("agent", "--timeout", "2m")
	e.eventually("waiting for approval after the canary", time.Minute, func() (bool, string) {
		return e.conditionIs("agent", companion.ConditionProgressing, corev1.ConditionTrue, string(progressive.HoldApproval))
	})
	atCanary := time.Since(start)
	msg := conditionOf(e.daemonSet("agent"), companion.ConditionProgressing).Message
	if !strings.Contains(msg, "waiting for approval after") || !strings.Contains(msg, "canary") || !strings.Contains(msg, "kubectl dsplan rollout approve") {
		t.Errorf("RolloutProgressing %q does not say it waits for approval after the canary and how to approve", msg)
	}
	canaryNodes, _ := dr.deleted()
	canaryZones := map[string]bool{}
	for _, n := range canaryNodes {
		canaryZones[n[:len("zone-a")]] = true
	}
	if len(canaryNodes) != 2 || len(canaryZones) != 2 {
		t.Errorf("the canary replaced %q, want 2 nodes in 2 zones", canaryNodes)
	}
	if status.waitOrFail(t, 30*time.Second, "waiting for approval") {
		if status.code != 6 {
			t.Errorf("dsplan rollout status while waiting for approval: exit %d, want 6\n%s%s", status.code, status.stdout, status.stderr)
		}
		if !strings.Contains(status.stdout+status.stderr, "waiting for approval after") {
			t.Errorf("dsplan rollout status does not say it waits for approval:\n%s%s", status.stdout, status.stderr)
		}
	}
	time.Sleep(5 * time.Second)
	if n := dr.count(); n != len(canaryNodes) {
		t.Errorf("waiting for approval, yet %d more old pods were deleted in 5s", n-len(canaryNodes))
	}
	if s := ks.now(); s != kstatus.InProgressStatus {
		t.Errorf("kstatus while waiting for approval: %s, want %s", s, kstatus.InProgressStatus)
	}
	comparePreviewCanary(t, "canary-approval", pv, canaryNodes)

	code, out, errOut := e.dsplan("rollout", "approve", testNamespace+"/agent")
	if code != 0 {
		t.Fatalf("dsplan rollout approve: exit %d\n%s%s", code, out, errOut)
	}
	approved := e.daemonSet("agent").Annotations[progressive.AnnotationApproved]
	if want := e.currentHash(e.daemonSet("agent")) + "/" + "canary"; approved != want {
		t.Errorf("approved annotation %q, want %q", approved, want)
	}
	e.waitRolledOut("rollout complete after the approval", "agent", names(nodes), 2*time.Minute)
	e.waitKstatus(ks, kstatus.CurrentStatus, 20*time.Second)
	_, events := m.stopAndFailOnViolations(t)
	reportKstatus(t, ks, "canary-approval", kstatus.InProgressStatus, kstatus.CurrentStatus)
	if slices.Contains(ks.saw(), kstatus.FailedStatus) {
		t.Errorf("kstatus said Failed while the rollout waited for approval: %s", ks.changesString())
	}
	t.Logf("companion-canary-approval: canary %q updated and waiting for approval %s after the change (%q); dsplan rollout status exited %d; approved (%q) and completed %s later; %d pod events checked",
		canaryNodes, atCanary.Round(100*time.Millisecond), msg, status.code, approved, (time.Since(start) - atCanary).Round(100*time.Millisecond), events)
}

// TestCompanionWindow: a maintenance window open when the rollout starts
// closes 8s later and the next opens 15s after that (window annotation
// with times to the second, from the wall clock); minReadySeconds slows
// each node so that the close falls mid-rollout. No old pod's deletion is
// asked for while no window is open (the API server's deletion times),
// RolloutProgressing says OutsideWindow meanwhile, and the rollout
// completes after the reopening.
func TestCompanionWindow(t *testing.T) {
	zones := []string{"zone-a", "zone-b"}
	e, nodes := startCompanionScenario(t, zones, 3)
	e.createDaemonSet(newDaemonSet("agent", onDelete(), func(ds *appsv1.DaemonSet) { ds.Spec.MinReadySeconds = 3 },
		annotate(map[string]string{progressive.AnnotationMaxUnavailable: "1", progressive.AnnotationOrderBy: zoneLabel})))
	e.converge("agent", names(nodes), 2*time.Minute)
	e.waitRolledOut("companion reports generation 1 complete", "agent", names(nodes), time.Minute)

	// The windows, to the second: open from a minute before the change
	// (at t0, time enough ahead for the preview) until closeAt, closed
	// until reopenAt, open from then on for an hour. A preview slower
	// than the margin (a loaded machine) plans them again, further ahead.
	clock := func(t time.Time) string { return t.UTC().Format("15:04:05") }
	var t0, closeAt, reopenAt time.Time
	var window string
	var pv preview
	for margin := 8 * time.Second; ; margin *= 2 {
		t0 = time.Now().UTC().Truncate(time.Second).Add(margin)
		closeAt, reopenAt = t0.Add(8*time.Second), t0.Add(23*time.Second)
		window = fmt.Sprintf("* %s-%s UTC; * %s-%s UTC", clock(t0.Add(-time.Minute)), clock(closeAt), clock(reopenAt), clock(reopenAt.Add(time.Hour)))
		e.setAnnotations("agent", map[string]string{progressive.AnnotationWindow: window})
		pv = e.previewRollout("agent", "--image", "example.invalid/agent:v2", "--grace", "1s")
		if time.Until(t0) > time.Second {
			break
		}
		if margin > 30*time.Second {
			t.Fatalf("the preview took until %s after the planned start %s; the windows are planned from it", time.Since(t0), clock(t0))
		}
	}
	m, dr := e.startDeleteMonitor("agent", budgetCheck("agent", names(nodes), 1, 1))
	time.Sleep(time.Until(t0))
	start := time.Now()
	e.setImage("agent", "example.invalid/agent:v2")
	ks := e.recordKstatus("agent")
	e.eventually("outside the window", 20*time.Second, func() (bool, string) {
		return e.conditionIs("agent", companion.ConditionProgressing, corev1.ConditionTrue, string(progressive.HoldWindow))
	})
	msg := conditionOf(e.daemonSet("agent"), companion.ConditionProgressing).Message
	if !strings.Contains(msg, "outside the maintenance windows") {
		t.Errorf("RolloutProgressing %q does not say it is outside the windows", msg)
	}
	e.waitRolledOut("rollout complete after the window reopened", "agent", names(nodes), 2*time.Minute)
	took := time.Since(start)
	e.waitKstatus(ks, kstatus.CurrentStatus, 20*time.Second)
	_, events := m.stopAndFailOnViolations(t)
	reportKstatus(t, ks, "window", kstatus.InProgressStatus, kstatus.CurrentStatus)

	// The API server's deletion times are whole seconds, truncated: a
	// deletion asked for in [closeAt, closeAt+1s) may be one decided just
	// before the close, and one at reopenAt-1s... is recorded before
	// reopenAt only when asked for before it.
	deletedNodes, deletedTimes := dr.deleted()
	before, during, after := 0, 0, 0
	var bad []string
	for i, at := range deletedTimes {
		switch {
		case at.Before(closeAt.Add(time.Second)):
			before++
		case at.Before(reopenAt):
			during++
			bad = append(bad, fmt.Sprintf("%s at %s", deletedNodes[i], clock(at)))
		default:
			after++
		}
	}
	if during > 0 {
		t.Errorf("old pods deleted while no window was open (%s-%s): %s", clock(closeAt), clock(reopenAt), strings.Join(bad, ", "))
	}
	if before == 0 || after == 0 {
		t.Errorf("the window did not close mid-rollout: %d nodes started before %s, %d after %s", before, clock(closeAt), after, clock(reopenAt))
	}
	comparePreviewWindow(t, "window", pv, reopenAt, msg)
	t.Logf("companion-window: window %q: %d nodes started before the close, none while closed (%q), %d after the reopening; completed %s after the change; %d pod events checked",
		window, before, msg, after, took.Round(100*time.Millisecond), events)
}

// TestCompanionRollback: under on-failure rollback, a new revision whose
// pods crash-loop is undone by the companion itself: the template is
// back at the old revision (rolled-back-from names the bad one), a
// RolledBack Warning event says so, and every node ends on the old
// revision, within the budget on every pod event throughout. The nodes
// replaced before the rollback are in the first wave the preview planned.
// The change is a failed one on every surface (the finding 2):
// "rollout status", started with the change, exits 7 naming both
// revisions, kstatus reads Failed (InProgress, then Failed), and no
// RolloutBlocked or RolloutPaused Warning is recorded on the way; once a
// person acknowledges it (rollout resume), kstatus reads Current and
// rollout status exits 0.
func TestCompanionRollback(t *testing.T) {
	zones := []string{"zone-a", "zone-b"}
	e, nodes := startCompanionScenario(t, zones, 3)
	e.createDaemonSet(newDaemonSet("agent", onDelete(), annotate(map[string]string{
		progressive.AnnotationMaxUnavailable: "1",
		progressive.AnnotationOrderBy:        zoneLabel,
		progressive.AnnotationWaveBake:       "5s",
		progressive.AnnotationOnFailure:      string(progressive.OnFailureRollback),
	})))
	e.converge("agent", names(nodes), 2*time.Minute)
	e.waitRolledOut("companion reports generation 1 complete", "agent", names(nodes), time.Minute)
	oldDS := e.daemonSet("agent")
	oldHash := e.currentHash(oldDS)
	oldImage := oldDS.Spec.Template.Spec.Containers[0].Image
	pv := e.previewRollout("agent", "--image", "example.invalid/agent:v2", "--grace", "1s")

	m, dr := e.startDeleteMonitor("agent", workloadBudgetCheck("agent", names(nodes), 1))
	start := time.Now()
	e.updateTemplate("agent", newRevision("example.invalid/agent:v2", crashLabel))
	ks := e.recordKstatus("agent")
	status := e.rolloutStatus("agent", "--timeout", "3m")
	var badHash string
	e.eventually("the new revision", 10*time.Second, func() (bool, string) {
		badHash = e.currentHash(e.daemonSet("agent"))
		return badHash != oldHash, "still at revision " + oldHash
	})
	e.eventually("the template rolled back", time.Minute, func() (bool, string) {
		ds := e.daemonSet("agent")
		h := e.currentHash(ds)
		return h == oldHash && ds.Annotations[progressive.AnnotationRolledBackFrom] == badHash,
			fmt.Sprintf("revision %s (old %s, bad %s), %s=%q", h, oldHash, badHash, progressive.AnnotationRolledBackFrom, ds.Annotations[progressive.AnnotationRolledBackFrom])
	})
	rolledBackAfter := time.Since(start)
	ds := e.daemonSet("agent")
	if img := ds.Spec.Template.Spec.Containers[0].Image; img != oldImage || ds.Spec.Template.Labels[crashLabel] != "" {
		t.Errorf("the template rolled back to image %s, labels %v; want %s without %s", img, ds.Spec.Template.Labels, oldImage, crashLabel)
	}
	warnings := e.waitWarning("agent", "RolledBack")
	e.eventually("every node back on the old revision", 2*time.Minute, func() (bool, string) {
		return e.rolledOutAs("agent", names(nodes), companion.ReasonRolledBack)
	})
	took := time.Since(start)
	for hash, onNodes := range e.revisions("agent") {
		if hash != oldHash {
			t.Errorf("nodes %q run revision %s, want %s", onNodes, hash, oldHash)
		}
	}
	e.waitKstatus(ks, kstatus.FailedStatus, 20*time.Second)
	if status.waitOrFail(t, time.Minute, "the rollback") {
		wantText := fmt.Sprintf("rolled back from revision %s", badHash)
		if status.code != 7 || !strings.Contains(status.stderr, "rolled back from revision ") || !strings.Contains(status.stderr, "("+badHash+") to revision ") ||
			!strings.Contains(status.stderr, "("+oldHash+") by on-failure: rollback") {
			t.Errorf("rollout status after the rollback: exit %d, want 7 naming %q and %s:\n%s%s", status.code, wantText, oldHash, status.stdout, status.stderr)
		}
		t.Logf("companion-rollback: rollout status exit %d: %s", status.code, strings.TrimSpace(status.stderr))
	}
	for _, reason := range []string{"RolloutBlocked", "RolloutPaused"} {
		if got := e.warningEvents("agent", reason); len(got) > 0 {
			t.Errorf("an automatic rollback recorded Warning %s: %q", reason, got)
		}
	}
	// A person acknowledges the rollback: the change is over.
	if code, out, errOut := e.dsplan("rollout", "resume", testNamespace+"/agent"); code != 0 {
		t.Errorf("rollout resume: exit %d:\n%s%s", code, out, errOut)
	}
	e.waitKstatus(ks, kstatus.CurrentStatus, 30*time.Second)
	if after := e.rolloutStatus("agent", "--timeout", "1m"); after.waitOrFail(t, 90*time.Second, "the acknowledgement") && after.code != 0 {
		t.Errorf("rollout status after the acknowledgement: exit %d, want 0:\n%s%s", after.code, after.stdout, after.stderr)
	}
	_, events := m.stopAndFailOnViolations(t)
	reportKstatus(t, ks, "rollback", kstatus.InProgressStatus, kstatus.FailedStatus, kstatus.CurrentStatus)
	deletedNodes, _ := dr.deleted()
	comparePreviewFirstWave(t, "rollback", pv, deletedNodes)
	t.Logf("companion-rollback: rolled back %s after the change (Warning RolledBack %q); %d old pods had been replaced (%q); every node back on %s %s after the change; %d pod events checked",
		rolledBackAfter.Round(100*time.Millisecond), warnings[0], len(deletedNodes), deletedNodes, oldHash, took.Round(100*time.Millisecond), events)
}
