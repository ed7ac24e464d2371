package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/examples/controller/internal/companion"
)

// squat runs a pod that is not the DaemonSet's on node, holding hostPort,
// and waits until it is Running: a new revision asking for that port can
// never start there.
func (c *cluster) squat(node string, hostPort int32) {
	c.t.Helper()
	ctx := context.Background()
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "squatter-" + node, Namespace: testNamespace, Labels: map[string]string{"app": "squatter"}},
		Spec: corev1.PodSpec{
			NodeName: node,
			Containers: []corev1.Container{{Name: "squatter", Image: "example.invalid/squatter:v1",
				Ports: []corev1.ContainerPort{{ContainerPort: hostPort, HostPort: hostPort}}}},
		},
	}
	if _, err := c.admin.CoreV1().Pods(testNamespace).Create(ctx, p, metav1.CreateOptions{}); err != nil {
		c.t.Fatalf("squatter on %s: %v", node, err)
	}
	c.eventually("squatter running on "+node, time.Minute, func() (bool, string) {
		got, err := c.admin.CoreV1().Pods(testNamespace).Get(ctx, p.Name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return podReady(got), fmt.Sprintf("phase %s", got.Status.Phase)
	})
}

// readyPodsOf counts app's pods of the revision hash that are Ready (and
// not being deleted).
func (c *cluster) readyPodsOf(app, hash string) int {
	n := 0
	for _, p := range c.pods() {
		if p.Labels["app"] == app && p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == hash && podReady(&p) {
			n++
		}
	}
	return n
}

// TestCompanionStrictNotReady: a strict budget of 2 beside kube-
// controller-manager, on 24 nodes in three zones ordered by zone. Before
// the template change a node's kubelet stops (zone-c-007: Ready False, its
// pod not ready, nothing new starts there), which takes one unit of the
// strict budget; the new revision asks for a host port that a squatter
// holds on zone-a-003, so its pod there never starts. The rollout goes
// one node at a time until zone-a-003, then deletes nothing more: never
// more than 2 desired nodes without an available pod, on every pod event.
// At the progress deadline (30s) it reports RolloutBlocked with the cause
// of the rollout's own making, the new revision not becoming available on
// zone-a-003, and names the NotReady node apart; it pauses itself, and
// dsplan rollout status exits 3 saying so. Once the kubelet is back and the
// squatter gone, resuming (paused "false") completes the rollout and
// dsplan rollout status exits 0. Then the kubelet stops again and a third
// revision rolls out: every other node is updated, and at the deadline
// RolloutBlocked blames the NotReady node (NodesNotReady), not the
// revision.
func TestCompanionStrictNotReady(t *testing.T) {
	e, nodes := startCompanionScenario(t, []string{"zone-a", "zone-b", "zone-c"}, 8)
	const deadline = 30 * time.Second
	e.createDaemonSet(newDaemonSet("agent", onDelete(), annotate(map[string]string{
		progressive.AnnotationMaxUnavailable:   "2",
		progressive.AnnotationStrict:           "true",
		progressive.AnnotationOrderBy:          zoneLabel,
		progressive.AnnotationProgressDeadline: deadline.String(),
	})))
	e.converge("agent", names(nodes), 3*time.Minute)
	e.waitRolledOut("companion reports generation 1 complete", "agent", names(nodes), 2*time.Minute)

	const down, stuck = "zone-c-007", "zone-a-003"
	e.stopKubelet(down)
	e.squat(stuck, 8080)
	e.eventually("kube-controller-manager counts "+down+" unavailable", time.Minute, func() (bool, string) {
		st := e.daemonSet("agent").Status
		return st.NumberUnavailable == 1 && !e.nodeIsReady(down), fmt.Sprintf("numberUnavailable %d, %s Ready %v", st.NumberUnavailable, down, e.nodeIsReady(down))
	})

	m, dw := e.startDeletionMonitor("agent", budgetCheck("agent", names(nodes), 2, 1))
	start := time.Now()
	e.updatePodSpec("agent", func(s *corev1.PodSpec) {
		s.Containers[0].Image = "example.invalid/agent:v2"
		s.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 8080, HostPort: 8080}}
	})
	status := e.rolloutStatus("agent", "--timeout", "10m")
	e.eventually("blocked and paused at the progress deadline", 6*time.Minute, func() (bool, string) {
		return e.conditionsAre("agent", blockedAtDeadline)
	})
	blockedAfter := time.Since(start)
	blocked := conditionOf(e.daemonSet("agent"), companion.ConditionBlocked)
	for _, want := range []string{"not becoming available on " + stuck, "nodes NotReady: " + down} {
		if !strings.Contains(blocked.Message, want) {
			t.Errorf("RolloutBlocked message %q does not say %q", blocked.Message, want)
		}
	}
	deleted := dw.count()
	// The pause holds: nothing more is deleted.
	time.Sleep(5 * time.Second)
	if n := dw.count(); n != deleted {
		t.Errorf("blocked and paused, yet %d more old pods were deleted in 5s", n-deleted)
	}
	newHash := e.currentHash(e.daemonSet("agent"))
	revs := e.revisions("agent")
	updatedAvail := e.readyPodsOf("agent", newHash)
	// Each old pod deleted is on a node now updated and available, but
	// zone-a-003 (never starts) and, when the strict budget replaced it
	// first, zone-c-007 (nothing new starts there).
	if deleted > updatedAvail+2 || deleted < updatedAvail+1 {
		t.Errorf("%d old pods deleted, %d nodes updated and available: want one or two more deletes (%s, and %s when replaced first)", deleted, updatedAvail, stuck, down)
	}
	if status.waitOrFail(t, 2*time.Minute, "the block") {
		if status.code != 3 || !strings.Contains(status.stderr, "RolloutBlocked ("+companion.ReasonNewRevisionUnavailable+")") {
			t.Errorf("dsplan rollout status: exit %d, want 3 (blocked)\n%s%s", status.code, status.stdout, status.stderr)
		}
		t.Logf("companion-strict-notready: dsplan rollout status exited %d after %s: %s", status.code, status.took.Round(100*time.Millisecond), strings.TrimSpace(status.stderr))
	}
	t.Logf("companion-strict-notready: blocked and paused %s after the template change (deadline %s): %s; %d old pods deleted, %d nodes updated and available, revisions %v",
		blockedAfter.Round(100*time.Millisecond), deadline, blocked.Message, deleted, updatedAvail, revs)

	// The kubelet is back, the squatter gone; resuming completes it.
	if err := e.admin.CoreV1().Pods(testNamespace).Delete(context.Background(), "squatter-"+stuck, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("deleting the squatter: %v", err)
	}
	e.startKubelet(down)
	resumed := time.Now()
	e.setAnnotations("agent", map[string]string{progressive.AnnotationPaused: "false"})
	// rollout status exits 3 while RolloutBlocked stays True: start it once
	// the companion has seen the resume.
	e.eventually("resumed", 2*time.Minute, func() (bool, string) {
		return e.conditionIs("agent", companion.ConditionBlocked, corev1.ConditionFalse, companion.ReasonNotBlocked)
	})
	final := e.rolloutStatus("agent", "--timeout", "10m")
	e.waitRolledOut("rollout complete after resuming", "agent", names(nodes), 8*time.Minute)
	if ok, why := e.conditionIs("agent", companion.ConditionBlocked, corev1.ConditionFalse, companion.ReasonNotBlocked); !ok {
		t.Errorf("after resuming: %s", why)
	}
	if final.waitOrFail(t, 2*time.Minute, "the rollout's end") && final.code != 0 {
		t.Errorf("dsplan rollout status after resuming: exit %d, want 0\n%s%s", final.code, final.stdout, final.stderr)
	}
	t.Logf("companion-strict-notready: resumed, complete %s later", time.Since(resumed).Round(100*time.Millisecond))

	// The NotReady node alone: the next rollout updates every other node,
	// then stops at its deadline blaming the node, not the revision.
	e.stopKubelet(down)
	e.eventually("kube-controller-manager counts "+down+" unavailable again", time.Minute, func() (bool, string) {
		st := e.daemonSet("agent").Status
		return st.NumberUnavailable == 1, fmt.Sprintf("numberUnavailable %d", st.NumberUnavailable)
	})
	third := time.Now()
	e.setImage("agent", "example.invalid/agent:v3")
	status = e.rolloutStatus("agent", "--timeout", "10m")
	e.eventually("blocked by the NotReady node", 6*time.Minute, func() (bool, string) {
		return e.conditionIs("agent", companion.ConditionBlocked, corev1.ConditionTrue, companion.ReasonNodesNotReady)
	})
	blockedAfter = time.Since(third)
	blocked = conditionOf(e.daemonSet("agent"), companion.ConditionBlocked)
	if !strings.Contains(blocked.Message, "nodes NotReady: "+down) || strings.Contains(blocked.Message, "new revision") {
		t.Errorf("RolloutBlocked message %q: want the NotReady node %s alone", blocked.Message, down)
	}
	updatedAvail = e.readyPodsOf("agent", e.currentHash(e.daemonSet("agent")))
	if updatedAvail != len(nodes)-1 {
		t.Errorf("%d nodes updated and available, want %d (all but %s)", updatedAvail, len(nodes)-1, down)
	}
	if status.waitOrFail(t, 2*time.Minute, "the block") && (status.code != 3 || !strings.Contains(status.stderr, "RolloutBlocked ("+companion.ReasonNodesNotReady+")")) {
		t.Errorf("dsplan rollout status: exit %d, want 3 (blocked by the NotReady node)\n%s%s", status.code, status.stdout, status.stderr)
	}
	_, events := m.stopAndFailOnViolations(t)
	t.Logf("companion-strict-notready: the NotReady node alone: %d/%d nodes updated, then blocked and paused %s after the template change: %s (%s); dsplan rollout status exited %d",
		updatedAvail, len(nodes), blockedAfter.Round(100*time.Millisecond), blocked.Message, blocked.Reason, status.code)
	t.Logf("companion-strict-notready: %d pod events checked over the three rollouts (at most 2 desired nodes unavailable on each)", events)
}
