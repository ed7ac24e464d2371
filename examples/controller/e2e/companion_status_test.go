package e2e

import (
	"context"
	"fmt"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/daemonplan/daemonplan/examples/controller/internal/companion"
)

// statusWatch follows one DaemonSet's status through every watch event and
// checks that its two writers never lose each other's fields: once the
// companion's conditions are there they stay (kube-controller-manager's
// whole-status updates keep them), and kube-controller-manager's counters
// never fall back to an older observation (the companion's patches touch
// only conditions). It also keeps the distinct RolloutProgressing
// messages, in order.
type statusWatch struct {
	mu         sync.Mutex
	events     int
	violations []string
	messages   []string
	stop       context.CancelFunc
	done       chan struct{}
}

func (c *cluster) watchStatus(name string) *statusWatch {
	c.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w := &statusWatch{stop: cancel, done: make(chan struct{})}
	sel := fields.OneTermEqualSelector("metadata.name", name).String()
	list, err := c.admin.AppsV1().DaemonSets(testNamespace).List(ctx, metav1.ListOptions{FieldSelector: sel})
	if err != nil {
		c.t.Fatalf("status watch: %v", err)
	}
	var prev *appsv1.DaemonSet
	if len(list.Items) == 1 {
		prev = &list.Items[0]
	}
	rv := list.ResourceVersion
	go func() {
		defer close(w.done)
		for ctx.Err() == nil {
			wi, err := c.admin.AppsV1().DaemonSets(testNamespace).Watch(ctx, metav1.ListOptions{FieldSelector: sel, ResourceVersion: rv})
			if err != nil {
				if ctx.Err() == nil {
					w.record(fmt.Sprintf("status watch failed: %v", err))
				}
				return
			}
			for ev := range wi.ResultChan() {
				ds, ok := ev.Object.(*appsv1.DaemonSet)
				if !ok || ev.Type == watch.Bookmark {
					continue
				}
				rv = ds.ResourceVersion
				w.check(prev, ds)
				prev = ds
			}
			wi.Stop()
		}
	}()
	c.t.Cleanup(w.halt)
	return w
}

func (w *statusWatch) record(v string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.violations = append(w.violations, v)
}

func (w *statusWatch) check(prev, cur *appsv1.DaemonSet) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.events++
	if p := conditionOf(cur, companion.ConditionProgressing); p != nil && (len(w.messages) == 0 || w.messages[len(w.messages)-1] != p.Message) {
		w.messages = append(w.messages, p.Message)
	}
	if prev == nil {
		return
	}
	for _, t := range []appsv1.DaemonSetConditionType{companion.ConditionProgressing, companion.ConditionPaused, companion.ConditionBlocked} {
		if conditionOf(prev, t) != nil && conditionOf(cur, t) == nil {
			w.violations = append(w.violations, fmt.Sprintf("resourceVersion %s: condition %s lost", cur.ResourceVersion, t))
		}
	}
	if cur.Status.ObservedGeneration < prev.Status.ObservedGeneration {
		w.violations = append(w.violations, fmt.Sprintf("resourceVersion %s: observedGeneration went back from %d to %d",
			cur.ResourceVersion, prev.Status.ObservedGeneration, cur.Status.ObservedGeneration))
	}
	if prev.Status.DesiredNumberScheduled > 0 && cur.Status.DesiredNumberScheduled == 0 {
		w.violations = append(w.violations, fmt.Sprintf("resourceVersion %s: the status counters were cleared", cur.ResourceVersion))
	}
}

func (w *statusWatch) halt() {
	w.stop()
	select {
	case <-w.done:
	case <-time.After(5 * time.Second):
	}
}

// stopAndReport ends the watch and returns its violations, the events
// checked and the progress messages seen.
func (w *statusWatch) stopAndReport() ([]string, int, []string) {
	w.halt()
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.violations, w.events, w.messages
}
