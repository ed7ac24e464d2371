package e2e

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kstatus "sigs.k8s.io/cli-utils/pkg/kstatus/status"

	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/examples/controller/internal/companion"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// updateTemplate changes the DaemonSet's pod template with mutate.
func (c *cluster) updateTemplate(name string, mutate func(*corev1.PodTemplateSpec)) {
	c.t.Helper()
	ctx := context.Background()
	for attempt := 0; ; attempt++ {
		ds := c.daemonSet(name)
		mutate(&ds.Spec.Template)
		_, err := c.admin.AppsV1().DaemonSets(testNamespace).Update(ctx, ds, metav1.UpdateOptions{})
		if err == nil {
			return
		}
		if attempt > 5 {
			c.t.Fatalf("updating daemonset %s: %v", name, err)
		}
	}
}

// newRevision returns a template change to image with the pod label key
// set to "true" (a kwok fault label, kwok_faults_test.go) or, for key "",
// with the fault labels removed.
func newRevision(image, key string) func(*corev1.PodTemplateSpec) {
	return func(tpl *corev1.PodTemplateSpec) {
		tpl.Spec.Containers[0].Image = image
		delete(tpl.Labels, crashLabel)
		delete(tpl.Labels, imagePullLabel)
		if key != "" {
			tpl.Labels[key] = "true"
		}
	}
}

// failingPod reports whether p shows that its own containers fail (what a
// kubelet reports of a crashing or unpullable agent): a container waiting
// for another reason than ContainerCreating, or restarted.
func failingPod(p *corev1.Pod) bool {
	for _, c := range p.Status.ContainerStatuses {
		if c.RestartCount > 0 || c.State.Waiting != nil && c.State.Waiting.Reason != "ContainerCreating" {
			return true
		}
	}
	return false
}

// workloadBudgetCheck is budgetCheck for a rollout whose new revision
// fails. A node is broken by the workload from the moment a pod on it
// fails by itself (failingPod; a pod that crashes after it became
// available was counted available when the controller decided) until the
// node runs an available pod again: replacing its failed pod takes
// nothing more down (upstream deletes an unavailable old pod outside the
// budget too). The nodes without an available pod that are not broken
// are what the controller took down: at most maxUnavailable on every pod
// event, and at most one pod per node. The health gates are what keeps
// the broken nodes few. The function keeps state and serves one monitor.
func workloadBudgetCheck(app string, desired []string, maxUnavailable int) func(map[string]*corev1.Pod) string {
	broken := map[string]bool{}
	want := nodeSet(desired)
	return func(pods map[string]*corev1.Pod) string {
		avail := map[string]bool{}
		count := map[string]int{}
		for _, p := range pods {
			if p.Labels["app"] != app {
				continue
			}
			count[p.Spec.NodeName]++
			if available(p) {
				avail[p.Spec.NodeName] = true
			}
			if failingPod(p) {
				broken[p.Spec.NodeName] = true
			}
		}
		takenDown, brokenDown := 0, 0
		for n := range want {
			switch {
			case avail[n]:
				delete(broken, n)
			case broken[n]:
				brokenDown++
			default:
				takenDown++
			}
		}
		if takenDown > maxUnavailable {
			return fmt.Sprintf("%d desired nodes without an available pod besides %d the new revision broke, budget %d", takenDown, brokenDown, maxUnavailable)
		}
		for n, k := range count {
			if n != "" && k > 1 {
				return fmt.Sprintf("node %s has %d pods, at most 1 allowed", n, k)
			}
		}
		return ""
	}
}

// deleteRecord keeps, for every old pod (of oldHash) of app, when its
// deletion was asked for, as the API server recorded it (deletedAt), or
// when the monitor first found it gone.
type deleteRecord struct {
	mu      sync.Mutex
	oldHash string
	live    map[string]string // pod name → node
	at      map[string]time.Time
	nodeOf  map[string]string
}

func newDeleteRecord(oldHash string) *deleteRecord {
	return &deleteRecord{oldHash: oldHash, live: map[string]string{}, at: map[string]time.Time{}, nodeOf: map[string]string{}}
}

func (d *deleteRecord) check(pods map[string]*corev1.Pod) {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := time.Now()
	present := map[string]bool{}
	for _, p := range pods {
		if p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] != d.oldHash {
			continue
		}
		present[p.Name] = true
		d.nodeOf[p.Name] = p.Spec.NodeName
		if at, ok := deletedAt(p); ok {
			if _, seen := d.at[p.Name]; !seen {
				d.at[p.Name] = at
			}
		} else {
			d.live[p.Name] = p.Spec.NodeName
		}
	}
	for name := range d.live {
		if _, seen := d.at[name]; !present[name] && !seen {
			d.at[name] = now
		}
	}
}

// deleted returns the nodes whose old pod was deleted, by deletion time.
func (d *deleteRecord) deleted() (nodes []string, at []time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var names []string
	for n := range d.at {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		return d.at[names[i]].Before(d.at[names[j]]) || d.at[names[i]].Equal(d.at[names[j]]) && names[i] < names[j]
	})
	for _, n := range names {
		nodes = append(nodes, d.nodeOf[n])
		at = append(at, d.at[n])
	}
	return nodes, at
}

func (d *deleteRecord) count() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.at)
}

// startDeleteMonitor starts a monitor of check that also records, in the
// deleteRecord it returns, the deletions of the old pods of app (of the
// DaemonSet's current revision, now).
func (c *cluster) startDeleteMonitor(app string, check func(map[string]*corev1.Pod) string) (*monitor, *deleteRecord) {
	c.t.Helper()
	dr := newDeleteRecord(c.currentHash(c.daemonSet(app)))
	m := c.startMonitor(func(pods map[string]*corev1.Pod) string {
		dr.check(pods)
		return check(pods)
	})
	return m, dr
}

// warningEvents returns the messages of the Warning events of reason that
// the companion recorded on the DaemonSet name.
func (c *cluster) warningEvents(name, reason string) []string {
	c.t.Helper()
	list, err := c.admin.CoreV1().Events(testNamespace).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		c.t.Fatalf("events: %v", err)
	}
	var out []string
	for _, ev := range list.Items {
		if ev.InvolvedObject.Kind == "DaemonSet" && ev.InvolvedObject.Name == name && ev.Source.Component == syncer.ComponentName &&
			ev.Reason == reason && ev.Type == corev1.EventTypeWarning {
			out = append(out, ev.Message)
		}
	}
	return out
}

// waitWarning waits until the companion recorded a Warning event of
// reason on name and returns its messages.
func (c *cluster) waitWarning(name, reason string) []string {
	c.t.Helper()
	var got []string
	c.eventually("a Warning event "+reason, 20*time.Second, func() (bool, string) {
		got = c.warningEvents(name, reason)
		return len(got) > 0, fmt.Sprintf("events %s: %q (any type: %q)", reason, got, c.eventsOf(name, syncer.ComponentName, reason))
	})
	return got
}

// failingPods returns the live pods of app of revision hash that fail by
// themselves (failingPod), by name, with their nodes, and the earliest
// crash (a last termination's finishedAt) among them.
func (c *cluster) failingPods(app, hash string) (pods map[string]string, firstCrash time.Time) {
	pods = map[string]string{}
	for _, p := range c.pods() {
		if p.Labels["app"] != app || p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] != hash || p.DeletionTimestamp != nil || !failingPod(&p) {
			continue
		}
		pods[p.Name] = p.Spec.NodeName
		for _, s := range p.Status.ContainerStatuses {
			if t := s.LastTerminationState.Terminated; t != nil && (firstCrash.IsZero() || t.FinishedAt.Time.Before(firstCrash)) {
				firstCrash = t.FinishedAt.Time
			}
		}
	}
	return pods, firstCrash
}

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
	comparePreviewGate(t, e, g.name, pv, deletedNodes, g.signal, failing)

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
	// until reopenAt, open from then on for an hour.
	t0 := time.Now().UTC().Truncate(time.Second).Add(8 * time.Second)
	closeAt, reopenAt := t0.Add(8*time.Second), t0.Add(23*time.Second)
	clock := func(t time.Time) string { return t.UTC().Format("15:04:05") }
	window := fmt.Sprintf("* %s-%s UTC; * %s-%s UTC", clock(t0.Add(-time.Minute)), clock(closeAt), clock(reopenAt), clock(reopenAt.Add(time.Hour)))
	e.setAnnotations("agent", map[string]string{progressive.AnnotationWindow: window})
	pv := e.previewRollout("agent", "--image", "example.invalid/agent:v2", "--grace", "1s")

	m, dr := e.startDeleteMonitor("agent", budgetCheck("agent", names(nodes), 1, 1))
	if late := time.Since(t0); late > 0 {
		t.Fatalf("the preview took until %s after the planned start %s; the windows are planned from it", late, clock(t0))
	}
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
// revision, within the budget on every pod event throughout.
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

	m, dr := e.startDeleteMonitor("agent", workloadBudgetCheck("agent", names(nodes), 1))
	start := time.Now()
	e.updateTemplate("agent", newRevision("example.invalid/agent:v2", crashLabel))
	ks := e.recordKstatus("agent")
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
	e.waitRolledOut("every node back on the old revision", "agent", names(nodes), 2*time.Minute)
	took := time.Since(start)
	for hash, onNodes := range e.revisions("agent") {
		if hash != oldHash {
			t.Errorf("nodes %q run revision %s, want %s", onNodes, hash, oldHash)
		}
	}
	e.waitKstatus(ks, kstatus.CurrentStatus, 20*time.Second)
	_, events := m.stopAndFailOnViolations(t)
	reportKstatus(t, ks, "rollback", kstatus.InProgressStatus, kstatus.CurrentStatus)
	deletedNodes, _ := dr.deleted()
	t.Logf("companion-rollback: rolled back %s after the change (Warning RolledBack %q); %d old pods had been replaced (%q); every node back on %s %s after the change; %d pod events checked",
		rolledBackAfter.Round(100*time.Millisecond), warnings[0], len(deletedNodes), deletedNodes, oldHash, took.Round(100*time.Millisecond), events)
}

// comparePreviewGate compares the preview of a rollout that a health gate
// stopped with what happened: before the change, pv planned the first wave
// (zone-a), where every node the rollout started must be; once stopped,
// a preview of the live cluster, whose pods now show the failure, must
// stop at once at the same gate: the signal on exactly the failing pods.
// It logs "preview: …" lines.
func comparePreviewGate(t *testing.T, e *companionEnv, name string, pv preview, started []string, signal progressive.Signal, failing map[string]string) {
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
	if inFirst != len(started) {
		t.Errorf("%s: nodes %q started, the preview's first wave is %q", name, started, first.Nodes)
	}
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
