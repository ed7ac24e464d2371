package e2e

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// scaleMonitor checks the safety bounds of TestScale after every pod watch
// event, as monitor does, in time independent of the number of pods: it
// keeps per-node counts and updates them by the pod that changed, where
// placementCheck and budgetCheck walk every pod on every event (at 5,000
// nodes, 10⁸ steps for one rollout).
type scaleMonitor struct {
	app     string
	desired map[string]bool
	// budget is the most desired nodes without an available pod; negative
	// for a fresh placement, checked as placementCheck does instead.
	budget int

	mu          sync.Mutex
	pods        map[types.UID]podFacts
	seen        int            // distinct pods of app seen (placement)
	perNode     map[string]int // pods of app, terminating included
	available   map[string]int // available pods of app
	unavailable int            // desired nodes without an available pod
	violations  []string
	events      int

	stop context.CancelFunc
	done chan struct{}
}

// podFacts is what the checks need of one pod.
type podFacts struct {
	node      string
	available bool
}

// startScaleMonitor lists the pods of the test namespace and follows their
// changes until stopAndReport or the end of the test. With budget < 0 it
// checks a fresh placement: no node with two pods of app, no pod for a
// node outside desired or for none, no more pods seen than desired nodes.
// Otherwise it checks a rollout without surge: at most budget desired
// nodes without an available pod, no node with two pods.
func (c *cluster) startScaleMonitor(app string, desired []string, budget int) *scaleMonitor {
	c.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	m := &scaleMonitor{
		app: app, desired: make(map[string]bool, len(desired)), budget: budget,
		pods: map[types.UID]podFacts{}, perNode: map[string]int{}, available: map[string]int{},
		unavailable: len(desired), stop: cancel, done: make(chan struct{}),
	}
	for _, n := range desired {
		m.desired[n] = true
	}
	cs := c.fastClient()
	list, err := cs.CoreV1().Pods(testNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		c.t.Fatalf("scale monitor: listing pods: %v", err)
	}
	for i := range list.Items {
		m.observe(watch.Added, &list.Items[i])
	}
	// The list is checked as a whole: on the way through it, the counts
	// pass through states no cluster was in.
	m.violations = nil
	if v := m.stateViolation(); v != "" {
		m.violations = append(m.violations, "initial list: "+v)
	}
	rv := list.ResourceVersion
	go func() {
		defer close(m.done)
		for ctx.Err() == nil {
			w, err := cs.CoreV1().Pods(testNamespace).Watch(ctx, metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true})
			if err != nil {
				if ctx.Err() == nil {
					m.record(fmt.Sprintf("scale monitor: watch failed: %v", err))
				}
				return
			}
			for ev := range w.ResultChan() {
				p, ok := ev.Object.(*corev1.Pod)
				if !ok {
					continue
				}
				rv = p.ResourceVersion
				if ev.Type != watch.Bookmark {
					m.observe(ev.Type, p)
				}
			}
			w.Stop()
		}
	}()
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
			m.violations = append(m.violations, fmt.Sprintf("%s: %d desired nodes without an available pod, budget %d", what, m.unavailable, m.budget))
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
		m.violations = append(m.violations, fmt.Sprintf("%s: %d desired nodes without an available pod, budget %d", what, m.unavailable, m.budget))
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
	if m.budget >= 0 && m.unavailable > m.budget {
		return fmt.Sprintf("%d desired nodes without an available pod, budget %d", m.unavailable, m.budget)
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

func (m *scaleMonitor) record(v string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.violations = append(m.violations, v)
}

func (m *scaleMonitor) halt() {
	m.stop()
	select {
	case <-m.done:
	case <-time.After(5 * time.Second):
	}
}

// stopAndReport ends the watch and returns the violations seen (the first
// few) and how many events were checked.
func (m *scaleMonitor) stopAndReport() ([]string, int) {
	m.halt()
	m.mu.Lock()
	defer m.mu.Unlock()
	v := m.violations
	if len(v) > 5 {
		v = append(v[:5:5], fmt.Sprintf("… and %d more", len(m.violations)-5))
	}
	return v, m.events
}
