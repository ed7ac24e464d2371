package controller

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"
)

// The event handlers enqueue only the DaemonSets a change can affect:
//   - a DaemonSet change: that DaemonSet;
//   - a node change: the DaemonSets whose placement verdict for the node
//     (should run, may keep running) differs before and after, or, for an
//     added or deleted node, is positive;
//   - a pod or ControllerRevision change: its controlling DaemonSet, or, for
//     an orphan whose labels changed or that is new, the DaemonSets of its
//     namespace whose selector matches it (they may adopt it).
//
// Pod events also feed the expectations.

func keyOf(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

func (c *Controller) addDaemonSet(obj any) {
	if ds, ok := obj.(*appsv1.DaemonSet); ok {
		c.enqueue(keyOf(ds.Namespace, ds.Name))
	}
}

func (c *Controller) updateDaemonSet(_, cur any) {
	if ds, ok := cur.(*appsv1.DaemonSet); ok {
		c.enqueue(keyOf(ds.Namespace, ds.Name))
	}
}

func (c *Controller) deleteDaemonSet(obj any) {
	if ds, ok := unwrap[*appsv1.DaemonSet](obj); ok {
		key := keyOf(ds.Namespace, ds.Name)
		// Forget now, not in the sync: a DaemonSet re-created under the
		// same name before the sync must not inherit the old one's
		// expectations or backoff.
		c.placement.forget(ds.UID)
		c.expectations.Forget(key)
		c.state.forget(key)
		c.statusWrites.forget(key)
		c.spacing.forget(key)
		c.enqueue(key)
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

// daemonSets returns every DaemonSet of the cache with its key.
func (c *Controller) daemonSets(ns string) []*appsv1.DaemonSet {
	var list []*appsv1.DaemonSet
	var err error
	if ns == "" {
		list, err = c.dsLister.List(labels.Everything())
	} else {
		list, err = c.dsLister.DaemonSets(ns).List(labels.Everything())
	}
	if err != nil {
		return nil
	}
	return list
}

func (c *Controller) addNode(obj any) {
	node, ok := obj.(*corev1.Node)
	if !ok {
		return
	}
	for _, ds := range c.daemonSets("") {
		if run, keep := c.placement.get(ds).elig.ShouldRun(node); run || keep {
			c.enqueue(keyOf(ds.Namespace, ds.Name))
		}
	}
}

func (c *Controller) updateNode(old, cur any) {
	oldNode, ok1 := old.(*corev1.Node)
	curNode, ok2 := cur.(*corev1.Node)
	if !ok1 || !ok2 || oldNode.ResourceVersion == curNode.ResourceVersion {
		return
	}
	for _, ds := range c.affectedByNodeChange(oldNode, curNode) {
		c.enqueue(ds)
	}
}

// affectedByNodeChange returns the keys of the DaemonSets whose placement
// verdict differs between old and cur.
func (c *Controller) affectedByNodeChange(old, cur *corev1.Node) []string {
	var keys []string
	for _, ds := range c.daemonSets("") {
		elig := c.placement.get(ds).elig
		run0, keep0 := elig.ShouldRun(old)
		run1, keep1 := elig.ShouldRun(cur)
		if run0 != run1 || keep0 != keep1 {
			keys = append(keys, keyOf(ds.Namespace, ds.Name))
		}
	}
	return keys
}

func (c *Controller) deleteNode(obj any) {
	node, ok := unwrap[*corev1.Node](obj)
	if !ok {
		return
	}
	for _, ds := range c.daemonSets("") {
		if run, keep := c.placement.get(ds).elig.ShouldRun(node); run || keep {
			c.enqueue(keyOf(ds.Namespace, ds.Name))
		}
	}
}

// owner returns the key of the DaemonSet of the cache that ref names in ns,
// or "" when ref is nil, names another kind or a DaemonSet that is gone or
// has another UID.
func (c *Controller) owner(ns string, ref *metav1.OwnerReference) string {
	if ref == nil || ref.Kind != "DaemonSet" || ref.APIVersion != appsv1.SchemeGroupVersion.String() {
		return ""
	}
	ds, err := c.dsLister.DaemonSets(ns).Get(ref.Name)
	if err != nil || ds.UID != ref.UID {
		return ""
	}
	return keyOf(ns, ref.Name)
}

// matching returns the keys of the DaemonSets of ns whose selector matches
// set: those that may adopt an orphan with these labels.
func (c *Controller) matching(ns string, set map[string]string) []string {
	var keys []string
	for _, ds := range c.daemonSets(ns) {
		if sel := c.placement.get(ds).sel; sel != nil && sel.Matches(labels.Set(set)) {
			keys = append(keys, keyOf(ds.Namespace, ds.Name))
		}
	}
	return keys
}

func (c *Controller) addPod(obj any) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	if pod.DeletionTimestamp != nil {
		// Seen first while being deleted (a restart, a relist): count it as
		// a delete, not a create.
		c.deletePod(pod)
		return
	}
	if key := c.owner(pod.Namespace, metav1.GetControllerOf(pod)); key != "" {
		c.expectations.CreationObserved(key)
		c.enqueue(key)
		return
	}
	if metav1.GetControllerOf(pod) != nil {
		return
	}
	for _, key := range c.matching(pod.Namespace, pod.Labels) {
		c.enqueue(key)
	}
}

func (c *Controller) updatePod(old, cur any) {
	oldPod, ok1 := old.(*corev1.Pod)
	curPod, ok2 := cur.(*corev1.Pod)
	if !ok1 || !ok2 || oldPod.ResourceVersion == curPod.ResourceVersion {
		return
	}
	curRef, oldRef := metav1.GetControllerOf(curPod), metav1.GetControllerOf(oldPod)
	refChanged := !sameRef(curRef, oldRef)
	if refChanged {
		if key := c.owner(oldPod.Namespace, oldRef); key != "" {
			c.enqueue(key)
		}
	}
	if curRef != nil {
		if key := c.owner(curPod.Namespace, curRef); key != "" {
			if curPod.DeletionTimestamp != nil {
				c.expectations.DeletionObserved(key, curPod.UID)
			}
			c.enqueue(key)
		}
		return
	}
	if refChanged || !labels.Equals(curPod.Labels, oldPod.Labels) {
		for _, key := range c.matching(curPod.Namespace, curPod.Labels) {
			c.enqueue(key)
		}
	}
}

func (c *Controller) deletePod(obj any) {
	pod, ok := unwrap[*corev1.Pod](obj)
	if !ok {
		return
	}
	if key := c.owner(pod.Namespace, metav1.GetControllerOf(pod)); key != "" {
		c.expectations.DeletionObserved(key, pod.UID)
		c.enqueue(key)
	}
}

func sameRef(a, b *metav1.OwnerReference) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.UID == b.UID
}

func (c *Controller) addRevision(obj any) {
	rev, ok := obj.(*appsv1.ControllerRevision)
	if !ok {
		return
	}
	ref := metav1.GetControllerOf(rev)
	if key := c.owner(rev.Namespace, ref); key != "" {
		c.enqueue(key)
		return
	}
	if ref != nil {
		return
	}
	for _, key := range c.matching(rev.Namespace, rev.Labels) {
		c.enqueue(key)
	}
}

func (c *Controller) updateRevision(old, cur any) {
	oldRev, ok1 := old.(*appsv1.ControllerRevision)
	curRev, ok2 := cur.(*appsv1.ControllerRevision)
	if !ok1 || !ok2 || oldRev.ResourceVersion == curRev.ResourceVersion {
		return
	}
	curRef, oldRef := metav1.GetControllerOf(curRev), metav1.GetControllerOf(oldRev)
	refChanged := !sameRef(curRef, oldRef)
	if refChanged {
		if key := c.owner(oldRev.Namespace, oldRef); key != "" {
			c.enqueue(key)
		}
	}
	if curRef != nil {
		if key := c.owner(curRev.Namespace, curRef); key != "" {
			c.enqueue(key)
		}
		return
	}
	if refChanged || !labels.Equals(curRev.Labels, oldRev.Labels) {
		for _, key := range c.matching(curRev.Namespace, curRev.Labels) {
			c.enqueue(key)
		}
	}
}

func (c *Controller) deleteRevision(obj any) {
	rev, ok := unwrap[*appsv1.ControllerRevision](obj)
	if !ok {
		return
	}
	if key := c.owner(rev.Namespace, metav1.GetControllerOf(rev)); key != "" {
		c.enqueue(key)
	}
}
