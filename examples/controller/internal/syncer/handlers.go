package syncer

import (
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"
)

// The event handlers enqueue only the DaemonSets a change can affect:
//   - a DaemonSet change: that DaemonSet;
//   - a node change: the DaemonSets whose placement verdict for the node
//     (should run, may keep running) differs before and after; none, with
//     no verdict computed, when the node's labels and taints, all the
//     verdict reads, are unchanged;
//   - an added node: the DaemonSets that should run there (a new node has
//     no pod to keep); a deleted node: those that should run or may keep a
//     pod there;
//   - a pod or ControllerRevision change: its controlling DaemonSet, or, for
//     an orphan whose labels changed or that is new, the DaemonSets of its
//     namespace whose selector matches it (they may adopt it).
//
// Pod events also feed the expectations.

// addDaemonSet is the add handler of the DaemonSet informer.
func (s *Syncer) addDaemonSet(obj any) {
	if ds, ok := obj.(*appsv1.DaemonSet); ok {
		s.enqueue(cache.MetaObjectToName(ds).String())
	}
}

// updateDaemonSet is the update handler of the DaemonSet informer.
func (s *Syncer) updateDaemonSet(_, cur any) {
	if ds, ok := cur.(*appsv1.DaemonSet); ok {
		s.enqueue(cache.MetaObjectToName(ds).String())
	}
}

// deleteDaemonSet is the delete handler of the DaemonSet informer.
func (s *Syncer) deleteDaemonSet(obj any) {
	if ds, ok := unwrap[*appsv1.DaemonSet](obj); ok {
		key := cache.MetaObjectToName(ds).String()
		// Forget now, not in the sync: a DaemonSet re-created under the
		// same name before the sync must not inherit the old one's
		// expectations or backoff.
		s.placement.forget(ds.UID)
		s.Expectations.Forget(key)
		s.spacing.forget(key)
		if s.ForgetDeleted != nil {
			s.ForgetDeleted(key)
		}
		s.enqueue(key)
	}
}

// unwrap returns obj, or the last known state of a deleted object whose
// delete event was missed.
func unwrap[T any](obj any) (T, bool) {
	if t, ok := obj.(T); ok {
		return t, true
	}
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		t, ok := tomb.Obj.(T)
		return t, ok
	}
	var zero T
	return zero, false
}

// daemonSetsIn returns the cached DaemonSets of namespace ns; every one
// when ns is "".
func (s *Syncer) daemonSetsIn(ns string) []*appsv1.DaemonSet {
	var list []*appsv1.DaemonSet
	var err error
	if ns == "" {
		list, err = s.daemonSets.List(labels.Everything())
	} else {
		list, err = s.daemonSets.DaemonSets(ns).List(labels.Everything())
	}
	if err != nil {
		return nil
	}
	return list
}

// addNode is the add handler of the Node informer.
func (s *Syncer) addNode(obj any) {
	node, ok := obj.(*corev1.Node)
	if !ok {
		return
	}
	for _, ds := range s.daemonSetsIn("") {
		if run, _ := s.placement.get(ds).eligibility.ShouldRun(node); run {
			s.enqueue(cache.MetaObjectToName(ds).String())
		}
	}
}

// updateNode is the update handler of the Node informer.
func (s *Syncer) updateNode(old, cur any) {
	oldNode, ok1 := old.(*corev1.Node)
	curNode, ok2 := cur.(*corev1.Node)
	if !ok1 || !ok2 || oldNode.ResourceVersion == curNode.ResourceVersion || samePlacementInputs(oldNode, curNode) {
		return
	}
	for _, ds := range s.affectedByNodeChange(oldNode, curNode) {
		s.enqueue(ds)
	}
}

// affectedByNodeChange returns the keys of the DaemonSets whose placement
// verdict differs between old and cur.
func (s *Syncer) affectedByNodeChange(old, cur *corev1.Node) []string {
	var keys []string
	for _, ds := range s.daemonSetsIn("") {
		elig := s.placement.get(ds).eligibility
		run0, keep0 := elig.ShouldRun(old)
		run1, keep1 := elig.ShouldRun(cur)
		if run0 != run1 || keep0 != keep1 {
			keys = append(keys, cache.MetaObjectToName(ds).String())
		}
	}
	return keys
}

// samePlacementInputs reports whether a and b agree on every field the
// placement verdict reads: the name (matchFields), the labels and the
// taints' keys, values and effects, in order. A heartbeat, a status or an
// annotation change leaves them alone.
func samePlacementInputs(a, b *corev1.Node) bool {
	return a.Name == b.Name && labels.Equals(a.Labels, b.Labels) &&
		slices.EqualFunc(a.Spec.Taints, b.Spec.Taints, func(x, y corev1.Taint) bool {
			return x.Key == y.Key && x.Value == y.Value && x.Effect == y.Effect
		})
}

// deleteNode is the delete handler of the Node informer.
func (s *Syncer) deleteNode(obj any) {
	node, ok := unwrap[*corev1.Node](obj)
	if !ok {
		return
	}
	for _, ds := range s.daemonSetsIn("") {
		if run, keep := s.placement.get(ds).eligibility.ShouldRun(node); run || keep {
			s.enqueue(cache.MetaObjectToName(ds).String())
		}
	}
}

// owner returns the key of the DaemonSet of the cache that ref names in ns,
// or "" when ref is nil, names another kind or a DaemonSet that is gone or
// has another UID.
func (s *Syncer) owner(ns string, ref *metav1.OwnerReference) string {
	if ref == nil || ref.Kind != "DaemonSet" || ref.APIVersion != appsv1.SchemeGroupVersion.String() {
		return ""
	}
	ds, err := s.daemonSets.DaemonSets(ns).Get(ref.Name)
	if err != nil || ds.UID != ref.UID {
		return ""
	}
	return cache.NewObjectName(ns, ref.Name).String()
}

// matching returns the keys of the DaemonSets of ns whose selector matches
// set: those that may adopt an orphan with these labels.
func (s *Syncer) matching(ns string, set map[string]string) []string {
	var keys []string
	for _, ds := range s.daemonSetsIn(ns) {
		if sel := s.placement.get(ds).selector; sel != nil && sel.Matches(labels.Set(set)) {
			keys = append(keys, cache.MetaObjectToName(ds).String())
		}
	}
	return keys
}

// AddPod is the add handler of the Pod informer.
func (s *Syncer) AddPod(obj any) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	if pod.DeletionTimestamp != nil {
		// Seen first while being deleted (a restart, a relist): count it as
		// a delete, not a create.
		s.DeletePod(pod)
		return
	}
	if key := s.owner(pod.Namespace, metav1.GetControllerOf(pod)); key != "" {
		s.Expectations.CreationObserved(key)
		s.enqueue(key)
		return
	}
	if metav1.GetControllerOf(pod) != nil {
		return
	}
	for _, key := range s.matching(pod.Namespace, pod.Labels) {
		s.enqueue(key)
	}
}

// updatePod is the update handler of the Pod informer.
func (s *Syncer) updatePod(old, cur any) {
	oldPod, ok1 := old.(*corev1.Pod)
	curPod, ok2 := cur.(*corev1.Pod)
	if !ok1 || !ok2 || oldPod.ResourceVersion == curPod.ResourceVersion {
		return
	}
	curRef, oldRef := metav1.GetControllerOf(curPod), metav1.GetControllerOf(oldPod)
	refChanged := !sameRef(curRef, oldRef)
	if refChanged {
		if key := s.owner(oldPod.Namespace, oldRef); key != "" {
			s.enqueue(key)
		}
	}
	if curRef != nil {
		if key := s.owner(curPod.Namespace, curRef); key != "" {
			if curPod.DeletionTimestamp != nil {
				s.Expectations.DeletionObserved(key, curPod.UID)
			}
			s.enqueue(key)
		}
		return
	}
	if refChanged || !labels.Equals(curPod.Labels, oldPod.Labels) {
		for _, key := range s.matching(curPod.Namespace, curPod.Labels) {
			s.enqueue(key)
		}
	}
}

// DeletePod is the delete handler of the Pod informer.
func (s *Syncer) DeletePod(obj any) {
	pod, ok := unwrap[*corev1.Pod](obj)
	if !ok {
		return
	}
	if key := s.owner(pod.Namespace, metav1.GetControllerOf(pod)); key != "" {
		s.Expectations.DeletionObserved(key, pod.UID)
		s.enqueue(key)
	}
}

func sameRef(a, b *metav1.OwnerReference) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.UID == b.UID
}

// addRevision is the add handler of the ControllerRevision informer.
func (s *Syncer) addRevision(obj any) {
	rev, ok := obj.(*appsv1.ControllerRevision)
	if !ok {
		return
	}
	ref := metav1.GetControllerOf(rev)
	if key := s.owner(rev.Namespace, ref); key != "" {
		s.enqueue(key)
		return
	}
	if ref != nil {
		return
	}
	for _, key := range s.matching(rev.Namespace, rev.Labels) {
		s.enqueue(key)
	}
}

// updateRevision is the update handler of the ControllerRevision informer.
func (s *Syncer) updateRevision(old, cur any) {
	oldRev, ok1 := old.(*appsv1.ControllerRevision)
	curRev, ok2 := cur.(*appsv1.ControllerRevision)
	if !ok1 || !ok2 || oldRev.ResourceVersion == curRev.ResourceVersion {
		return
	}
	curRef, oldRef := metav1.GetControllerOf(curRev), metav1.GetControllerOf(oldRev)
	refChanged := !sameRef(curRef, oldRef)
	if refChanged {
		if key := s.owner(oldRev.Namespace, oldRef); key != "" {
			s.enqueue(key)
		}
	}
	if curRef != nil {
		if key := s.owner(curRev.Namespace, curRef); key != "" {
			s.enqueue(key)
		}
		return
	}
	if refChanged || !labels.Equals(curRev.Labels, oldRev.Labels) {
		for _, key := range s.matching(curRev.Namespace, curRev.Labels) {
			s.enqueue(key)
		}
	}
}

// deleteRevision is the delete handler of the ControllerRevision informer.
func (s *Syncer) deleteRevision(obj any) {
	rev, ok := unwrap[*appsv1.ControllerRevision](obj)
	if !ok {
		return
	}
	if key := s.owner(rev.Namespace, metav1.GetControllerOf(rev)); key != "" {
		s.enqueue(key)
	}
}
