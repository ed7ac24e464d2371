package e2e

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// monitorCore is what every pod monitor of this package keeps: the
// violations its check found and how many events it checked, and the
// means to stop the goroutines that feed it. mu guards these and the
// embedding monitor's own state.
type monitorCore struct {
	mu         sync.Mutex
	violations []string
	events     int
	stop       context.CancelFunc
	done       chan struct{}
}

// start returns the context the monitor's goroutines run under; halt ends
// it. The goroutines close done when they have all returned.
func (m *monitorCore) start() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	m.stop, m.done = cancel, make(chan struct{})
	return ctx
}

// record adds a violation.
func (m *monitorCore) record(v string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.violations = append(m.violations, v)
}

// halt ends the monitor's goroutines and waits for them, at most 5s.
func (m *monitorCore) halt() {
	m.stop()
	select {
	case <-m.done:
	case <-time.After(5 * time.Second):
	}
}

// stopAndReport ends the watch and returns the violations seen (the first
// few) and how many events were checked.
func (m *monitorCore) stopAndReport() ([]string, int) {
	m.halt()
	m.mu.Lock()
	defer m.mu.Unlock()
	v := m.violations
	if len(v) > 5 {
		v = append(v[:5:5], fmt.Sprintf("… and %d more", len(m.violations)-5))
	}
	return v, m.events
}

// stopAndFailOnViolations is stopAndReport that also fails t for each
// violation it returns.
func (m *monitorCore) stopAndFailOnViolations(t *testing.T) ([]string, int) {
	t.Helper()
	violations, events := m.stopAndReport()
	for _, v := range violations {
		t.Errorf("safety bound broken: %s", v)
	}
	return violations, events
}

// watchPods lists the test namespace's pods with cs and hands the list to
// onList; then, in a goroutine until ctx ends, it follows every change
// from there and hands each pod added, modified or deleted to onEvent
// (bookmarks only move the resourceVersion the next watch resumes from),
// watching again when a watch ends. A watch that cannot be started is
// recorded in m as a violation, and who names the monitor in it; the
// goroutine closes m.done when it returns.
func (c *cluster) watchPods(ctx context.Context, m *monitorCore, cs kubernetes.Interface, who string, onList func([]corev1.Pod), onEvent func(watch.EventType, *corev1.Pod)) {
	c.t.Helper()
	list, err := cs.CoreV1().Pods(testNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		c.t.Fatalf("%s: listing pods: %v", who, err)
	}
	onList(list.Items)
	rv := list.ResourceVersion
	go func() {
		defer close(m.done)
		for ctx.Err() == nil {
			w, err := cs.CoreV1().Pods(testNamespace).Watch(ctx, metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true})
			if err != nil {
				if ctx.Err() == nil {
					m.record(fmt.Sprintf("%s: watch failed: %v", who, err))
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
					onEvent(ev.Type, p)
				}
			}
			w.Stop()
		}
	}()
}

// monitor watches the test namespace's pods without pause and checks an
// invariant after every event, so a bound broken for a moment between two
// polls is still seen.
type monitor struct {
	monitorCore
	pods  map[string]*corev1.Pod
	check func(map[string]*corev1.Pod) string
}

// newMonitor returns a monitor of check with no pod yet.
func newMonitor(check func(map[string]*corev1.Pod) string) *monitor {
	return &monitor{pods: map[string]*corev1.Pod{}, check: check}
}

// startMonitor lists the pods, then follows every change until the test ends
// or stopAndReport is called.
func (c *cluster) startMonitor(check func(map[string]*corev1.Pod) string) *monitor {
	c.t.Helper()
	m := newMonitor(check)
	c.watchPods(m.start(), &m.monitorCore, c.admin, "monitor", func(pods []corev1.Pod) {
		for i := range pods {
			p := pods[i]
			m.pods[p.Name] = &p
		}
		m.evaluate("initial list")
	}, m.apply)
	c.t.Cleanup(m.halt)
	return m
}

// apply records a pod's new state, or its deletion, and checks the pods.
func (m *monitor) apply(typ watch.EventType, p *corev1.Pod) {
	m.mu.Lock()
	if typ == watch.Deleted {
		delete(m.pods, p.Name)
	} else {
		m.pods[p.Name] = p
	}
	m.mu.Unlock()
	m.evaluate(fmt.Sprintf("%s %s", typ, p.Name))
}

func (m *monitor) evaluate(after string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.events++
	if v := m.check(m.pods); v != "" {
		m.violations = append(m.violations, after+": "+v)
	}
}

// available reports whether a pod counts as available: Ready and not being
// deleted (the scenarios use minReadySeconds 0).
func available(p *corev1.Pod) bool { return podReady(p) }

// budgetCheck fails when more of the desired nodes than maxUnavailable have
// no available pod of app, or when a node holds more than maxPerNode pods of
// app (terminating ones included).
func budgetCheck(app string, desired []string, maxUnavailable, maxPerNode int) func(map[string]*corev1.Pod) string {
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
		}
		if v := unavailableViolation(desired, avail, maxUnavailable); v != "" {
			return v
		}
		for n, k := range count {
			if n != "" && k > maxPerNode {
				return fmt.Sprintf("node %s has %d pods, at most %d allowed", n, k, maxPerNode)
			}
		}
		return ""
	}
}

// unavailableViolation counts the desired nodes without an available pod
// (avail names those with one) and, when they are more than
// maxUnavailable, says so; "" otherwise.
func unavailableViolation(desired []string, avail map[string]bool, maxUnavailable int) string {
	unavailable := 0
	for _, n := range desired {
		if !avail[n] {
			unavailable++
		}
	}
	return overBudget(unavailable, maxUnavailable)
}

// overBudget says that unavailable desired nodes without an available pod
// are more than the budget allows; "" when they are not.
func overBudget(unavailable, budget int) string {
	if unavailable > budget {
		return fmt.Sprintf("%d desired nodes without an available pod, budget %d", unavailable, budget)
	}
	return ""
}

// nodeSet returns the set of the node names.
func nodeSet(names []string) map[string]bool {
	set := make(map[string]bool, len(names))
	for _, n := range names {
		set[n] = true
	}
	return set
}

// placedNode returns the node p is for (targetNode) and, when that is no
// node or a node outside desired, the violation.
func placedNode(p *corev1.Pod, desired map[string]bool) (node, violation string) {
	node = targetNode(p)
	switch {
	case node == "":
		return node, fmt.Sprintf("pod %s is for no node", p.Name)
	case !desired[node]:
		return node, fmt.Sprintf("pod %s is for node %s, which should run none", p.Name, node)
	}
	return node, ""
}

// targetNode is the node a DaemonSet pod is for: the node it is bound to,
// or, before the scheduler binds it, the node its required node affinity
// names by metadata.name (how a DaemonSet controller pins a pod to its
// node). "" when neither says.
func targetNode(p *corev1.Pod) string {
	if p.Spec.NodeName != "" {
		return p.Spec.NodeName
	}
	a := p.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, f := range term.MatchFields {
			if f.Key == "metadata.name" && f.Operator == corev1.NodeSelectorOpIn && len(f.Values) == 1 {
				return f.Values[0]
			}
		}
	}
	return ""
}

// placementCheck is the safety bound of a fresh placement, where no
// rollout budget applies: it fails when a node holds two pods of app
// (terminating ones included), when a pod of app is for a node outside
// desired or for no node at all, or when more distinct pods of app have
// been seen, over the monitor's whole life, than there are desired nodes
// (nothing is deleted in a fresh placement, so a create beyond that is a
// duplicate). The returned function keeps the pods seen and must be used
// by one monitor only.
func placementCheck(app string, desired []string) func(map[string]*corev1.Pod) string {
	want := nodeSet(desired)
	seen := map[types.UID]bool{}
	return func(pods map[string]*corev1.Pod) string {
		count := map[string]int{}
		for _, p := range pods {
			if p.Labels["app"] != app {
				continue
			}
			seen[p.UID] = true
			n, v := placedNode(p, want)
			if v != "" {
				return v
			}
			count[n]++
			if count[n] > 1 {
				return fmt.Sprintf("node %s has %d pods", n, count[n])
			}
		}
		if len(seen) > len(desired) {
			return fmt.Sprintf("%d pods created for %d desired nodes", len(seen), len(desired))
		}
		return ""
	}
}
