package simulate

import (
	"cmp"
	"container/heap"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonplan/daemonplan/affinity"
)

// The pods' transitions are kept in a priority queue by time, so that a
// step costs what changes in it, not the size of the cluster: at 5,000
// nodes a rollout's pods are mostly settled, and scanning every pod at
// every step (as the simulator first did) made a rollout quadratic.
//
// An entry is a promise to look at a pod at a time; when it comes due the
// transition is checked against the pod as it is then, and an entry that
// no longer applies (the pod was deleted, bound or made ready meanwhile)
// is dropped. A pod whose transition waits on its node (to exist, for a
// bind; to be Ready, for readiness) is parked under the node's name and
// queued again when the node joins or turns Ready, as the scheduler and
// the kubelet act only then.

// podTimer is what will happen to a pod: bound at bindAt, running (or
// failed) at readyAt, removed at removeAt.
type podTimer struct {
	bindAt, readyAt, removeAt time.Time
	fails, removing           bool
}

// transition is the kind of a queued pod transition, in the order they
// apply to one pod at one instant.
type transition uint8

const (
	toBound transition = iota
	toReady
	toRemoved
)

type timerEntry struct {
	at   time.Time
	kind transition
	pod  types.NamespacedName
}

// timerQueue is a min-heap of entries by time, then kind, then pod
// namespace and name: a total order, so that transitions due together
// apply in the same order on every run.
type timerQueue []timerEntry

func (q timerQueue) Len() int { return len(q) }
func (q timerQueue) Less(i, j int) bool {
	a, b := q[i], q[j]
	return cmp.Or(a.at.Compare(b.at), cmp.Compare(a.kind, b.kind), comparePodNames(a.pod, b.pod)) < 0
}
func (q timerQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *timerQueue) Push(x any)   { *q = append(*q, x.(timerEntry)) }
func (q *timerQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// schedule queues the pod's transition of that kind at the given time.
func (s *sim) schedule(name types.NamespacedName, kind transition, at time.Time) {
	heap.Push(&s.queue, timerEntry{at: at, kind: kind, pod: name})
}

// settleTop drops the entries at the head of the queue that no longer
// apply and parks those that wait on a node, so that the head, if any, is
// a transition that will happen at its time unless a cluster event comes
// first.
func (s *sim) settleTop() {
	for len(s.queue) > 0 {
		e := s.queue[0]
		if s.applies(e) {
			return
		}
		heap.Pop(&s.queue)
	}
}

// applies reports whether e will change its pod at its time; an entry
// that waits on its node is parked (and reported as not applying).
func (s *sim) applies(e timerEntry) bool {
	t, pod := s.timers[e.pod], s.pod(e.pod)
	if t == nil || pod == nil {
		return false
	}
	switch e.kind {
	case toRemoved:
		return t.removing && e.at.Equal(t.removeAt)
	case toBound:
		if t.removing || pod.Spec.NodeName != "" {
			return false
		}
		target, err := affinity.GetTargetNodeName(pod)
		if err != nil {
			return false
		}
		if _, ok := s.nodeAt[target]; !ok {
			s.waitBind[target] = append(s.waitBind[target], e.pod)
			return false
		}
		return true
	default: // toReady
		if t.removing || pod.Spec.NodeName == "" || isTerminal(pod) || podReady(pod) {
			return false
		}
		if !s.nodeReady(pod.Spec.NodeName) {
			s.waitNode[pod.Spec.NodeName] = append(s.waitNode[pod.Spec.NodeName], e.pod)
			return false
		}
		return true
	}
}

// applyTimers carries out every queued transition due at Now.
func (s *sim) applyTimers() {
	now := s.c.Now
	for {
		s.settleTop()
		if len(s.queue) == 0 || s.queue[0].at.After(now) {
			return
		}
		e := heap.Pop(&s.queue).(timerEntry)
		t := s.timers[e.pod]
		switch e.kind {
		case toRemoved:
			s.removePod(e.pod)
		case toBound:
			target, _ := affinity.GetTargetNodeName(s.pod(e.pod))
			s.updatePod(e.pod, func(p *corev1.Pod) { p.Spec.NodeName = target })
			s.schedule(e.pod, toReady, later(t.readyAt, now))
		case toReady:
			fails := t.fails
			s.updatePod(e.pod, func(p *corev1.Pod) {
				if fails {
					p.Status.Phase = corev1.PodFailed
					setPodReady(p, false, now)
					return
				}
				p.Status.Phase = corev1.PodRunning
				setPodReady(p, true, now)
			})
		}
	}
}

// nextTimer returns the time of the next transition that applies.
func (s *sim) nextTimer() (time.Time, bool) {
	s.settleTop()
	if len(s.queue) == 0 {
		return time.Time{}, false
	}
	return s.queue[0].at, true
}

// release queues again the pods parked on node: their bind when it has
// joined, their readiness when it is Ready.
func (s *sim) release(node string) {
	now := s.c.Now
	if _, ok := s.nodeAt[node]; ok {
		for _, name := range s.waitBind[node] {
			if t := s.timers[name]; t != nil {
				s.schedule(name, toBound, later(t.bindAt, now))
			}
		}
		delete(s.waitBind, node)
	}
	if s.nodeReady(node) {
		for _, name := range s.waitNode[node] {
			if t := s.timers[name]; t != nil {
				s.schedule(name, toReady, later(t.readyAt, now))
			}
		}
		delete(s.waitNode, node)
	}
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// podReady reports whether the pod's Ready condition is True.
func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// setPodReady sets the pod's Ready condition (adding it when missing),
// with lastTransitionTime at when the status changes; it modifies p, a
// copy the simulator owns.
func setPodReady(p *corev1.Pod, ready bool, at time.Time) {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	for i := range p.Status.Conditions {
		if c := &p.Status.Conditions[i]; c.Type == corev1.PodReady {
			if c.Status != status {
				c.Status, c.LastTransitionTime = status, metav1.Time{Time: at}
			}
			return
		}
	}
	p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: status, LastTransitionTime: metav1.Time{Time: at}})
}
