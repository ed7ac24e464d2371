package simulate

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonplan/daemonplan/daemon"
)

// The simulator never modifies an object in place: it replaces it with a
// changed copy, so that the pointers earlier plans hold stay as they were.
// The slices of its cluster are its own (copies of the caller's), so
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
	s.compact()
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

// reindex rebuilds podAt and nodeAt from the cluster's slices, which hold
// no nil entry. Pods of one name keep the last one, as Compute would
// refuse them anyway.
func (s *sim) reindex() {
	s.podAt = make(map[types.NamespacedName]int, len(s.c.Pods))
	for i, p := range s.c.Pods {
		s.podAt[podName(p)] = i
	}
	s.reindexNodes()
}

func (s *sim) reindexNodes() {
	s.nodeAt = make(map[string]int, len(s.c.Nodes))
	for i, n := range s.c.Nodes {
		s.nodeAt[n.Name] = i
	}
	s.shouldRun = nil
}

// pod returns the pod of that namespace and name, or nil.
func (s *sim) pod(name types.NamespacedName) *corev1.Pod {
	if i, ok := s.podAt[name]; ok {
		return s.c.Pods[i]
	}
	return nil
}

// updatePod replaces the pod named name by a copy changed by f; nothing
// happens when no such pod exists.
func (s *sim) updatePod(name types.NamespacedName, f func(*corev1.Pod)) {
	if i, ok := s.podAt[name]; ok {
		p := s.c.Pods[i].DeepCopy()
		f(p)
		s.c.Pods[i] = p
		s.changes++
	}
}

// removePod removes the pod named name, and its timer. Its entry in
// c.Pods becomes nil until compact.
func (s *sim) removePod(name types.NamespacedName) {
	if i, ok := s.podAt[name]; ok {
		s.c.Pods[i] = nil
		delete(s.podAt, name)
		s.holes++
		s.changes++
	}
	delete(s.timers, name)
}

// compact closes the gaps removed pods left in c.Pods, keeping the order
// of the others.
func (s *sim) compact() {
	if s.holes == 0 {
		return
	}
	pods := s.c.Pods
	j := 0
	for _, p := range pods {
		if p == nil {
			continue
		}
		if pods[j] != p {
			pods[j] = p
			s.podAt[podName(p)] = j
		}
		j++
	}
	clear(pods[j:])
	s.c.Pods = pods[:j]
	s.holes = 0
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
	s.schedule(name, toRemoved, t.removeAt)
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
		if _, taken := s.podAt[podName(p)]; !taken {
			break
		}
	}
	p.UID = types.UID(fmt.Sprintf("sim-pod-%d", s.seq))
	p.CreationTimestamp = metav1.Time{Time: now}
	p.Status = corev1.PodStatus{Phase: corev1.PodPending}
	t := &podTimer{bindAt: now.Add(s.cfg.BindDelay), readyAt: now.Add(max(s.cfg.ReadyDelay, s.cfg.BindDelay))}
	t.fails = s.cfg.FailFraction > 0 && s.r.Float64() < s.cfg.FailFraction
	name := podName(p)
	s.timers[name] = t
	s.podAt[name] = len(s.c.Pods)
	s.c.Pods = append(s.c.Pods, p)
	s.changes++
	if p.Spec.NodeName == "" {
		s.schedule(name, toBound, t.bindAt)
	} else {
		s.schedule(name, toReady, t.readyAt)
	}
}

// applyDue carries out every cluster event and pod transition due at Now,
// and returns the cluster events applied.
func (s *sim) applyDue() []string {
	now := s.c.Now
	var applied []string
	for s.next < len(s.events) && !s.start.Add(s.events[s.next].At).After(now) {
		e := s.events[s.next]
		s.next++
		applied = append(applied, s.applyEvent(e))
	}
	s.applyTimers()
	s.compact()
	return applied
}

// nextEvent returns the time of the next pending pod transition or cluster
// event after Now; ok is false when none is pending.
func (s *sim) nextEvent() (next time.Time, ok bool) {
	if t, has := s.nextTimer(); has && t.After(s.c.Now) {
		next, ok = t, true
	}
	if s.next < len(s.events) {
		if t := s.start.Add(s.events[s.next].At); t.After(s.c.Now) && (!ok || t.Before(next)) {
			next, ok = t, true
		}
	}
	return next, ok
}
