package daemon_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
)

// actions is the comparable shape of a plan's pod actions: "node/Reason"
// for creates, "pod/Reason" for deletes.
type actions struct {
	Creates []string
	Deletes []string
}

func actionsOf(p daemon.Plan) actions {
	var a actions
	for _, c := range p.Creates {
		a.Creates = append(a.Creates, c.NodeName+"/"+string(c.Reason))
	}
	for _, d := range p.Deletes {
		a.Deletes = append(a.Deletes, d.Pod.Name+"/"+string(d.Reason))
	}
	return a
}

func TestComputeReasons(t *testing.T) {
	fluentd := dt.DaemonSet("fluentd")
	surge := dt.DaemonSet("fluentd", dt.WithMaxUnavailable("0"), dt.WithMaxSurge("1"))
	selective := dt.DaemonSet("fluentd", dt.WithNodeSelector("pool", "gpu"))
	old := dt.WithHash("old")
	notReady := dt.NotReadyPod()
	earlier := dt.CreatedAt(dt.Epoch.Add(-2 * time.Hour))

	tests := []struct {
		name  string
		ds    *appsv1.DaemonSet
		nodes []*corev1.Node
		pods  []*corev1.Pod
		want  actions
	}{
		{
			name:  "every eligible node without a pod gets one",
			ds:    fluentd,
			nodes: []*corev1.Node{dt.Node("n2"), dt.Node("n1"), dt.Node("n3", dt.WithTaint("dedicated", "db", corev1.TaintEffectNoSchedule))},
			want:  actions{Creates: []string{"n1/NodeNeedsPod", "n2/NodeNeedsPod"}},
		},
		{
			name:  "a failed pod is deleted",
			ds:    fluentd,
			nodes: []*corev1.Node{dt.Node("n1")},
			pods:  []*corev1.Pod{dt.Pod(fluentd, "p1", "n1", dt.WithPhase(corev1.PodFailed))},
			want:  actions{Deletes: []string{"p1/PodFailed"}},
		},
		{
			name:  "only the first failed pod of a node passes the backoff in one sync",
			ds:    fluentd,
			nodes: []*corev1.Node{dt.Node("n1")},
			pods: []*corev1.Pod{
				dt.Pod(fluentd, "p2", "n1", dt.WithPhase(corev1.PodFailed)),
				dt.Pod(fluentd, "p1", "n1", dt.WithPhase(corev1.PodFailed)),
			},
			want: actions{Deletes: []string{"p1/PodFailed"}},
		},
		{
			name:  "a succeeded pod is deleted",
			ds:    fluentd,
			nodes: []*corev1.Node{dt.Node("n1")},
			pods:  []*corev1.Pod{dt.Pod(fluentd, "p1", "n1", dt.WithPhase(corev1.PodSucceeded))},
			want:  actions{Deletes: []string{"p1/PodSucceeded"}},
		},
		{
			name:  "without surge all but the oldest running pod of a node go",
			ds:    fluentd,
			nodes: []*corev1.Node{dt.Node("n1")},
			pods: []*corev1.Pod{
				dt.Pod(fluentd, "a-young", "n1"),
				dt.Pod(fluentd, "z-old", "n1", earlier),
				dt.Pod(fluentd, "b-young", "n1"),
			},
			want: actions{Deletes: []string{"a-young/ExcessPod", "b-young/ExcessPod"}},
		},
		{
			name:  "a pod on a node its selector no longer matches is deleted",
			ds:    selective,
			nodes: []*corev1.Node{dt.Node("n1")},
			pods:  []*corev1.Pod{dt.Pod(selective, "p1", "n1")},
			want:  actions{Deletes: []string{"p1/NodeIneligible"}},
		},
		{
			name:  "a pod on a node with an untolerated NoExecute taint is deleted",
			ds:    fluentd,
			nodes: []*corev1.Node{dt.Node("n1", dt.WithTaint("evict", "", corev1.TaintEffectNoExecute))},
			pods:  []*corev1.Pod{dt.Pod(fluentd, "p1", "n1")},
			want:  actions{Deletes: []string{"p1/NodeIneligible"}},
		},
		{
			name:  "a pod on a node with an untolerated NoSchedule taint stays",
			ds:    fluentd,
			nodes: []*corev1.Node{dt.Node("n1", dt.WithTaint("dedicated", "", corev1.TaintEffectNoSchedule))},
			pods:  []*corev1.Pod{dt.Pod(fluentd, "p1", "n1")},
			want:  actions{},
		},
		{
			name:  "a never-scheduled pod bound to a missing node is deleted",
			ds:    fluentd,
			nodes: []*corev1.Node{dt.Node("n1")},
			pods:  []*corev1.Pod{dt.Pod(fluentd, "p1", "n1"), dt.Pod(fluentd, "p2", "gone", dt.Unscheduled())},
			want:  actions{Deletes: []string{"p2/NodeMissing"}},
		},
		{
			name:  "a scheduled pod on a missing node is left alone",
			ds:    fluentd,
			nodes: []*corev1.Node{dt.Node("n1")},
			pods:  []*corev1.Pod{dt.Pod(fluentd, "p1", "n1"), dt.Pod(fluentd, "p2", "gone")},
			want:  actions{},
		},
		{
			name:  "with surge an old pod goes once its new pod is available",
			ds:    surge,
			nodes: []*corev1.Node{dt.Node("n1")},
			pods:  []*corev1.Pod{dt.Pod(surge, "p-old", "n1", old, earlier), dt.Pod(surge, "p-new", "n1")},
			want:  actions{Deletes: []string{"p-old/SurgeReplaced"}},
		},
		{
			name:  "an old available pod is replaced within maxUnavailable",
			ds:    fluentd,
			nodes: []*corev1.Node{dt.Node("n1"), dt.Node("n2")},
			pods:  []*corev1.Pod{dt.Pod(fluentd, "p2", "n2", old), dt.Pod(fluentd, "p1", "n1", old)},
			want:  actions{Deletes: []string{"p1/RollingUpdate"}},
		},
		{
			name:  "old pods that are not available are replaced at once",
			ds:    fluentd,
			nodes: []*corev1.Node{dt.Node("n1"), dt.Node("n2")},
			pods:  []*corev1.Pod{dt.Pod(fluentd, "p1", "n1", old, notReady), dt.Pod(fluentd, "p2", "n2", old, notReady)},
			want:  actions{Deletes: []string{"p1/ReplaceUnavailable", "p2/ReplaceUnavailable"}},
		},
		{
			name:  "with surge a new pod is created beside an old available one within maxSurge",
			ds:    surge,
			nodes: []*corev1.Node{dt.Node("n1"), dt.Node("n2")},
			pods:  []*corev1.Pod{dt.Pod(surge, "p1", "n1", old), dt.Pod(surge, "p2", "n2", old)},
			want:  actions{Creates: []string{"n1/Surge"}},
		},
		{
			name:  "with surge a new pod is created beside an unavailable old one at once",
			ds:    surge,
			nodes: []*corev1.Node{dt.Node("n1"), dt.Node("n2")},
			pods:  []*corev1.Pod{dt.Pod(surge, "p1", "n1", old, notReady), dt.Pod(surge, "p2", "n2", old, notReady)},
			want:  actions{Creates: []string{"n1/SurgeForUnavailable", "n2/SurgeForUnavailable"}},
		},
		{
			name:  "with surge an old pod on a node that may not run a new one goes while availability allows",
			ds:    surge,
			nodes: []*corev1.Node{dt.Node("n1"), dt.Node("n2", dt.WithTaint("dedicated", "", corev1.TaintEffectNoSchedule))},
			pods:  []*corev1.Pod{dt.Pod(surge, "p1", "n1"), dt.Pod(surge, "p2", "n2", old)},
			want:  actions{Deletes: []string{"p2/IneligibleUnderSurge"}},
		},
		{
			name:  "OnDelete never replaces old pods",
			ds:    dt.DaemonSet("fluentd", dt.OnDelete()),
			nodes: []*corev1.Node{dt.Node("n1")},
			pods:  []*corev1.Pod{dt.Pod(fluentd, "p1", "n1", old)},
			want:  actions{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := daemon.Compute(tt.ds, tt.nodes, tt.pods, daemon.Options{Now: dt.Epoch})
			if err != nil {
				t.Fatalf("Compute() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, actionsOf(plan), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Compute() actions mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSkipOf(t *testing.T) {
	all := dt.DaemonSet("fluentd")
	all.Spec.Selector = &metav1.LabelSelector{}
	deleting := dt.DaemonSet("fluentd")
	deleting.DeletionTimestamp = &metav1.Time{Time: dt.Epoch}
	both := all.DeepCopy()
	both.DeletionTimestamp = &metav1.Time{Time: dt.Epoch}
	emptyLabels := dt.DaemonSet("fluentd")
	emptyLabels.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{}}
	tests := []struct {
		name string
		ds   *appsv1.DaemonSet
		want daemon.Skip
	}{
		{name: "nil", ds: nil, want: daemon.SkipNone},
		{name: "a DaemonSet with a selector is planned", ds: dt.DaemonSet("fluentd"), want: daemon.SkipNone},
		{name: "the empty selector selects every pod", ds: all, want: daemon.SkipSelectsAll},
		{name: "a DaemonSet being deleted", ds: deleting, want: daemon.SkipDeleting},
		{name: "the selector is checked first", ds: both, want: daemon.SkipSelectsAll},
		// Like upstream's reflect.DeepEqual: empty but non-nil matchLabels
		// is not {}.
		{name: "empty non-nil matchLabels is planned", ds: emptyLabels, want: daemon.SkipNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := daemon.SkipOf(tt.ds); got != tt.want {
				t.Errorf("SkipOf() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestComputeSkips(t *testing.T) {
	all := dt.DaemonSet("fluentd")
	all.Spec.Selector = &metav1.LabelSelector{}
	deleting := dt.DaemonSet("fluentd")
	deleting.DeletionTimestamp = &metav1.Time{Time: dt.Epoch}
	tests := []struct {
		name string
		ds   *appsv1.DaemonSet
		want daemon.Skip
	}{
		{name: "the empty selector selects every pod", ds: all, want: daemon.SkipSelectsAll},
		{name: "a DaemonSet being deleted is left alone", ds: deleting, want: daemon.SkipDeleting},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nodes := []*corev1.Node{dt.Node("n1")}
			pods := []*corev1.Pod{dt.Pod(tt.ds, "p1", "n1", dt.WithPhase(corev1.PodFailed))}
			plan, err := daemon.Compute(tt.ds, nodes, pods, daemon.Options{Now: dt.Epoch})
			if err != nil {
				t.Fatalf("Compute() error = %v", err)
			}
			if plan.Skip != tt.want {
				t.Errorf("Compute().Skip = %q, want %q", plan.Skip, tt.want)
			}
			if !plan.IsZero() || plan.Hash != "" || plan.StatusChanged {
				t.Errorf("Compute() = %+v, want a plan with no actions", plan)
			}
		})
	}
}
