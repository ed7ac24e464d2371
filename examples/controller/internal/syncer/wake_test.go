package syncer

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// TestNodeEventsWakeOnlyForWhatMatters counts the syncs each node event
// asks for (the DaemonSet keys it enqueues) with five DaemonSets that read
// different parts of a node. The evaluations of the placement check per
// event, for n DaemonSets: an update that leaves labels and taints alone,
// 0; any other update, 2n; an add or a delete, n.
func TestNodeEventsWakeOnlyForWhatMatters(t *testing.T) {
	zoneA := testDS("ns", "zone-a", func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.NodeSelector = map[string]string{"zone": "a"}
	})
	zoneB := testDS("ns", "zone-b", func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"b"}}},
			}}},
		}}
	})
	gpu := testDS("ns", "gpu", func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.NodeSelector = map[string]string{"gpu": "true"}
	})
	tolerant := testDS("ns", "tolerant", func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists}}
	})
	anywhere := testDS("other", "anywhere")

	base := testNode("n1", map[string]string{"zone": "a"})
	with := func(mutate func(*corev1.Node)) *corev1.Node {
		n := base.DeepCopy()
		n.ResourceVersion = "2"
		mutate(n)
		return n
	}
	taint := func(key string, effect corev1.TaintEffect) func(*corev1.Node) {
		return func(n *corev1.Node) { n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: key, Effect: effect}) }
	}
	tainted := with(taint("dedicated", corev1.TaintEffectNoSchedule))
	runsOnA := []string{"ns/tolerant", "ns/zone-a", "other/anywhere"}

	tests := []struct {
		name  string
		event string // add, update or delete
		old   *corev1.Node
		cur   *corev1.Node
		want  []string
	}{
		{name: "heartbeat", event: "update", old: base, cur: with(func(n *corev1.Node) {
			n.Status.Conditions[0].LastHeartbeatTime = metav1.NewTime(t0.Add(10 * time.Second))
		})},
		{name: "capacity change", event: "update", old: base, cur: with(func(n *corev1.Node) {
			n.Status.Capacity = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8")}
		})},
		{name: "Ready condition flips", event: "update", old: base, cur: with(func(n *corev1.Node) {
			n.Status.Conditions[0].Status = corev1.ConditionFalse
		})},
		{name: "resourceVersion only", event: "update", old: base, cur: with(func(*corev1.Node) {})},
		{name: "same resourceVersion, labels changed", event: "update", old: base, cur: func() *corev1.Node {
			n := base.DeepCopy()
			n.Labels["gpu"] = "true"
			return n
		}()},
		{name: "label read by nobody", event: "update", old: base, cur: with(func(n *corev1.Node) { n.Labels["team"] = "x" })},
		{name: "label read by one nodeSelector", event: "update", old: base, cur: with(func(n *corev1.Node) { n.Labels["gpu"] = "true" }),
			want: []string{"ns/gpu"}},
		{name: "zone a to b: a selector and an affinity", event: "update", old: base, cur: with(func(n *corev1.Node) { n.Labels["zone"] = "b" }),
			want: []string{"ns/zone-a", "ns/zone-b"}},
		{name: "NoSchedule taint one tolerates", event: "update", old: base, cur: tainted,
			want: []string{"ns/zone-a", "other/anywhere"}},
		{name: "NoSchedule taint none tolerates", event: "update", old: base, cur: with(taint("maintenance", corev1.TaintEffectNoSchedule)),
			want: runsOnA},
		{name: "NoExecute taint none tolerates", event: "update", old: base, cur: with(taint("maintenance", corev1.TaintEffectNoExecute)),
			want: runsOnA},
		{name: "PreferNoSchedule taint", event: "update", old: base, cur: with(taint("maintenance", corev1.TaintEffectPreferNoSchedule))},
		{name: "unschedulable flip", event: "update", old: base, cur: with(func(n *corev1.Node) { n.Spec.Unschedulable = true })},
		{name: "taint's timeAdded only", event: "update", old: tainted, cur: func() *corev1.Node {
			n := tainted.DeepCopy()
			n.ResourceVersion = "3"
			n.Spec.Taints[0].TimeAdded = &metav1.Time{Time: t0}
			return n
		}()},
		{name: "node joins zone a", event: "add", cur: base, want: runsOnA},
		{name: "node joins zone b with a gpu", event: "add", cur: testNode("n2", map[string]string{"zone": "b", "gpu": "true"}),
			want: []string{"ns/gpu", "ns/tolerant", "ns/zone-b", "other/anywhere"}},
		// Failed before: the add also woke zone-a and anywhere, which may
		// keep a pod there but may not start one, and a new node has none.
		{name: "tainted node joins", event: "add", cur: tainted, want: []string{"ns/tolerant"}},
		{name: "node deleted", event: "delete", old: base, want: runsOnA},
		// Pods kept under an untolerated NoSchedule taint count in status.
		{name: "tainted node deleted", event: "delete", old: tainted, want: runsOnA},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, Config{}, zoneA, zoneB, gpu, tolerant, anywhere)
			switch tt.event {
			case "add":
				h.c.addNode(tt.cur)
			case "update":
				h.c.updateNode(tt.old, tt.cur)
			case "delete":
				h.c.deleteNode(cache.DeletedFinalStateUnknown{Key: tt.old.Name, Obj: tt.old})
			}
			got := queued(h.c)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("enqueued (-want,+got):\n%s", diff)
			}
			if len(got) != len(tt.want) {
				t.Errorf("%d syncs, want %d", len(got), len(tt.want))
			}
		})
	}
}

func TestSamePlacementInputs(t *testing.T) {
	base := testNode("n1", map[string]string{"zone": "a"}, corev1.Taint{Key: "k", Value: "v", Effect: corev1.TaintEffectNoSchedule})
	tests := []struct {
		name   string
		mutate func(*corev1.Node)
		want   bool
	}{
		{name: "status and annotations", want: true, mutate: func(n *corev1.Node) {
			n.Status.Conditions = nil
			n.Annotations = map[string]string{"a": "b"}
			n.Spec.Unschedulable = true
		}},
		{name: "taint timeAdded", want: true, mutate: func(n *corev1.Node) { n.Spec.Taints[0].TimeAdded = &metav1.Time{Time: t0} }},
		{name: "label value", mutate: func(n *corev1.Node) { n.Labels["zone"] = "b" }},
		{name: "label removed", mutate: func(n *corev1.Node) { delete(n.Labels, "zone") }},
		{name: "taint value", mutate: func(n *corev1.Node) { n.Spec.Taints[0].Value = "w" }},
		{name: "taint effect", mutate: func(n *corev1.Node) { n.Spec.Taints[0].Effect = corev1.TaintEffectNoExecute }},
		{name: "taint removed", mutate: func(n *corev1.Node) { n.Spec.Taints = nil }},
		{name: "name", mutate: func(n *corev1.Node) { n.Name = "n2" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cur := base.DeepCopy()
			tt.mutate(cur)
			if got := samePlacementInputs(base, cur); got != tt.want {
				t.Errorf("samePlacementInputs = %v, want %v", got, tt.want)
			}
		})
	}
}
