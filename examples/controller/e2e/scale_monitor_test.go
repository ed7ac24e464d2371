package e2e

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// scaleMonitor checks the safety bounds of TestScale after every pod watch
// event, as monitor does, in time independent of the number of pods: it
// keeps per-node counts and updates them by the pod that changed, where
// placementCheck and budgetCheck walk every pod on every event (at 5,000
// nodes, 10⁸ steps for one rollout).
type scaleMonitor struct {
	monitorCore
	app     string
	desired map[string]bool
	// budget is the most desired nodes without an available pod; negative
	// for a fresh placement, checked as placementCheck does instead.
	budget int

	// The counts, guarded by mu.
	pods        map[types.UID]podFacts
	seen        int            // distinct pods of app seen (placement)
	perNode     map[string]int // pods of app, terminating included
	available   map[string]int // available pods of app
	unavailable int            // desired nodes without an available pod
}

// podFacts is what the checks need of one pod.
type podFacts struct {
	node      string
	available bool
}

// newScaleMonitor returns a scale monitor of app's pods on the desired
// nodes with no pod yet (see startScaleMonitor for budget).
func newScaleMonitor(app string, desired []string, budget int) *scaleMonitor {
	return &scaleMonitor{
		app: app, desired: nodeSet(desired), budget: budget,
		pods: map[types.UID]podFacts{}, perNode: map[string]int{}, available: map[string]int{},
		unavailable: len(desired),
	}
}

// startScaleMonitor lists the pods of the test namespace and follows their
// changes until stopAndReport or the end of the test. With budget < 0 it
// checks a fresh placement: no node with two pods of app, no pod for a
// node outside desired or for none, no more pods seen than desired nodes.
// Otherwise it checks a rollout without surge: at most budget desired
// nodes without an available pod, no node with two pods.
func (c *cluster) startScaleMonitor(app string, desired []string, budget int) *scaleMonitor {
	c.t.Helper()
	m := newScaleMonitor(app, desired, budget)
	c.watchPods(m.start(), &m.monitorCore, c.fastClient(), "scale monitor", func(pods []corev1.Pod) {
		for i := range pods {
			m.observe(watch.Added, &pods[i])
		}
		// The list is checked as a whole: on the way through it, the
		// counts pass through states no cluster was in.
		m.violations = nil
		if v := m.stateViolation(); v != "" {
			m.violations = append(m.violations, "initial list: "+v)
		}
	}, m.observe)
	c.t.Cleanup(m.halt)
	return m
}

// observe applies one event and checks the bounds it can break.
func (m *scaleMonitor) observe(typ watch.EventType, p *corev1.Pod) {
	if p.Labels["app"] != m.app {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.events++
	if old, ok := m.pods[p.UID]; ok {
		m.remove(old)
		delete(m.pods, p.UID)
	} else if typ != watch.Deleted {
		m.seen++
	}
	what := fmt.Sprintf("%s %s", typ, p.Name)
	if typ == watch.Deleted {
		if m.budget >= 0 && m.unavailable > m.budget {
			m.violations = append(m.violations, what+": "+overBudget(m.unavailable, m.budget))
		}
		return
	}
	f := podFacts{node: targetNode(p), available: available(p)}
	m.pods[p.UID] = f
	m.add(f)
	switch {
	case m.perNode[f.node] > 1 && f.node != "":
		m.violations = append(m.violations, fmt.Sprintf("%s: node %s has %d pods", what, f.node, m.perNode[f.node]))
	case m.budget < 0 && f.node == "":
		m.violations = append(m.violations, fmt.Sprintf("%s: pod is for no node", what))
	case m.budget < 0 && !m.desired[f.node]:
		m.violations = append(m.violations, fmt.Sprintf("%s: pod is for node %s, which should run none", what, f.node))
	case m.budget < 0 && m.seen > len(m.desired):
		m.violations = append(m.violations, fmt.Sprintf("%s: %d pods created for %d desired nodes", what, m.seen, len(m.desired)))
	case m.budget >= 0 && m.unavailable > m.budget:
		m.violations = append(m.violations, what+": "+overBudget(m.unavailable, m.budget))
	}
}

// stateViolation checks the whole state: the counts a single event cannot
// show at once.
func (m *scaleMonitor) stateViolation() string {
	for n, k := range m.perNode {
		if n != "" && k > 1 {
			return fmt.Sprintf("node %s has %d pods", n, k)
		}
	}
	for _, f := range m.pods {
		switch {
		case m.budget < 0 && f.node == "":
			return "a pod is for no node"
		case m.budget < 0 && !m.desired[f.node]:
			return fmt.Sprintf("a pod is for node %s, which should run none", f.node)
		}
	}
	if m.budget >= 0 {
		return overBudget(m.unavailable, m.budget)
	}
	return ""
}

func (m *scaleMonitor) add(f podFacts) {
	m.perNode[f.node]++
	if f.available {
		if m.available[f.node] == 0 && m.desired[f.node] {
			m.unavailable--
		}
		m.available[f.node]++
	}
}

func (m *scaleMonitor) remove(f podFacts) {
	m.perNode[f.node]--
	if f.available {
		m.available[f.node]--
		if m.available[f.node] == 0 && m.desired[f.node] {
			m.unavailable++
		}
	}
}
