package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kstatus "sigs.k8s.io/cli-utils/pkg/kstatus/status"

	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/examples/controller/deploy"
	"github.com/daemonplan/daemonplan/examples/controller/internal/companion"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// setAnnotations merges ann into the DaemonSet's annotations; an empty
// value removes the key.
func (c *cluster) setAnnotations(name string, ann map[string]string) {
	c.t.Helper()
	m := map[string]any{}
	for k, v := range ann {
		if v == "" {
			m[k] = nil
		} else {
			m[k] = v
		}
	}
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": m}})
	if _, err := c.admin.AppsV1().DaemonSets(testNamespace).Patch(context.Background(), name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		c.t.Fatalf("annotating daemonset %s: %v", name, err)
	}
}

// revisions counts, over the live pods of app, the nodes per revision hash.
func (c *cluster) revisions(app string) map[string][]string {
	out := map[string][]string{}
	for _, p := range c.pods() {
		if p.Labels["app"] == app && p.DeletionTimestamp == nil {
			h := p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]
			out[h] = append(out[h], p.Spec.NodeName)
		}
	}
	return out
}

// conditionIs reports whether the DaemonSet's condition t has the status
// and reason, for the current generation when t is RolloutProgressing.
func (c *cluster) conditionIs(name string, t appsv1.DaemonSetConditionType, status corev1.ConditionStatus, reason string) (bool, string) {
	ds := c.daemonSet(name)
	cond := conditionOf(ds, t)
	if cond == nil {
		return false, fmt.Sprintf("no %s", t)
	}
	if cond.Status != status || cond.Reason != reason {
		return false, fmt.Sprintf("%s = %s %s: %s", t, cond.Status, cond.Reason, cond.Message)
	}
	if t == companion.ConditionProgressing && !strings.HasSuffix(cond.Message, fmt.Sprintf("(generation %d)", ds.Generation)) {
		return false, fmt.Sprintf("%s for another generation: %s", t, cond.Message)
	}
	return true, ""
}

// conditionWant is a condition a DaemonSet's status should have.
type conditionWant struct {
	t      appsv1.DaemonSetConditionType
	status corev1.ConditionStatus
	reason string
}

// blockedAtDeadline are the companion's conditions once, at the progress
// deadline, it has blocked a rollout whose new revision does not become
// available and paused it.
var blockedAtDeadline = []conditionWant{
	{companion.ConditionBlocked, corev1.ConditionTrue, companion.ReasonNewRevisionUnavailable},
	{companion.ConditionPaused, corev1.ConditionTrue, companion.ReasonProgressDeadlineExceeded},
	{companion.ConditionProgressing, corev1.ConditionFalse, companion.ReasonProgressDeadlineExceeded},
}

// conditionsAre is conditionIs for each of want in turn: false, and why,
// at the first that does not hold.
func (c *cluster) conditionsAre(name string, want []conditionWant) (bool, string) {
	for _, w := range want {
		if ok, why := c.conditionIs(name, w.t, w.status, w.reason); !ok {
			return false, why
		}
	}
	return true, ""
}

// deletionWatch counts, from a pod monitor's events, the old pods (of
// oldHash) seen live and since deleted or being deleted.
type deletionWatch struct {
	mu         sync.Mutex
	oldHash    string
	seen, gone map[string]bool
}

func newDeletionWatch(oldHash string) *deletionWatch {
	return &deletionWatch{oldHash: oldHash, seen: map[string]bool{}, gone: map[string]bool{}}
}

func (d *deletionWatch) check(pods map[string]*corev1.Pod) {
	d.mu.Lock()
	defer d.mu.Unlock()
	live := map[string]bool{}
	for _, p := range pods {
		if p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == d.oldHash && p.DeletionTimestamp == nil {
			live[p.Name] = true
			d.seen[p.Name] = true
		}
	}
	for name := range d.seen {
		if !live[name] {
			d.gone[name] = true
		}
	}
}

func (d *deletionWatch) count() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.gone)
}

// startDeletionMonitor starts a monitor of check that also counts, in the
// deletionWatch it returns, the old pods of app (of the DaemonSet's
// current revision, now) deleted.
func (c *cluster) startDeletionMonitor(app string, check func(map[string]*corev1.Pod) string) (*monitor, *deletionWatch) {
	c.t.Helper()
	dw := newDeletionWatch(c.currentHash(c.daemonSet(app)))
	m := c.startMonitor(func(pods map[string]*corev1.Pod) string {
		dw.check(pods)
		return check(pods)
	})
	return m, dw
}

// leader returns the companion replica that leads now; it fails the test
// when none does.
func (e *companionEnv) leader() *replica {
	e.t.Helper()
	var leader *replica
	for _, r := range e.replicas {
		if r.leading.Load() {
			leader = r
		}
	}
	if leader == nil {
		e.t.Fatal("no replica leads")
	}
	return leader
}

// waitStandbyLeads waits until one replica leads and it is not the one
// named old.
func (e *companionEnv) waitStandbyLeads(old string) {
	e.t.Helper()
	e.eventually("the standby leads", time.Minute, func() (bool, string) {
		l := e.leaders()
		return len(l) == 1 && l[0] != old, fmt.Sprintf("leaders %q", l)
	})
}

// TestCompanionCanary: partition 16 of 24 nodes ordered by zone updates
// exactly the 8 nodes of the first zone, reports the rollout complete at
// the partition and deletes nothing more over an observation window;
// lowering the partition to 0 finishes the rollout.
func TestCompanionCanary(t *testing.T) {
	e, nodes := startCompanionScenario(t, []string{"zone-a", "zone-b", "zone-c"}, 8)
	e.createDaemonSet(newDaemonSet("agent", onDelete(), annotate(map[string]string{
		progressive.AnnotationMaxUnavailable: "2",
		progressive.AnnotationOrderBy:        zoneLabel,
		progressive.AnnotationPartition:      "16",
	})))
	e.converge("agent", names(nodes), 2*time.Minute)
	oldHash := e.currentHash(e.daemonSet("agent"))
	m := e.startMonitor(budgetCheck("agent", names(nodes), 2, 1))
	start := time.Now()
	e.setImage("agent", "example.invalid/agent:v2")
	e.eventually("complete at the partition", rolloutTimeout, func() (bool, string) {
		if ok, why := e.conditionIs("agent", companion.ConditionProgressing, corev1.ConditionTrue, companion.ReasonComplete); !ok {
			return false, why
		}
		revs := e.revisions("agent")
		return len(revs[oldHash]) == 16, fmt.Sprintf("revisions %v", revs)
	})
	atPartition := time.Since(start)
	newHash := e.currentHash(e.daemonSet("agent"))
	updated := e.revisions("agent")[newHash]
	for _, n := range updated {
		if !strings.HasPrefix(n, "zone-a-") {
			t.Errorf("node %s updated; the partition keeps every node but zone-a's", n)
		}
	}
	if len(updated) != 8 {
		t.Errorf("%d nodes updated, want 8: %v", len(updated), updated)
	}
	msg := conditionOf(e.daemonSet("agent"), companion.ConditionProgressing).Message
	if !strings.Contains(msg, "the partition keeps 16") {
		t.Errorf("RolloutProgressing message %q does not say the partition holds", msg)
	}
	// The partition holds.
	before := e.revisions("agent")
	time.Sleep(3 * time.Second)
	if after := e.revisions("agent"); len(after[oldHash]) != len(before[oldHash]) {
		t.Errorf("the partition did not hold: %d old nodes, then %d", len(before[oldHash]), len(after[oldHash]))
	}

	e.setAnnotations("agent", map[string]string{progressive.AnnotationPartition: "0"})
	e.waitRolledOut("rollout complete once the partition is 0", "agent", names(nodes), rolloutTimeout)
	_, events := m.stopAndFailOnViolations(t)
	t.Logf("companion-canary: 8 of 24 nodes at the partition in %s (%q), the rest in %s; %d pod events checked",
		atPartition.Round(100*time.Millisecond), msg, (time.Since(start) - atPartition).Round(100*time.Millisecond), events)
}

// TestCompanionPauseResume: pausing mid-rollout (the paused annotation)
// holds — no old pod is deleted over an observation window, and
// RolloutPaused and RolloutProgressing say so — and resuming completes
// the rollout. minReadySeconds slows each node down so that the pause
// lands mid-rollout.
func TestCompanionPauseResume(t *testing.T) {
	e, nodes := startCompanionScenario(t, []string{"zone-a", "zone-b"}, 6)
	e.createDaemonSet(newDaemonSet("agent", onDelete(), func(ds *appsv1.DaemonSet) { ds.Spec.MinReadySeconds = 1 },
		annotate(map[string]string{progressive.AnnotationMaxUnavailable: "1"})))
	e.converge("agent", names(nodes), 2*time.Minute)
	m, dw := e.startDeletionMonitor("agent", budgetCheck("agent", names(nodes), 1, 1))
	e.setImage("agent", "example.invalid/agent:v2")
	e.eventually("three nodes replaced", time.Minute, func() (bool, string) {
		n := dw.count()
		return n >= 3, fmt.Sprintf("%d old pods deleted", n)
	})
	e.setAnnotations("agent", map[string]string{progressive.AnnotationPaused: "true"})
	e.eventually("RolloutPaused", 30*time.Second, func() (bool, string) {
		if ok, why := e.conditionIs("agent", companion.ConditionPaused, corev1.ConditionTrue, companion.ReasonPausedByAnnotation); !ok {
			return false, why
		}
		return e.conditionIs("agent", companion.ConditionProgressing, corev1.ConditionFalse, companion.ReasonPaused)
	})
	pausedAt := dw.count()
	time.Sleep(5 * time.Second)
	if n := dw.count(); n != pausedAt {
		t.Errorf("paused, yet %d more old pods were deleted in 5s", n-pausedAt)
	}
	if pausedAt >= len(nodes) {
		t.Fatalf("the rollout was over (%d deletes) before the pause", pausedAt)
	}
	e.setAnnotations("agent", map[string]string{progressive.AnnotationPaused: "false"})
	e.waitRolledOut("rollout complete after resuming", "agent", names(nodes), rolloutTimeout)
	if ok, why := e.conditionIs("agent", companion.ConditionPaused, corev1.ConditionFalse, companion.ReasonNotPaused); !ok {
		t.Errorf("after resuming: %s", why)
	}
	_, events := m.stopAndFailOnViolations(t)
	t.Logf("companion-pause: paused after %d of %d nodes, nothing deleted for 5s while paused, resumed to completion; %d pod events checked",
		pausedAt, len(nodes), events)
}

// updatePodSpec changes the DaemonSet's pod template with mutate.
func (c *cluster) updatePodSpec(name string, mutate func(*corev1.PodSpec)) {
	c.t.Helper()
	ctx := context.Background()
	for attempt := 0; ; attempt++ {
		ds := c.daemonSet(name)
		mutate(&ds.Spec.Template.Spec)
		_, err := c.admin.AppsV1().DaemonSets(testNamespace).Update(ctx, ds, metav1.UpdateOptions{})
		if err == nil {
			return
		}
		if attempt > 5 {
			c.t.Fatalf("updating daemonset %s: %v", name, err)
		}
	}
}

// argoHealth is the Argo CD health the shipped check gives the live
// DaemonSet.
func (c *cluster) argoHealth(name string) (string, string) {
	c.t.Helper()
	status, msg, err := deploy.ArgoCDHealth(c.daemonSet(name))
	if err != nil {
		c.t.Fatalf("Argo CD health check: %v", err)
	}
	return status, msg
}

// TestCompanionProgressDeadline: a new revision that can never run (it
// asks for more CPU than any node has, so its pods stay Pending) stops the
// rollout at its progress deadline: the strict budget of one is spent on
// the first node and never more, RolloutBlocked names the cause and the
// node, the rollout pauses itself, and the Argo CD check says Degraded. The
// pause survives a failover to the standby replica (its state is in the
// DaemonSet). A new template resumes it and the rollout completes, Healthy.
func TestCompanionProgressDeadline(t *testing.T) {
	e, nodes := startCompanionScenario(t, []string{"zone-a", "zone-b", "zone-c"}, 8)
	e.createDaemonSet(newDaemonSet("agent", onDelete(), annotate(map[string]string{
		progressive.AnnotationMaxUnavailable:   "1",
		progressive.AnnotationStrict:           "true",
		progressive.AnnotationOrderBy:          zoneLabel,
		progressive.AnnotationProgressDeadline: "5s",
	})))
	e.converge("agent", names(nodes), 2*time.Minute)
	m, dw := e.startDeletionMonitor("agent", budgetCheck("agent", names(nodes), 1, 1))

	start := time.Now()
	e.updatePodSpec("agent", func(s *corev1.PodSpec) {
		s.Containers[0].Image = "example.invalid/agent:v2"
		s.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100000")}
	})
	ks := e.recordKstatus("agent")
	e.eventually("blocked and paused at the deadline", time.Minute, func() (bool, string) {
		return e.conditionsAre("agent", blockedAtDeadline)
	})
	// GitOps tools see the blocked rollout as failed (the Stalled
	// condition beside the companion's own).
	e.waitKstatus(ks, kstatus.FailedStatus, 20*time.Second)
	blockedAfter := time.Since(start)
	blocked := conditionOf(e.daemonSet("agent"), companion.ConditionBlocked)
	if !strings.Contains(blocked.Message, "not becoming available on zone-a-000") {
		t.Errorf("RolloutBlocked message %q does not name zone-a-000", blocked.Message)
	}
	if status, msg := e.argoHealth("agent"); status != "Degraded" {
		t.Errorf("Argo CD health while blocked: %s %q, want Degraded", status, msg)
	}
	if n := dw.count(); n != 1 {
		t.Errorf("%d old pods deleted, want 1 (the budget)", n)
	}

	// Fail over: the leader stops (its Lease released), the standby leads.
	leader := e.leader()
	leader.stop()
	e.waitStandbyLeads(leader.name)
	time.Sleep(3 * time.Second)
	if ok, why := e.conditionIs("agent", companion.ConditionPaused, corev1.ConditionTrue, companion.ReasonProgressDeadlineExceeded); !ok {
		t.Errorf("after the failover: %s", why)
	}
	if n := dw.count(); n != 1 {
		t.Errorf("after the failover %d old pods deleted, want still 1", n)
	}

	// A template that can run resumes the rollout.
	e.updatePodSpec("agent", func(s *corev1.PodSpec) {
		s.Containers[0].Image = "example.invalid/agent:v3"
		s.Containers[0].Resources.Requests = nil
	})
	e.waitRolledOut("rollout to v3 complete", "agent", names(nodes), rolloutTimeout)
	e.waitKstatus(ks, kstatus.CurrentStatus, 20*time.Second)
	reportKstatus(t, ks, "progress-deadline", kstatus.InProgressStatus, kstatus.FailedStatus, kstatus.InProgressStatus, kstatus.CurrentStatus)
	for _, c := range []conditionWant{
		{companion.ConditionBlocked, corev1.ConditionFalse, companion.ReasonNotBlocked},
		{companion.ConditionPaused, corev1.ConditionFalse, companion.ReasonNotPaused},
	} {
		if ok, why := e.conditionIs("agent", c.t, c.status, c.reason); !ok {
			t.Errorf("after the new template: %s", why)
		}
	}
	if status, msg := e.argoHealth("agent"); status != "Healthy" {
		t.Errorf("Argo CD health at the end: %s %q, want Healthy", status, msg)
	}
	if ev := e.eventsOf("agent", syncer.ComponentName, "RolloutBlocked"); len(ev) != 1 {
		t.Errorf("RolloutBlocked events %q, want one", ev)
	}
	_, events := m.stopAndFailOnViolations(t)
	t.Logf("companion-progress-deadline: blocked and paused %s after the template change (deadline 5s): %s; held across a failover; resumed by a new template; %d pod events checked",
		blockedAfter.Round(100*time.Millisecond), blocked.Message, events)
}

// TestCompanionNodeJoinAndFailover: mid-rollout a node joins (kube-
// controller-manager gives it the new revision at once; the companion has
// nothing to replace there) and the leading replica crashes without
// releasing its Lease; the standby takes the Lease when it expires and
// finishes the rollout. The budget holds on every pod event throughout,
// and every old pod is deleted exactly once. minReadySeconds slows each
// node down so that both happen mid-rollout.
func TestCompanionNodeJoinAndFailover(t *testing.T) {
	e, nodes := startCompanionScenario(t, []string{"zone-a", "zone-b", "zone-c"}, 8)
	e.createDaemonSet(newDaemonSet("agent", onDelete(), func(ds *appsv1.DaemonSet) { ds.Spec.MinReadySeconds = 1 },
		annotate(map[string]string{progressive.AnnotationMaxUnavailable: "1", progressive.AnnotationOrderBy: zoneLabel})))
	e.converge("agent", names(nodes), 2*time.Minute)
	joined := nodeSpec{name: "zone-c-joined", labels: map[string]string{zoneLabel: "zone-c"}}
	all := append(append([]nodeSpec(nil), nodes...), joined)
	var joinedHashes []string
	var mu sync.Mutex
	m, dw := e.startDeletionMonitor("agent", func(pods map[string]*corev1.Pod) string {
		for _, p := range pods {
			if p.Spec.NodeName == joined.name && p.Labels["app"] == "agent" {
				mu.Lock()
				joinedHashes = append(joinedHashes, p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey])
				mu.Unlock()
			}
		}
		// The joined node is desired once it exists; before, the bound
		// over the others is the same.
		return budgetCheck("agent", names(nodes), 1, 1)(pods)
	})
	start := time.Now()
	e.setImage("agent", "example.invalid/agent:v2")
	e.eventually("four nodes replaced", time.Minute, func() (bool, string) {
		return dw.count() >= 4, fmt.Sprintf("%d old pods deleted", dw.count())
	})
	e.addNodes(joined)
	leader := e.leader()
	crashedAt := dw.count()
	leader.crash()
	crash := time.Now()
	e.waitStandbyLeads(leader.name)
	takeover := time.Since(crash)
	e.waitRolledOut("rollout complete on 25 nodes", "agent", names(all), rolloutTimeout)
	_, events := m.stopAndFailOnViolations(t)
	newHash := e.currentHash(e.daemonSet("agent"))
	mu.Lock()
	for _, h := range joinedHashes {
		if h != newHash {
			t.Errorf("the joined node ran a pod of revision %s, want only %s", h, newHash)
		}
	}
	mu.Unlock()
	if d := e.auditOf(companionUser)["delete pods"]; d != len(nodes) {
		t.Errorf("the companion deleted %d pods, want %d (each old pod once)", d, len(nodes))
	}
	t.Logf("companion-node-join-failover: crashed after %d of %d nodes, the standby led %s later (Lease 15s), 25 nodes rolled out in %s; %d pod events checked",
		crashedAt, len(nodes), takeover.Round(100*time.Millisecond), time.Since(start).Round(100*time.Millisecond), events)
}
