package snapshot

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Snapshot is a set of cluster objects, each kind sorted by namespace then
// name, with at most one object per kind, namespace and name: Add keeps it
// so (Add into a Snapshot built by hand assumes the same order). The zero
// value is empty and ready to use.
type Snapshot struct {
	DaemonSets []*appsv1.DaemonSet
	Nodes      []*corev1.Node
	Pods       []*corev1.Pod
	Revisions  []*appsv1.ControllerRevision
	// Notes say what Add read past or changed (objects of other kinds
	// or API versions, objects that replaced an earlier one, revision
	// data re-escaped), sorted by Reason, then What.
	Notes []Note
}

// Input is what daemon.Compute takes for one DaemonSet.
type Input struct {
	DaemonSet *appsv1.DaemonSet
	// Nodes are every node of the snapshot.
	Nodes []*corev1.Node
	// Pods are the pods of the DaemonSet's namespace.
	Pods []*corev1.Pod
	// Revisions are the ControllerRevisions of the DaemonSet's namespace;
	// nil when it has none (Compute then plans a first sync).
	Revisions []*appsv1.ControllerRevision
}

// NotFoundError is returned by For when the snapshot has no such
// DaemonSet. Known lists those it has, as "namespace/name".
type NotFoundError struct {
	Namespace, Name string
	Known           []string
}

// Error names the DaemonSet and the ones that exist.
func (e *NotFoundError) Error() string {
	if len(e.Known) == 0 {
		return fmt.Sprintf("daemonset %q not found: the input holds no DaemonSet", e.Namespace+"/"+e.Name)
	}
	return fmt.Sprintf("daemonset %q not found; the input holds %s", e.Namespace+"/"+e.Name, strings.Join(e.Known, ", "))
}

// Names returns the DaemonSets of s as "namespace/name", sorted.
func (s *Snapshot) Names() []string {
	out := make([]string, 0, len(s.DaemonSets))
	for _, ds := range s.DaemonSets {
		if ds == nil {
			continue
		}
		out = append(out, ds.Namespace+"/"+ds.Name)
	}
	return out
}

// For returns the inputs of daemon.Compute for the DaemonSet ns/name:
// the DaemonSet, every node, and the pods and revisions of its namespace,
// all s's own pointers (Compute modifies none). It returns a
// *NotFoundError when s has no such DaemonSet.
func (s *Snapshot) For(ns, name string) (Input, error) {
	// A linear search: a Snapshot built by hand need not be sorted.
	i := slices.IndexFunc(s.DaemonSets, func(d *appsv1.DaemonSet) bool { return d != nil && d.Namespace == ns && d.Name == name })
	if i < 0 {
		return Input{}, &NotFoundError{Namespace: ns, Name: name, Known: s.Names()}
	}
	in := Input{DaemonSet: s.DaemonSets[i], Nodes: s.Nodes}
	for _, p := range s.Pods {
		if p != nil && p.Namespace == ns {
			in.Pods = append(in.Pods, p)
		}
	}
	for _, r := range s.Revisions {
		if r != nil && r.Namespace == ns {
			in.Revisions = append(in.Revisions, r)
		}
	}
	return in, nil
}

// key identifies an object of one kind.
type key struct{ ns, name string }

func compareKey(a, b key) int {
	return cmp.Or(strings.Compare(a.ns, b.ns), strings.Compare(a.name, b.name))
}

// Newest returns the newest timestamp in s that records something past:
// creation timestamps, managedFields times, pod start times, condition transition
// and probe times, container start and finish times, node heartbeats.
// Deletion timestamps are left out: the API server sets them a grace
// period ahead. It is the best guess at when the snapshot was taken, the clock a plan of
// it should be computed at; zero when s holds no timestamp.
func (s *Snapshot) Newest() time.Time {
	var n newest
	for _, d := range s.DaemonSets {
		if d == nil {
			continue
		}
		n.meta(d.ObjectMeta)
		for _, c := range d.Status.Conditions {
			n.add(c.LastTransitionTime.Time)
		}
	}
	for _, r := range s.Revisions {
		if r == nil {
			continue
		}
		n.meta(r.ObjectMeta)
	}
	for _, node := range s.Nodes {
		if node == nil {
			continue
		}
		n.meta(node.ObjectMeta)
		for _, c := range node.Status.Conditions {
			n.add(c.LastHeartbeatTime.Time)
			n.add(c.LastTransitionTime.Time)
		}
	}
	for _, p := range s.Pods {
		if p == nil {
			continue
		}
		n.meta(p.ObjectMeta)
		if p.Status.StartTime != nil {
			n.add(p.Status.StartTime.Time)
		}
		for _, c := range p.Status.Conditions {
			n.add(c.LastProbeTime.Time)
			n.add(c.LastTransitionTime.Time)
		}
		for _, list := range [][]corev1.ContainerStatus{p.Status.InitContainerStatuses, p.Status.ContainerStatuses} {
			for _, cs := range list {
				if r := cs.State.Running; r != nil {
					n.add(r.StartedAt.Time)
				}
				if t := cs.State.Terminated; t != nil {
					n.add(t.StartedAt.Time)
					n.add(t.FinishedAt.Time)
				}
			}
		}
	}
	return n.t
}

// newest keeps the latest time it is given.
type newest struct{ t time.Time }

func (n *newest) add(t time.Time) {
	if t.After(n.t) {
		n.t = t
	}
}

func (n *newest) meta(m metav1.ObjectMeta) {
	n.add(m.CreationTimestamp.Time)
	for _, f := range m.ManagedFields {
		if f.Time != nil {
			n.add(f.Time.Time)
		}
	}
}
