package daemontest

import (
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/daemonplan/daemonplan/affinity"
	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/backoff"
	"github.com/daemonplan/daemonplan/rollout"
)

// checkHistory judges Plan.History (InvariantHistory):
//  1. Update and Delete name revisions of the input (in the DaemonSet's
//     namespace), Adopt and Release hold them (the caller's pointers),
//     Relabel holds pods of the input; a revision both updated and deleted
//     is one upstream gives its missing hash label and then deletes (an old
//     revision beyond revisionHistoryLimit, or a duplicate of the current
//     template): the input lacks the label, and the update sets it to the
//     revision's name and changes nothing else that is checked here
//     (revision number, data);
//  2. a Create is controlled by the DaemonSet, named <name>-<hash of the
//     template and collisionCount> and labelled with that hash;
//  3. when a claimed revision stores the current template, not all such
//     revisions are deleted (duplicates go, one stays);
//  4. a deleted revision of another template carries no hash label (its own
//     name when it has none) that a pod of the DaemonSet with a target node
//     carries: cleanup spares the revisions of running pods.
func (c *checker) checkHistory(sel labels.Selector) {
	h, ds := c.plan.History, c.ds
	inputRevs := make(map[string]*appsv1.ControllerRevision, len(c.in.Options.Revisions))
	for _, r := range c.in.Options.Revisions {
		if r != nil && r.Namespace == ds.Namespace {
			inputRevs[r.Name] = r
		}
	}
	for _, f := range []struct {
		field   string
		revs    []*appsv1.ControllerRevision
		pointer bool // the doc promises the caller's pointers
	}{{"Update", h.Update, false}, {"Delete", h.Delete, false}, {"Adopt", h.Adopt, true}, {"Release", h.Release, true}} {
		for _, r := range f.revs {
			if r == nil {
				continue
			}
			if in := inputRevs[r.Name]; in == nil || (f.pointer && in != r) {
				c.add(InvariantHistory, "History.%s holds revision %s/%s, which is not an input revision of the namespace", f.field, r.Namespace, r.Name)
			}
		}
	}
	deleted := make(map[string]bool, len(h.Delete))
	for _, r := range h.Delete {
		if r != nil {
			deleted[r.Name] = true
		}
	}
	for _, r := range h.Update {
		if r == nil || !deleted[r.Name] {
			continue
		}
		in := inputRevs[r.Name]
		if in == nil {
			continue // reported above
		}
		_, had := in.Labels[appsv1.ControllerRevisionHashLabelKey]
		if had || r.Labels[appsv1.ControllerRevisionHashLabelKey] != r.Name || r.Revision != in.Revision || string(r.Data.Raw) != string(in.Data.Raw) {
			c.add(InvariantHistory, "revision %s is both updated and deleted, and the update does more than add its missing hash label", r.Name)
		}
	}
	for _, p := range h.Relabel {
		if p != nil && !c.input[p] {
			c.add(InvariantHistory, "History.Relabel holds %s, which is not an input pod", podKey(p))
		}
	}
	if cr := h.Create; cr != nil {
		hash := Hash(ds)
		ref := metav1.GetControllerOfNoCopy(cr)
		if cr.Name != ds.Name+"-"+hash || cr.Labels[appsv1.ControllerRevisionHashLabelKey] != hash || ref == nil || ref.UID != ds.UID || cr.Namespace != ds.Namespace {
			c.add(InvariantHistory, "History.Create %s/%s (hash label %q) is not the DaemonSet's revision %s-%s",
				cr.Namespace, cr.Name, cr.Labels[appsv1.ControllerRevisionHashLabelKey], ds.Name, hash)
		}
	}

	adopted := make(map[string]bool, len(h.Adopt))
	for _, r := range h.Adopt {
		if r != nil {
			adopted[r.Name] = true
		}
	}
	live := map[string]bool{}
	for _, pod := range c.in.Pods {
		if pod == nil || !c.isDaemonPod(pod, sel) {
			continue
		}
		if _, err := affinity.GetTargetNodeName(pod); err == nil {
			if hash := pod.Labels[appsv1.ControllerRevisionHashLabelKey]; hash != "" {
				live[hash] = true
			}
		}
	}
	current, currentDeleted := 0, 0
	for name, r := range inputRevs {
		ref := metav1.GetControllerOfNoCopy(r)
		claimed := (ref != nil && ref.UID == ds.UID && sel.Matches(labels.Set(r.Labels))) || adopted[name]
		if !claimed {
			continue
		}
		matches, err := rollout.Match(ds, r)
		if err != nil {
			return
		}
		if matches {
			current++
			if deleted[name] {
				currentDeleted++
			}
			continue
		}
		hash, ok := r.Labels[appsv1.ControllerRevisionHashLabelKey]
		if !ok {
			hash = r.Name
		}
		if deleted[name] && hash != "" && live[hash] {
			c.add(InvariantHistory, "old revision %s is deleted although pods of the DaemonSet carry its hash %q", name, hash)
		}
	}
	if current > 0 && currentDeleted == current {
		c.add(InvariantHistory, "every revision of the current template (%d) is deleted", current)
	}
}

// checkBackoff judges Plan.FailedPodBackoff (InvariantBackoff): entries of
// other DaemonSets are kept unless expired (not updated for twice
// backoff.Max); every entry of the result is kept from the
// input or was raised at Now for this DaemonSet; every failed pod deleted
// raised its node's entry at Now, to at most backoff.Max.
func (c *checker) checkBackoff() {
	now := c.in.Options.Now
	out := c.plan.FailedPodBackoff
	in := c.in.Options.FailedPodBackoff
	for _, e := range in.Entries() {
		if e.Key.UID == c.ds.UID || now.Sub(e.LastUpdate) > 2*backoff.Max {
			continue
		}
		if got, ok := out.Get(e.Key); !ok || got.Delay != e.Delay || !got.LastUpdate.Equal(e.LastUpdate) {
			c.add(InvariantBackoff, "the backoff entry %+v of another DaemonSet changed or was dropped", e.Key)
		}
	}
	for _, e := range out.Entries() {
		old, ok := in.Get(e.Key)
		kept := ok && old.Delay == e.Delay && old.LastUpdate.Equal(e.LastUpdate)
		raised := e.Key.UID == c.ds.UID && e.LastUpdate.Equal(now) && e.Delay > 0 && e.Delay <= backoff.Max
		if !kept && !raised {
			c.add(InvariantBackoff, "backoff entry %+v (delay %v, updated %v) is neither kept nor raised at Now", e.Key, e.Delay, e.LastUpdate)
		}
	}
	for _, d := range c.plan.Deletes {
		if d.Reason != daemon.ReasonPodFailed {
			continue
		}
		key := backoff.Key{UID: c.ds.UID, ObservedGeneration: c.ds.Status.ObservedGeneration, NodeName: d.NodeName}
		if e, ok := out.Get(key); !ok || !e.LastUpdate.Equal(now) {
			c.add(InvariantBackoff, "failed pod %s deleted on %q without raising the node's backoff", podKey(d.Pod), d.NodeName)
		}
	}
}
