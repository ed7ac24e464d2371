package daemontest

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonplan/daemonplan/affinity"
	"github.com/daemonplan/daemonplan/daemon"
)

// The simulator never modifies an object in place: it replaces it with a
// changed copy, so that the pointers earlier plans hold stay as they were.
// The slices of its cluster are its own (a deep copy of the caller's), so
// it changes them in place.

// apply carries out plan on the cluster, as an executor would, and
// reports whether the cluster changed (deleting a pod already being
// deleted, or creating a revision that exists, changes nothing; neither
// does the backoff state, which only the controller sees).
func (s *sim) apply(plan daemon.Plan) bool {
	before := s.changes
	c := s.c
	ds := c.DaemonSet
	for _, pod := range plan.Adopt {
		s.updatePod(podName(pod), func(p *corev1.Pod) {
			p.OwnerReferences = append(p.OwnerReferences, controllerRef(ds))
		})
	}
	for _, pod := range plan.Release {
		s.updatePod(podName(pod), func(p *corev1.Pod) { p.OwnerReferences = withoutOwner(p.OwnerReferences, ds.UID) })
	}
	for _, pod := range plan.History.Relabel {
		s.updatePod(podName(pod), func(p *corev1.Pod) {
			if p.Labels == nil {
				p.Labels = map[string]string{}
			}
			p.Labels[appsv1.ControllerRevisionHashLabelKey] = plan.Hash
		})
	}
	s.applyHistory(plan)

	for _, d := range plan.Deletes {
		s.deletePod(podName(d.Pod))
	}
	for _, cr := range plan.Creates {
		s.createPod(cr)
	}
	if plan.StatusChanged {
		ds = ds.DeepCopy()
		ds.Status = *plan.Status.DeepCopy()
		c.DaemonSet = ds
		s.changes++
	}
	c.FailedPodBackoff = plan.FailedPodBackoff
	return s.changes != before
}

func (s *sim) applyHistory(plan daemon.Plan) {
	c, h := s.c, plan.History
	ds := c.DaemonSet
	if h.Create != nil && s.revisionIndex(h.Create.Namespace, h.Create.Name) < 0 {
		rev := h.Create.DeepCopy()
		s.seq++
		rev.UID = types.UID(fmt.Sprintf("sim-rev-%d", s.seq))
		c.Revisions = append(c.Revisions, rev)
		s.changes++
	}
	for _, u := range h.Update {
		if i := s.revisionIndex(u.Namespace, u.Name); i >= 0 {
			c.Revisions[i] = u.DeepCopy()
			s.changes++
		}
	}
	for _, d := range h.Delete {
		if i := s.revisionIndex(d.Namespace, d.Name); i >= 0 {
			c.Revisions = slices.Delete(c.Revisions, i, i+1)
			s.changes++
		}
	}
	for _, a := range h.Adopt {
		if i := s.revisionIndex(a.Namespace, a.Name); i >= 0 {
			rev := c.Revisions[i].DeepCopy()
			rev.OwnerReferences = append(rev.OwnerReferences, controllerRef(ds))
			c.Revisions[i] = rev
			s.changes++
		}
	}
	for _, r := range h.Release {
		if i := s.revisionIndex(r.Namespace, r.Name); i >= 0 {
			rev := c.Revisions[i].DeepCopy()
			rev.OwnerReferences = withoutOwner(rev.OwnerReferences, ds.UID)
			c.Revisions[i] = rev
			s.changes++
		}
	}
	if h.CollisionCount != nil {
		ds = ds.DeepCopy()
		cc := *h.CollisionCount
		ds.Status.CollisionCount = &cc
		c.DaemonSet = ds
		s.changes++
	}
}

func withoutOwner(refs []metav1.OwnerReference, uid types.UID) []metav1.OwnerReference {
	return slices.DeleteFunc(slices.Clone(refs), func(r metav1.OwnerReference) bool { return r.UID == uid })
}

func (s *sim) revisionIndex(namespace, name string) int {
	return slices.IndexFunc(s.c.Revisions, func(r *appsv1.ControllerRevision) bool {
		return r.Namespace == namespace && r.Name == name
	})
}

// podName returns the namespace and name that identify p in the cluster
// (and key its timer): pods of different namespaces may share a name.
func podName(p *corev1.Pod) types.NamespacedName {
	return types.NamespacedName{Namespace: p.Namespace, Name: p.Name}
}

// comparePodNames orders pod keys by namespace, then name.
func comparePodNames(a, b types.NamespacedName) int {
	return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
}

// podIndex returns the index in the cluster of the pod of that namespace
// and name, or -1.
func (s *sim) podIndex(name types.NamespacedName) int {
	return slices.IndexFunc(s.c.Pods, func(p *corev1.Pod) bool { return p.Namespace == name.Namespace && p.Name == name.Name })
}

// updatePod replaces the pod named name by a copy changed by f; nothing
// happens when no such pod exists.
func (s *sim) updatePod(name types.NamespacedName, f func(*corev1.Pod)) {
	if i := s.podIndex(name); i >= 0 {
		p := s.c.Pods[i].DeepCopy()
		f(p)
		s.c.Pods[i] = p
		s.changes++
	}
}

// removePod removes the pod named name, and its timer.
func (s *sim) removePod(name types.NamespacedName) {
	if i := s.podIndex(name); i >= 0 {
		s.c.Pods = slices.Delete(s.c.Pods, i, i+1)
		s.changes++
	}
	delete(s.timers, name)
}

// deletePod starts the pod's deletion: it is gone after GracePeriod.
func (s *sim) deletePod(name types.NamespacedName) {
	t := s.timers[name]
	if t == nil {
		t = &podTimer{}
		s.timers[name] = t
	}
	if t.removing {
		return // deleted again: the first grace period stands
	}
	if s.cfg.GracePeriod <= 0 {
		s.removePod(name)
		return
	}
	now := s.c.Now
	t.removing, t.removeAt = true, now.Add(s.cfg.GracePeriod)
	s.updatePod(name, func(p *corev1.Pod) {
		if p.DeletionTimestamp == nil {
			p.DeletionTimestamp = &metav1.Time{Time: now}
		}
	})
}

// createPod lands the pod of a create: named, Pending, bound later.
func (s *sim) createPod(cr daemon.Create) {
	now := s.c.Now
	p := cr.Pod.DeepCopy()
	for {
		s.seq++
		p.Name = fmt.Sprintf("%s%05d", p.GenerateName, s.seq)
		if s.podIndex(podName(p)) < 0 {
			break
		}
	}
	p.UID = types.UID(fmt.Sprintf("sim-pod-%d", s.seq))
	p.CreationTimestamp = metav1.Time{Time: now}
	p.Status = corev1.PodStatus{Phase: corev1.PodPending}
	t := &podTimer{bindAt: now.Add(s.cfg.BindDelay), readyAt: now.Add(max(s.cfg.ReadyDelay, s.cfg.BindDelay))}
	t.fails = s.cfg.FailFraction > 0 && s.r.Float64() < s.cfg.FailFraction
	s.timers[podName(p)] = t
	s.c.Pods = append(s.c.Pods, p)
	s.changes++
}

// applyDue carries out every pod transition and cluster event due at Now,
// and returns the cluster events applied.
func (s *sim) applyDue() []string {
	now := s.c.Now
	var applied []string
	for s.next < len(s.events) && !s.start.Add(s.events[s.next].At).After(now) {
		e := s.events[s.next]
		s.next++
		s.applyEvent(e)
		applied = append(applied, e.String())
	}
	// Visit pods in namespace and name order: the outcome must not depend
	// on map order.
	for _, name := range slices.SortedFunc(maps.Keys(s.timers), comparePodNames) {
		t := s.timers[name]
		i := s.podIndex(name)
		if i < 0 {
			delete(s.timers, name)
			continue
		}
		if t.removing {
			if !t.removeAt.After(now) {
				s.removePod(name)
			}
			continue
		}
		pod := s.c.Pods[i]
		if pod.Spec.NodeName == "" && !t.bindAt.IsZero() && !t.bindAt.After(now) {
			if target, err := affinity.GetTargetNodeName(pod); err == nil && s.nodeIndex(target) >= 0 {
				s.updatePod(name, func(p *corev1.Pod) { p.Spec.NodeName = target })
				pod = s.c.Pods[i]
			}
		}
		if pod.Status.Phase == corev1.PodPending && pod.Spec.NodeName != "" && !t.readyAt.After(now) && s.nodeReady(pod.Spec.NodeName) {
			fails := t.fails
			s.updatePod(name, func(p *corev1.Pod) {
				if fails {
					p.Status.Phase = corev1.PodFailed
					p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, LastTransitionTime: metav1.Time{Time: now}}}
					return
				}
				p.Status.Phase = corev1.PodRunning
				p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Time{Time: now}}}
			})
		}
	}
	return applied
}

// nextEvent returns the time of the next pending pod transition or cluster
// event after Now; ok is false when none is pending.
func (s *sim) nextEvent() (next time.Time, ok bool) {
	consider := func(t time.Time) {
		if t.After(s.c.Now) && (!ok || t.Before(next)) {
			next, ok = t, true
		}
	}
	if s.next < len(s.events) {
		consider(s.start.Add(s.events[s.next].At))
	}
	for name, t := range s.timers {
		i := s.podIndex(name)
		if i < 0 {
			continue
		}
		pod := s.c.Pods[i]
		switch {
		case t.removing:
			consider(t.removeAt)
		case pod.Spec.NodeName == "" && !t.bindAt.IsZero():
			if target, err := affinity.GetTargetNodeName(pod); err == nil && s.nodeIndex(target) >= 0 {
				consider(t.bindAt)
			}
		case pod.Status.Phase == corev1.PodPending && pod.Spec.NodeName != "" && s.nodeReady(pod.Spec.NodeName):
			consider(t.readyAt)
		}
	}
	return next, ok
}
