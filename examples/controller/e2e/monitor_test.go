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

// monitor watches the test namespace's pods without pause and checks an
// invariant after every event, so a bound broken for a moment between two
// polls is still seen.
type monitor struct {
	mu         sync.Mutex
	pods       map[string]*corev1.Pod
	check      func(map[string]*corev1.Pod) string
	violations []string
	events     int
	stop       context.CancelFunc
	done       chan struct{}
}

// startMonitor lists the pods, then follows every change until the test ends
// or stopAndReport is called.
func (c *cluster) startMonitor(check func(map[string]*corev1.Pod) string) *monitor {
	c.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	m := &monitor{pods: map[string]*corev1.Pod{}, check: check, stop: cancel, done: make(chan struct{})}
	list, err := c.admin.CoreV1().Pods(testNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		c.t.Fatalf("monitor: listing pods: %v", err)
	}
	for i := range list.Items {
		p := list.Items[i]
		m.pods[p.Name] = &p
	}
	m.evaluate("initial list")
	rv := list.ResourceVersion
	go func() {
		defer close(m.done)
		for ctx.Err() == nil {
			w, err := c.admin.CoreV1().Pods(testNamespace).Watch(ctx, metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true})
			if err != nil {
				if ctx.Err() == nil {
					m.record(fmt.Sprintf("monitor: watch failed: %v", err))
				}
				return
			}
			for ev := range w.ResultChan() {
				p, ok := ev.Object.(*corev1.Pod)
				if !ok {
					continue
				}
				rv = p.ResourceVersion
				switch ev.Type {
				case watch.Added, watch.Modified:
					m.mu.Lock()
					m.pods[p.Name] = p
					m.mu.Unlock()
				case watch.Deleted:
					m.mu.Lock()
					delete(m.pods, p.Name)
					m.mu.Unlock()
				case watch.Bookmark:
					continue
				}
				m.evaluate(fmt.Sprintf("%s %s", ev.Type, p.Name))
			}
			w.Stop()
		}
	}()
	c.t.Cleanup(m.halt)
	return m
}

func (m *monitor) evaluate(after string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.events++
	if v := m.check(m.pods); v != "" {
		m.violations = append(m.violations, after+": "+v)
	}
}

func (m *monitor) record(v string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.violations = append(m.violations, v)
}

func (m *monitor) halt() {
	m.stop()
	select {
	case <-m.done:
	case <-time.After(5 * time.Second):
	}
}

// stopAndReport ends the watch and returns the violations seen (the first
// few) and how many events were checked.
func (m *monitor) stopAndReport() ([]string, int) {
	m.halt()
	m.mu.Lock()
	defer m.mu.Unlock()
	v := m.violations
	if len(v) > 5 {
		v = append(v[:5:5], fmt.Sprintf("… and %d more", len(m.violations)-5))
	}
	return v, m.events
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
		unavailable := 0
		for _, n := range desired {
			if !avail[n] {
				unavailable++
			}
		}
		if unavailable > maxUnavailable {
			return fmt.Sprintf("%d desired nodes without an available pod, budget %d", unavailable, maxUnavailable)
		}
		for n, k := range count {
			if n != "" && k > maxPerNode {
				return fmt.Sprintf("node %s has %d pods, at most %d allowed", n, k, maxPerNode)
			}
		}
		return ""
	}
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
	want := make(map[string]bool, len(desired))
	for _, n := range desired {
		want[n] = true
	}
	seen := map[types.UID]bool{}
	return func(pods map[string]*corev1.Pod) string {
		count := map[string]int{}
		for _, p := range pods {
			if p.Labels["app"] != app {
				continue
			}
			seen[p.UID] = true
			n := targetNode(p)
			switch {
			case n == "":
				return fmt.Sprintf("pod %s is for no node", p.Name)
			case !want[n]:
				return fmt.Sprintf("pod %s is for node %s, which should run none", p.Name, n)
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
