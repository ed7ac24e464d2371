package syncer

import (
	"time"

	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
)

func TestNodeEventsEnqueueOnlyAffectedDaemonSets(t *testing.T) {
	// all: every node; poolA: nodeSelector pool=a; tolerant: tolerates
	// every taint.
	all := testDS("ns", "all")
	poolA := testDS("ns", "poola", func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.NodeSelector = map[string]string{"pool": "a"}
	})
	tolerant := testDS("other", "tolerant", func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
	})
	base := testNode("n1", map[string]string{"pool": "b"})
	with := func(mutate func(*corev1.Node)) *corev1.Node {
		n := base.DeepCopy()
		n.ResourceVersion = "2"
		mutate(n)
		return n
	}
	tests := []struct {
		name string
		old  *corev1.Node // nil: an add
		cur  *corev1.Node // nil: a delete of old
		want []string
	}{
		{name: "add: the DaemonSets that should run there", cur: base, want: []string{"ns/all", "other/tolerant"}},
		{name: "delete: the same", old: base, want: []string{"ns/all", "other/tolerant"}},
		{
			name: "a heartbeat changes no verdict",
			old:  base,
			cur: with(func(n *corev1.Node) {
				n.Status.Conditions[0].LastHeartbeatTime = metav1.Date(2026, 1, 1, 0, 0, 10, 0, time.UTC)
			}),
		},
		{
			name: "an unrelated label changes no verdict",
			old:  base,
			cur:  with(func(n *corev1.Node) { n.Labels["zone"] = "z1" }),
		},
		{
			name: "a label that joins the pool",
			old:  base,
			cur:  with(func(n *corev1.Node) { n.Labels["pool"] = "a" }),
			want: []string{"ns/poola"},
		},
		{
			name: "a NoSchedule taint: only the intolerant may no longer start pods",
			old:  base,
			cur: with(func(n *corev1.Node) {
				n.Spec.Taints = []corev1.Taint{{Key: "k", Effect: corev1.TaintEffectNoSchedule}}
			}),
			want: []string{"ns/all"},
		},
		{
			name: "cordoning changes nothing for daemon pods (they tolerate unschedulable)",
			old:  base,
			cur:  with(func(n *corev1.Node) { n.Spec.Unschedulable = true }),
		},
		{
			name: "the same resource version is ignored",
			old:  base,
			cur: func() *corev1.Node {
				n := base.DeepCopy()
				n.Labels["pool"] = "a"
				return n
			}(),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, Config{}, all, poolA, tolerant)
			switch {
			case tt.old == nil:
				h.c.addNode(tt.cur)
			case tt.cur == nil:
				h.c.deleteNode(cache.DeletedFinalStateUnknown{Key: tt.old.Name, Obj: tt.old})
			default:
				h.c.updateNode(tt.old, tt.cur)
			}
			if diff := cmp.Diff(tt.want, queued(h.c)); diff != "" {
				t.Errorf("enqueued (-want,+got):\n%s", diff)
			}
		})
	}
}

func TestPodAndRevisionEventsEnqueueOwnerOrMatchingDaemonSets(t *testing.T) {
	a := testDS("ns", "a")
	b := testDS("ns", "b")
	elsewhere := testDS("other", "a")
	owned := ownedPod(a, "pa", "n1")
	orphanB := ownedPod(b, "orphan", "n1")
	orphanB.OwnerReferences = nil
	foreign := ownedPod(a, "foreign", "n1")
	foreign.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "rs", Controller: ptrTo(true)}}
	staleOwner := ownedPod(a, "stale", "n1")
	staleOwner.OwnerReferences[0].UID = "an-older-a"
	relabelled := orphanB.DeepCopy()
	relabelled.ResourceVersion = "2"
	relabelled.Labels = map[string]string{"app": "a"}
	deleting := owned.DeepCopy()
	deleting.ResourceVersion = "2"
	deleting.DeletionTimestamp = &metav1.Time{}
	rev := &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{
		Namespace: "ns", Name: "a-1", ResourceVersion: "1", Labels: map[string]string{"app": "a"},
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(a, appsv1.SchemeGroupVersion.WithKind("DaemonSet"))},
	}}
	orphanRev := rev.DeepCopy()
	orphanRev.OwnerReferences = nil
	orphanRev.Labels = map[string]string{"app": "b"}

	tests := []struct {
		name string
		do   func(s *Syncer)
		want []string
	}{
		{name: "owned pod added", do: func(s *Syncer) { s.AddPod(owned) }, want: []string{"ns/a"}},
		{name: "orphan added: the DaemonSets that may adopt it", do: func(s *Syncer) { s.AddPod(orphanB) }, want: []string{"ns/b"}},
		{name: "pod of another controller", do: func(s *Syncer) { s.AddPod(foreign) }},
		{name: "owner reference with an old UID", do: func(s *Syncer) { s.AddPod(staleOwner) }},
		{name: "orphan relabelled to another selector", do: func(s *Syncer) { s.updatePod(orphanB, relabelled) }, want: []string{"ns/a"}},
		{name: "owned pod updated", do: func(s *Syncer) { s.updatePod(owned, deleting) }, want: []string{"ns/a"}},
		{name: "owned pod deleted", do: func(s *Syncer) { s.DeletePod(cache.DeletedFinalStateUnknown{Obj: owned}) }, want: []string{"ns/a"}},
		{name: "orphan deleted", do: func(s *Syncer) { s.DeletePod(orphanB) }},
		{name: "owned revision added", do: func(s *Syncer) { s.addRevision(rev) }, want: []string{"ns/a"}},
		{name: "orphan revision added", do: func(s *Syncer) { s.addRevision(orphanRev) }, want: []string{"ns/b"}},
		{name: "owned revision deleted", do: func(s *Syncer) { s.deleteRevision(rev) }, want: []string{"ns/a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, Config{}, a, b, elsewhere)
			tt.do(h.c)
			if diff := cmp.Diff(tt.want, queued(h.c)); diff != "" {
				t.Errorf("enqueued (-want,+got):\n%s", diff)
			}
		})
	}
}

func TestPodEventsFeedExpectations(t *testing.T) {
	a := testDS("ns", "a")
	h := newHarness(t, Config{}, a)
	p := ownedPod(a, "p", "n1")
	h.c.Expectations.Expect("ns/a", 1, []types.UID{"uid-p"})
	h.c.AddPod(p)
	if c, d := h.c.Expectations.Pending("ns/a"); c != 0 || d != 1 {
		t.Fatalf("after add: pending %d, %d; want 0, 1", c, d)
	}
	deleting := p.DeepCopy()
	deleting.ResourceVersion = "2"
	deleting.DeletionTimestamp = &metav1.Time{}
	h.c.updatePod(p, deleting)
	h.c.DeletePod(deleting) // observed twice, counted once
	if !h.c.Expectations.Satisfied("ns/a") {
		t.Error("not satisfied after the create and the delete were observed")
	}
	// A pod first seen while being deleted is a delete, not a create.
	h.c.Expectations.Expect("ns/a", 1, nil)
	h.c.AddPod(deleting)
	if c, _ := h.c.Expectations.Pending("ns/a"); c != 1 {
		t.Errorf("a deleting pod counted as a create")
	}
}

func ptrTo[T any](v T) *T { return &v }

func TestDeletedDaemonSetLeavesNoStateToItsSuccessor(t *testing.T) {
	a := testDS("ns", "a")
	h := newHarness(t, Config{}, a)
	h.c.Expectations.Expect("ns/a", 3, nil)
	h.c.deleteDaemonSet(cache.DeletedFinalStateUnknown{Key: "ns/a", Obj: a})
	if !h.c.Expectations.Satisfied("ns/a") {
		t.Error("the deleted DaemonSet's expectations would hold back its successor")
	}
	if diff := cmp.Diff([]string{"ns/a"}, queued(h.c)); diff != "" {
		t.Errorf("enqueued (-want,+got):\n%s", diff)
	}
}
