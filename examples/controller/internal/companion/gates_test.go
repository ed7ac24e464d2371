package companion

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus/testutil"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// crashing is pod with its container waiting in CrashLoopBackOff after
// restarts restarts.
func crashing(pod *corev1.Pod, restarts int32) *corev1.Pod {
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", RestartCount: restarts,
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 40s restarting failed container"}}}}
	return pod
}

// needGates skips a test while the library's gates are stubs (before the
// milestones of lib-gates and lib-windows are merged).
func needGates(t *testing.T, ann map[string]string) {
	t.Helper()
	ds := companionDS(ann)
	if _, err := progressive.ForDaemonSet(ds); err != nil {
		t.Skipf("the library does not parse the gates' annotations yet: %v", err)
	}
	if _, failing := (progressive.HealthGates{On: true, MaxRestarts: 3}).Check(crashing(daemonPod(ds, "p", "n", "h", time.Time{}), 1), t0); !failing {
		t.Skip("the library's health gates are stubs")
	}
}

// update writes ds, changed by mutate, to the fake API server and the
// cache.
func (h *harness) update(mutate func(ds *appsv1.DaemonSet)) {
	h.T.Helper()
	ds := h.refreshDS("ns", "ds").DeepCopy()
	mutate(ds)
	if _, err := h.Client.AppsV1().DaemonSets("ns").Update(context.Background(), ds, metav1.UpdateOptions{}); err != nil {
		h.T.Fatal(err)
	}
	h.refreshDS("ns", "ds")
	h.Writes()
}

// conditionsOf are the reasons of the companion's conditions of ns/ds:
// "type status reason".
func (h *harness) conditionsOf() []string {
	ds := h.refreshDS("ns", "ds")
	var out []string
	for _, t := range ownConditions {
		out = append(out, string(t)+" "+cond(ds, t))
	}
	return out
}

// TestCompanionHealthGateLatches: a crash-looping new pod stops the
// rollout at once (no delete), RolloutBlocked naming the pod and node, a
// Warning event, the counter; it stays stopped once the pod recovers and
// after a restart of the companion, until the paused annotation changes.
func TestCompanionHealthGateLatches(t *testing.T) {
	ann := map[string]string{progressive.AnnotationMaxUnavailable: "1"}
	needGates(t, ann)
	ds := companionDS(ann)
	rev, hash := revisionOf(t, ds)
	objs := []runtime.Object{ds, rev, crashing(daemonPod(ds, "new-n1", "n1", hash, time.Time{}), 1)}
	for _, n := range []string{"n1", "n2", "n3"} {
		objs = append(objs, testNode(n, nil))
	}
	objs = append(objs, daemonPod(ds, "old-n2", "n2", "old", t0.Add(-2*time.Hour)), daemonPod(ds, "old-n3", "n3", "old", t0.Add(-2*time.Hour)))
	h := newHarness(t, syncer.Config{}, objs...)

	if diff := cmp.Diff([]string{"patch daemonsets", "patch daemonsets/status"}, h.syncCompanion("ns/ds")); diff != "" {
		t.Errorf("writes on the failure (-want +got):\n%s", diff)
	}
	if v := h.refreshDS("ns", "ds").Annotations[progressive.AnnotationOutcome]; v != (progressive.Outcome{Reason: progressive.OutcomeHealthGateFailed, Revision: hash, Why: "health gate failed: CrashLoopBackOff on pod new-n1 (node n1, container c: 1 restart)"}).Format() {
		t.Errorf("outcome annotation %q", v)
	}
	latched := []string{
		"RolloutProgressing False HealthGateFailed", "RolloutPaused True HealthGateFailed", "RolloutBlocked True HealthGateFailed",
		"Reconciling False HealthGateFailed", "Stalled True HealthGateFailed",
	}
	if diff := cmp.Diff(latched, h.conditionsOf()); diff != "" {
		t.Errorf("conditions (-want +got):\n%s", diff)
	}
	blocked := findCondition(h.refreshDS("ns", "ds").Status.Conditions, ConditionBlocked)
	for _, s := range []string{"CrashLoopBackOff", "pod new-n1", "node n1"} {
		if !strings.Contains(blocked.Message, s) {
			t.Errorf("RolloutBlocked message %q does not say %q", blocked.Message, s)
		}
	}
	events := h.Events()
	if !hasEvent(events, "Warning RolloutBlocked HealthGateFailed: health gate failed: CrashLoopBackOff on pod new-n1 (node n1") || !hasEvent(events, "Warning RolloutPaused") {
		t.Errorf("events %q", events)
	}
	if n := testutil.ToFloat64(h.Mode.metrics.healthGateFailures.WithLabelValues("ns", "ds", "CrashLoopBackOff")); n != 1 {
		t.Errorf("health_gate_failures_total %v, want 1", n)
	}

	// The pod recovers: still stopped, and after a restart too.
	recovered := daemonPod(ds, "new-n1", "n1", hash, t0.Add(-time.Minute))
	recovered.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", RestartCount: 1, Ready: true}}
	h.Cache(recovered)
	h.Clock.Step(messageInterval)
	for _, w := range h.syncCompanion("ns/ds") {
		if w != "patch daemonsets/status" {
			t.Errorf("latched, the pod recovered: write %s", w)
		}
	}
	h2 := newHarness(t, syncer.Config{}, h.refreshDS("ns", "ds"), rev, testNode("n1", nil), testNode("n2", nil), testNode("n3", nil), recovered,
		daemonPod(ds, "old-n2", "n2", "old", t0.Add(-2*time.Hour)), daemonPod(ds, "old-n3", "n3", "old", t0.Add(-2*time.Hour)))
	for _, w := range h2.syncCompanion("ns/ds") {
		if w != "patch daemonsets/status" {
			t.Errorf("latched, after a restart: write %s", w)
		}
	}
	if diff := cmp.Diff(latched, h2.conditionsOf()); diff != "" {
		t.Errorf("after a restart: conditions (-want +got):\n%s", diff)
	}

	// A person resumes it (kubectl dsplan rollout resume changes the
	// paused annotation): the next old pod goes.
	h2.update(func(ds *appsv1.DaemonSet) { ds.Annotations[progressive.AnnotationPaused] = "false" })
	if diff := cmp.Diff([]string{"delete pods", "patch daemonsets", "patch daemonsets/status"}, h2.syncCompanion("ns/ds")); diff != "" {
		t.Errorf("resumed: writes (-want +got):\n%s", diff)
	}
	want := []string{
		"RolloutProgressing True Updating", "RolloutPaused False NotPaused", "RolloutBlocked False NotBlocked",
		"Reconciling True Updating", "Stalled False NotBlocked",
	}
	if diff := cmp.Diff(want, h2.conditionsOf()); diff != "" {
		t.Errorf("resumed: conditions (-want +got):\n%s", diff)
	}
	if !hasEvent(h2.Events(), "Normal RolloutResumed") {
		t.Error("no RolloutResumed event")
	}
}

// TestCompanionWaitsForApproval: after a wave named in pause-after the
// companion deletes nothing, says what it waits for and the command, and
// goes on once the approval names the revision and the wave.
func TestCompanionWaitsForApproval(t *testing.T) {
	ann := map[string]string{progressive.AnnotationOrderBy: "zone", progressive.AnnotationPauseAfter: "a", progressive.AnnotationProgressDeadline: "10m"}
	needGates(t, ann)
	ds := companionDS(ann)
	rev, hash := revisionOf(t, ds)
	h := newHarness(t, syncer.Config{}, ds, rev,
		testNode("a1", map[string]string{"zone": "a"}), testNode("b1", map[string]string{"zone": "b"}), testNode("b2", map[string]string{"zone": "b"}),
		daemonPod(ds, "new-a1", "a1", hash, t0.Add(-time.Hour)),
		daemonPod(ds, "old-b1", "b1", "old", t0.Add(-2*time.Hour)), daemonPod(ds, "old-b2", "b2", "old", t0.Add(-2*time.Hour)))

	// Held far beyond the progress deadline: waiting is not being stuck.
	if diff := cmp.Diff([]string{"patch daemonsets/status"}, h.syncCompanion("ns/ds")); diff != "" {
		t.Errorf("writes while waiting (-want +got):\n%s", diff)
	}
	h.Clock.Step(time.Hour)
	if got := h.syncCompanion("ns/ds"); len(got) > 0 {
		t.Errorf("writes an hour later, still waiting: %q", got)
	}
	want := []string{
		"RolloutProgressing True WaitingForApproval", "RolloutPaused False NotPaused", "RolloutBlocked False NotBlocked",
		"Reconciling True WaitingForApproval", "Stalled False NotBlocked",
	}
	if diff := cmp.Diff(want, h.conditionsOf()); diff != "" {
		t.Errorf("conditions (-want +got):\n%s", diff)
	}
	msg := findCondition(h.refreshDS("ns", "ds").Status.Conditions, ConditionProgressing).Message
	if !strings.Contains(msg, "waiting for approval after wave zone=a (kubectl dsplan rollout approve ns/ds)") {
		t.Errorf("RolloutProgressing message %q", msg)
	}
	if events := h.Events(); len(events) != 1 || !hasEvent(events, "Normal RolloutWaitingForApproval") {
		t.Errorf("events %q, want one RolloutWaitingForApproval", events)
	}

	h.update(func(ds *appsv1.DaemonSet) {
		ds.Annotations[progressive.AnnotationApproved] = progressive.Approval{Hash: hash, Wave: "zone=a"}.String()
	})
	if diff := cmp.Diff([]string{"delete pods", "patch daemonsets/status"}, h.syncCompanion("ns/ds")); diff != "" {
		t.Errorf("approved: writes (-want +got):\n%s", diff)
	}
	if got := cond(h.refreshDS("ns", "ds"), ConditionProgressing); got != "True Updating" {
		t.Errorf("approved: RolloutProgressing %s", got)
	}
}

// TestCompanionKeepsToWindows: outside its windows the companion deletes
// nothing and names the next opening; once one opens it goes on, and the
// progress deadline counts from the opening, not from the last progress
// before the window closed.
func TestCompanionKeepsToWindows(t *testing.T) {
	ann := map[string]string{progressive.AnnotationWindow: "* 08:00-09:00 UTC", progressive.AnnotationProgressDeadline: "10m"}
	needGates(t, ann)
	ds := companionDS(ann)
	rev, _ := revisionOf(t, ds)
	h := newHarness(t, syncer.Config{}, ds, rev, testNode("n1", nil), testNode("n2", nil),
		daemonPod(ds, "old-n1", "n1", "old", t0.Add(-2*time.Hour)), daemonPod(ds, "old-n2", "n2", "old", t0.Add(-2*time.Hour)))

	if diff := cmp.Diff([]string{"patch daemonsets/status"}, h.syncCompanion("ns/ds")); diff != "" {
		t.Errorf("writes outside the windows (-want +got):\n%s", diff)
	}
	p := findCondition(h.refreshDS("ns", "ds").Status.Conditions, ConditionProgressing)
	if p.Reason != ReasonOutsideWindow || !strings.Contains(p.Message, "outside the maintenance windows until 2026-01-01T08:00:00Z (* 08:00-09:00 UTC)") {
		t.Errorf("RolloutProgressing %s %q", p.Reason, p.Message)
	}
	if !hasEvent(h.Events(), "Normal RolloutOutsideWindow") {
		t.Error("no RolloutOutsideWindow event")
	}

	h.Clock.SetTime(t0.Add(8 * time.Hour))
	if diff := cmp.Diff([]string{"delete pods", "patch daemonsets/status"}, h.syncCompanion("ns/ds")); diff != "" {
		t.Errorf("writes once open (-want +got):\n%s", diff)
	}
	h.Clock.SetTime(t0.Add(8*time.Hour + 5*time.Minute))
	h.syncCompanion("ns/ds")
	if got := cond(h.refreshDS("ns", "ds"), ConditionPaused); got != "False NotPaused" {
		t.Errorf("five minutes after the opening, with a deadline of 10m: RolloutPaused %s", got)
	}
}

// TestCompanionRefusesAnUnknownZone: a window whose time zone the zone
// database does not know is refused as the annotations' other errors are:
// a warning naming the annotation, no delete, RolloutProgressing False and
// Stalled True.
func TestCompanionRefusesAnUnknownZone(t *testing.T) {
	ann := map[string]string{progressive.AnnotationWindow: "* 08:00-17:00 Mars/Olympus_Mons"}
	needGates(t, map[string]string{progressive.AnnotationMaxUnavailable: "1"})
	ds := companionDS(ann)
	rev, _ := revisionOf(t, ds)
	h := newHarness(t, syncer.Config{}, ds, rev, testNode("n1", nil), daemonPod(ds, "old-n1", "n1", "old", t0.Add(-time.Hour)))
	if diff := cmp.Diff([]string{"patch daemonsets/status"}, h.syncCompanion("ns/ds")); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
	got := h.refreshDS("ns", "ds")
	for c, want := range map[appsv1.DaemonSetConditionType]string{
		ConditionProgressing: "False InvalidAnnotations", ConditionReconciling: "False InvalidAnnotations", ConditionStalled: "True InvalidAnnotations",
	} {
		if g := cond(got, c); g != want {
			t.Errorf("%s = %s, want %s", c, g, want)
		}
	}
	if events := h.Events(); !hasEvent(events, "Warning InvalidAnnotations metadata.annotations[rollout.daemonplan.io/window]") {
		t.Errorf("events %q", events)
	}
}

// TestCompanionCanaryApproval: with a canary of one node and pause-after
// canary, nothing beyond the canary is deleted until the approval of the
// canary wave of this revision.
func TestCompanionCanaryApproval(t *testing.T) {
	ann := map[string]string{progressive.AnnotationCanary: "1", progressive.AnnotationPauseAfter: "canary"}
	needGates(t, ann)
	ds := companionDS(ann)
	rev, hash := revisionOf(t, ds)
	h := newHarness(t, syncer.Config{}, ds, rev, testNode("n1", nil), testNode("n2", nil), testNode("n3", nil),
		daemonPod(ds, "new-n1", "n1", hash, t0.Add(-time.Hour)),
		daemonPod(ds, "old-n2", "n2", "old", t0.Add(-2*time.Hour)), daemonPod(ds, "old-n3", "n3", "old", t0.Add(-2*time.Hour)))
	if diff := cmp.Diff([]string{"patch daemonsets/status"}, h.syncCompanion("ns/ds")); diff != "" {
		t.Errorf("the canary done: writes (-want +got):\n%s", diff)
	}
	p := findCondition(h.refreshDS("ns", "ds").Status.Conditions, ConditionProgressing)
	if p.Reason != ReasonWaitingForApproval || !strings.Contains(p.Message, "waiting for approval after wave canary (kubectl dsplan rollout approve ns/ds)") {
		t.Errorf("RolloutProgressing %s %q", p.Reason, p.Message)
	}
	// An approval of another revision does not carry over.
	h.update(func(ds *appsv1.DaemonSet) {
		ds.Annotations[progressive.AnnotationApproved] = progressive.Approval{Hash: "old", Wave: "canary"}.String()
	})
	if got := h.syncCompanion("ns/ds"); len(got) > 0 {
		t.Errorf("approved for another revision: writes %q", got)
	}
	h.update(func(ds *appsv1.DaemonSet) {
		ds.Annotations[progressive.AnnotationApproved] = progressive.Approval{Hash: hash, Wave: "canary"}.String()
	})
	if diff := cmp.Diff([]string{"delete pods", "patch daemonsets/status"}, h.syncCompanion("ns/ds")); diff != "" {
		t.Errorf("approved: writes (-want +got):\n%s", diff)
	}
}

// TestCompanionWarnsOnEveryStop: a resume on a revision that still fails
// stops the rollout again, with its Warnings again (the finding
// 8: the second stop recorded none, its conditions never having gone
// False in between).
func TestCompanionWarnsOnEveryStop(t *testing.T) {
	ann := map[string]string{progressive.AnnotationMaxUnavailable: "1"}
	ds := companionDS(ann)
	rev, hash := revisionOf(t, ds)
	objs := []runtime.Object{ds, rev, crashing(daemonPod(ds, "new-n1", "n1", hash, time.Time{}), 1),
		testNode("n1", nil), testNode("n2", nil), daemonPod(ds, "old-n2", "n2", "old", t0.Add(-2*time.Hour))}
	h := newHarness(t, syncer.Config{}, objs...)
	h.syncCompanion("ns/ds")
	if events := h.Events(); !hasEvent(events, "Warning RolloutBlocked") || !hasEvent(events, "Warning RolloutPaused") {
		t.Fatalf("first stop: events %q", events)
	}
	h.update(func(ds *appsv1.DaemonSet) { ds.Annotations[progressive.AnnotationPaused] = "false" })
	h.Clock.Step(time.Second)
	// The outcome again (paused "false" now); the conditions say what
	// they said.
	if diff := cmp.Diff([]string{"patch daemonsets"}, h.syncCompanion("ns/ds")); diff != "" {
		t.Errorf("resumed, still failing: writes (-want +got):\n%s", diff)
	}
	events := h.Events()
	if !hasEvent(events, "Warning RolloutBlocked HealthGateFailed: health gate failed: CrashLoopBackOff on pod new-n1") || !hasEvent(events, "Warning RolloutPaused") {
		t.Errorf("second stop: events %q, want its Warnings", events)
	}
	if diff := cmp.Diff([]string{"new-n1", "old-n2"}, podNames(t, h)); diff != "" {
		t.Errorf("second stop: pods (-want +got):\n%s", diff)
	}
	o, err := progressive.ParseOutcome(h.refreshDS("ns", "ds").Annotations[progressive.AnnotationOutcome])
	if f := "false"; err != nil || o.Paused == nil || *o.Paused != f {
		t.Errorf("second stop: outcome %+v (%v), want it to record paused \"false\"", o, err)
	}
}

// TestCompanionGatesJudgeARolloutUnderWay: once the rollout of the
// current generation completed, a pod of that revision that crash-loops
// is reported (PodsFailing, a Warning naming the revision and the pod),
// not a stop: no outcome, not paused, not blocked, not Stalled (the
// issue's finding 8: the companion paused itself and kstatus said
// Failed with no rollout under way).
func TestCompanionGatesJudgeARolloutUnderWay(t *testing.T) {
	ann := map[string]string{progressive.AnnotationMaxUnavailable: "1"}
	ds := companionDS(ann, func(ds *appsv1.DaemonSet) { ds.Generation = 3 })
	ds.Status.Conditions = []appsv1.DaemonSetCondition{
		condition(ConditionProgressing, true, ReasonComplete, progressive.WithGeneration("2/2 nodes updated", 3)),
	}
	rev, hash := revisionOf(t, ds)
	objs := []runtime.Object{ds, rev, testNode("n1", nil), testNode("n2", nil),
		crashing(daemonPod(ds, "cur-n1", "n1", hash, time.Time{}), 4), daemonPod(ds, "cur-n2", "n2", hash, t0.Add(-time.Hour))}
	h := newHarness(t, syncer.Config{}, objs...)
	if diff := cmp.Diff([]string{"patch daemonsets/status"}, h.syncCompanion("ns/ds")); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
	want := []string{
		"RolloutProgressing True PodsFailing", "RolloutPaused False NotPaused", "RolloutBlocked False NotBlocked",
		"Reconciling False PodsFailing", "Stalled False NotBlocked",
	}
	if diff := cmp.Diff(want, h.conditionsOf()); diff != "" {
		t.Errorf("conditions (-want +got):\n%s", diff)
	}
	got := h.refreshDS("ns", "ds")
	if _, ok := got.Annotations[progressive.AnnotationOutcome]; ok {
		t.Errorf("a steady DaemonSet got an outcome: %v", got.Annotations)
	}
	events := h.Events()
	if !hasEvent(events, "Warning PodsFailing the rollout to revision 1 ("+hash+") completed, and pods of it now fail") {
		t.Errorf("events %q, want a PodsFailing Warning naming the revision", events)
	}
	for _, e := range events {
		if strings.Contains(e, "RolloutBlocked") || strings.Contains(e, "RolloutPaused") {
			t.Errorf("a steady DaemonSet recorded %q", e)
		}
	}
	if p := findCondition(got.Status.Conditions, ConditionProgressing); !strings.Contains(p.Message, "pod cur-n1 (node n1") {
		t.Errorf("RolloutProgressing %q does not name the pod", p.Message)
	}
}
