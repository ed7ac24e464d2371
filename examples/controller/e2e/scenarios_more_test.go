package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestNodeChurn: a node joining gets a pod, a node leaving loses its pod
// (the test plays the pod garbage collector for pods bound to a node that
// is gone, as kube-controller-manager's podgc would), and a NoExecute taint
// the pods do not tolerate evicts the pod from its node.
func TestNodeChurn(t *testing.T) {
	sideBySide(t, "node-churn", func(e *env) outcome {
		nodes := workers("node", 4, nil)
		e.addNodes(nodes...)
		e.createDaemonSet(newDaemonSet("agent", rolling(1, 0)))
		e.converge("agent", names(nodes), settleTimeout)
		ctx := context.Background()
		start := time.Now()

		e.addNodes(nodeSpec{name: "node-joined"})
		e.converge("agent", append(names(nodes), "node-joined"), settleTimeout)

		if err := e.admin.CoreV1().Nodes().Delete(ctx, "node-000", metav1.DeleteOptions{}); err != nil {
			e.t.Fatalf("deleting node node-000: %v", err)
		}
		e.collectPodsOf("node-000")
		want := append(names(nodes)[1:], "node-joined")
		e.converge("agent", want, settleTimeout)

		e.taint("node-001", corev1.Taint{Key: "e2e/evict", Value: "true", Effect: corev1.TaintEffectNoExecute})
		want = append(names(nodes)[2:], "node-joined")
		_, st, place := e.converge("agent", want, settleTimeout)
		return outcome{placement: place, status: st, converge: time.Since(start)}
	})
}

// collectPodsOf force-deletes, once the controller has asked for it or at
// once when nothing else will, the pods bound to a node that no longer
// exists: no kubelet will ever finish their graceful deletion.
func (c *cluster) collectPodsOf(node string) {
	c.t.Helper()
	ctx := context.Background()
	zero := int64(0)
	c.eventually("pods of deleted node "+node+" collected", settleTimeout, func() (bool, string) {
		left := 0
		for _, p := range c.pods() {
			if p.Spec.NodeName != node {
				continue
			}
			left++
			err := c.admin.CoreV1().Pods(testNamespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
			if err != nil {
				return false, fmt.Sprintf("deleting pod %s: %v", p.Name, err)
			}
		}
		return left == 0, fmt.Sprintf("%d pods left on %s", left, node)
	})
}

func (c *cluster) taint(node string, taint corev1.Taint) {
	c.t.Helper()
	ctx := context.Background()
	for attempt := 0; ; attempt++ {
		n, err := c.admin.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			c.t.Fatalf("node %s: %v", node, err)
		}
		n.Spec.Taints = append(n.Spec.Taints, taint)
		if _, err = c.admin.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{}); err == nil {
			return
		}
		if attempt > 5 {
			c.t.Fatalf("tainting node %s: %v", node, err)
		}
	}
}

// TestOnDelete: under OnDelete a template change replaces nothing until a
// pod is deleted; the replacement is of the new revision.
func TestOnDelete(t *testing.T) {
	sideBySide(t, "on-delete", func(e *env) outcome {
		nodes := workers("node", 4, nil)
		e.addNodes(nodes...)
		e.createDaemonSet(newDaemonSet("agent", onDelete()))
		_, _, before := e.converge("agent", names(nodes), settleTimeout)
		m := e.startMonitor(budgetCheck("agent", names(nodes), 1, 1))
		e.setImage("agent", "example.invalid/agent:v2")
		start := time.Now()
		_, _, after := e.converge("agent", names(nodes), settleTimeout)
		if before["node-002"] != after["node-002"] {
			e.t.Errorf("OnDelete replaced pods on its own: before %v, after %v", before, after)
		}
		ctx := context.Background()
		for _, p := range e.pods() {
			if p.Spec.NodeName == "node-002" {
				if err := e.admin.CoreV1().Pods(testNamespace).Delete(ctx, p.Name, metav1.DeleteOptions{}); err != nil {
					e.t.Fatalf("deleting pod %s: %v", p.Name, err)
				}
			}
		}
		var place placement
		var st appsv1.DaemonSetStatus
		e.eventually("node-002 runs the new revision", settleTimeout, func() (bool, string) {
			ok, why, ds, p := e.settled("agent", names(nodes))
			if !ok {
				return false, why
			}
			if p["node-002"] == before["node-002"] || ds.Status.UpdatedNumberScheduled != 1 {
				return false, fmt.Sprintf("placement %v, %d updated", p, ds.Status.UpdatedNumberScheduled)
			}
			place, st = p, ds.Status
			return true, ""
		})
		st.Conditions = nil
		v, n := m.stopAndReport()
		return outcome{placement: place, status: st, converge: time.Since(start), violations: v, events: n}
	})
}

// TestAdoptOrphan: a running pod that matches the selector and has no owner
// is adopted, not replaced (OnDelete keeps it), and no second pod is made
// for its node.
func TestAdoptOrphan(t *testing.T) {
	sideBySide(t, "adopt-orphan", func(e *env) outcome {
		nodes := workers("node", 3, nil)
		e.addNodes(nodes...)
		ds := newDaemonSet("agent", onDelete())
		orphan := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "orphan", Namespace: testNamespace, Labels: map[string]string{"app": "agent"}},
			Spec:       *ds.Spec.Template.Spec.DeepCopy(),
		}
		orphan.Spec.NodeName = "node-001"
		ctx := context.Background()
		created, err := e.admin.CoreV1().Pods(testNamespace).Create(ctx, orphan, metav1.CreateOptions{})
		if err != nil {
			e.t.Fatalf("creating orphan pod: %v", err)
		}
		e.eventually("orphan Ready", settleTimeout, func() (bool, string) {
			p, err := e.admin.CoreV1().Pods(testNamespace).Get(ctx, "orphan", metav1.GetOptions{})
			if err != nil {
				return false, err.Error()
			}
			return podReady(p), "orphan not Ready yet"
		})
		m := e.startMonitor(budgetCheck("agent", nil, 0, 1))
		e.createDaemonSet(ds)
		d, st, place := e.converge("agent", names(nodes), settleTimeout)
		p, err := e.admin.CoreV1().Pods(testNamespace).Get(ctx, "orphan", metav1.GetOptions{})
		if err != nil {
			e.t.Fatalf("orphan pod: %v", err)
		}
		if p.UID != created.UID {
			e.t.Errorf("orphan pod was replaced (uid %s, was %s)", p.UID, created.UID)
		}
		if ref := metav1.GetControllerOf(p); ref == nil || ref.Kind != "DaemonSet" || ref.Name != "agent" {
			e.t.Errorf("orphan pod not adopted: controller %+v", ref)
		}
		v, n := m.stopAndReport()
		return outcome{placement: place, status: st, converge: d, violations: v, events: n}
	})
}

// TestFailedPodReplaced: a pod that fails is deleted and replaced on its
// node.
func TestFailedPodReplaced(t *testing.T) {
	sideBySide(t, "failed-pod", func(e *env) outcome {
		nodes := workers("node", 3, nil)
		e.addNodes(nodes...)
		e.createDaemonSet(newDaemonSet("agent", rolling(1, 0)))
		e.converge("agent", names(nodes), settleTimeout)
		ctx := context.Background()
		var failedUID types.UID
		for _, p := range e.pods() {
			if p.Spec.NodeName != "node-001" {
				continue
			}
			p.Status.Phase = corev1.PodFailed
			for i := range p.Status.Conditions {
				if p.Status.Conditions[i].Type == corev1.PodReady || p.Status.Conditions[i].Type == corev1.ContainersReady {
					p.Status.Conditions[i].Status = corev1.ConditionFalse
				}
			}
			if _, err := e.admin.CoreV1().Pods(testNamespace).UpdateStatus(ctx, &p, metav1.UpdateOptions{}); err != nil {
				e.t.Fatalf("failing pod %s: %v", p.Name, err)
			}
			failedUID = p.UID
		}
		start := time.Now()
		var place placement
		var st appsv1.DaemonSetStatus
		e.eventually("failed pod replaced", settleTimeout, func() (bool, string) {
			ok, why, ds, p := e.settled("agent", names(nodes))
			if !ok {
				return false, why
			}
			for _, pod := range e.pods() {
				if pod.UID == failedUID {
					return false, "failed pod still there"
				}
			}
			place, st = p, ds.Status
			return true, ""
		})
		st.Conditions = nil
		return outcome{placement: place, status: st, converge: time.Since(start)}
	})
}

// TestTemplateChangeMidRollout: a second template change while the first
// rollout is under way ends with every pod on the newest revision, within
// the budget throughout.
func TestTemplateChangeMidRollout(t *testing.T) {
	sideBySide(t, "template-change-mid-rollout", func(e *env) outcome {
		nodes := workers("node", 6, nil)
		e.addNodes(nodes...)
		e.createDaemonSet(newDaemonSet("agent", rolling(1, 0)))
		_, _, v1 := e.converge("agent", names(nodes), settleTimeout)
		m := e.startMonitor(budgetCheck("agent", names(nodes), 1, 1))
		start := time.Now()
		e.setImage("agent", "example.invalid/agent:v2")
		e.waitRollingStarted("agent", v1)
		e.setImage("agent", "example.invalid/agent:v3")
		_, st, place := e.converge("agent", names(nodes), settleTimeout)
		v, n := m.stopAndReport()
		return outcome{placement: place, status: st, converge: time.Since(start), violations: v, events: n}
	})
}

// waitRollingStarted waits until at least one pod of a revision other than
// the old placement's runs.
func (c *cluster) waitRollingStarted(app string, old placement) {
	c.t.Helper()
	oldHash := map[string]bool{}
	for _, h := range old {
		oldHash[h] = true
	}
	c.eventually("rollout under way", settleTimeout, func() (bool, string) {
		for _, p := range c.pods() {
			if p.Labels["app"] == app && p.DeletionTimestamp == nil && !oldHash[p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]] {
				return true, ""
			}
		}
		return false, "no pod of the new revision yet"
	})
}

// TestRestartMidRollout: the controller is stopped in the middle of a
// rollout and a new instance started; nothing is duplicated and the
// rollout completes.
func TestRestartMidRollout(t *testing.T) {
	sideBySide(t, "restart-mid-rollout", func(e *env) outcome {
		nodes := workers("node", 6, nil)
		e.addNodes(nodes...)
		e.createDaemonSet(newDaemonSet("agent", rolling(1, 0)))
		_, _, v1 := e.converge("agent", names(nodes), settleTimeout)
		m := e.startMonitor(budgetCheck("agent", names(nodes), 1, 1))
		start := time.Now()
		e.setImage("agent", "example.invalid/agent:v2")
		e.waitRollingStarted("agent", v1)
		e.restartController()
		_, st, place := e.converge("agent", names(nodes), settleTimeout)
		v, n := m.stopAndReport()
		return outcome{placement: place, status: st, converge: time.Since(start), violations: v, events: n}
	})
}

// TestThousandNodes: a DaemonSet converges on 1,000 kwok nodes and skips
// the 10 its nodeSelector excludes; at every pod watch event no node has
// two of its pods, no pod is for an excluded node, and no more pods have
// been created than there are desired nodes.
func TestThousandNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("e2e: 1,000 nodes is not a -short scenario")
	}
	sideBySide(t, "1000-nodes", func(e *env) outcome {
		pool := map[string]string{"pool": "a"}
		nodes := workers("node", 1000, pool)
		e.addNodes(append(workers("excluded", 10, map[string]string{"pool": "b"}), nodes...)...)
		m := e.startMonitor(placementCheck("agent", names(nodes)))
		start := time.Now()
		e.createDaemonSet(newDaemonSet("agent", nodeSelector(pool), rolling(1, 0)))
		_, st, place := e.converge("agent", names(nodes), 3*time.Minute)
		v, n := m.stopAndReport()
		return outcome{placement: place, status: st, converge: time.Since(start), violations: v, events: n}
	})
}
