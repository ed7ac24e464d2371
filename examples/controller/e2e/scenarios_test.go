package e2e

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// settleTimeout bounds every wait for a DaemonSet to settle.
const settleTimeout = 45 * time.Second

// TestPlacement: a fresh DaemonSet lands on the eligible nodes only — not on
// the tainted control-plane node nor on the node its nodeSelector excludes,
// but on the cordoned one (DaemonSet pods tolerate unschedulable).
func TestPlacement(t *testing.T) {
	sideBySide(t, "placement", func(e *env) outcome {
		pool := map[string]string{"pool": "a"}
		nodes := []nodeSpec{
			{name: "control-plane", labels: map[string]string{"pool": "a", "node-role.kubernetes.io/control-plane": ""},
				taints: []corev1.Taint{{Key: "node-role.kubernetes.io/control-plane", Effect: corev1.TaintEffectNoSchedule}}},
			{name: "worker-a1", labels: pool},
			{name: "worker-a2", labels: pool},
			{name: "worker-b1", labels: map[string]string{"pool": "b"}},
			{name: "worker-a3-cordoned", labels: pool, unschedulable: true},
		}
		e.addNodes(nodes...)
		e.createDaemonSet(newDaemonSet("agent", nodeSelector(pool), rolling(1, 0)))
		d, st, place := e.converge("agent", []string{"worker-a1", "worker-a2", "worker-a3-cordoned"}, settleTimeout)
		return outcome{placement: place, status: st, converge: d}
	})
}

// TestRollingUpdateMaxUnavailable: a template change replaces every pod
// while, at every watch event, at most maxUnavailable desired nodes lack an
// available pod and no node holds two.
func TestRollingUpdateMaxUnavailable(t *testing.T) {
	sideBySide(t, "rolling-maxUnavailable=2", func(e *env) outcome {
		nodes := workers("node", 6, nil)
		e.addNodes(nodes...)
		e.createDaemonSet(newDaemonSet("agent", rolling(2, 0)))
		e.converge("agent", names(nodes), settleTimeout)
		m := e.startMonitor(budgetCheck("agent", names(nodes), 2, 1))
		e.setImage("agent", "example.invalid/agent:v2")
		d, st, place := e.converge("agent", names(nodes), settleTimeout)
		v, n := m.stopAndReport()
		return outcome{placement: place, status: st, converge: d, violations: v, events: n}
	})
}

// TestRollingUpdateMaxSurge: with maxSurge and maxUnavailable 0 no desired
// node is ever without an available pod and none holds more than two pods.
func TestRollingUpdateMaxSurge(t *testing.T) {
	sideBySide(t, "rolling-maxSurge=2", func(e *env) outcome {
		nodes := workers("node", 6, nil)
		e.addNodes(nodes...)
		e.createDaemonSet(newDaemonSet("agent", rolling(0, 2)))
		e.converge("agent", names(nodes), settleTimeout)
		m := e.startMonitor(budgetCheck("agent", names(nodes), 0, 2))
		e.setImage("agent", "example.invalid/agent:v2")
		d, st, place := e.converge("agent", names(nodes), settleTimeout)
		v, n := m.stopAndReport()
		return outcome{placement: place, status: st, converge: d, violations: v, events: n}
	})
}
