package controller

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

func TestMinorStatusChange(t *testing.T) {
	moving := appsv1.DaemonSetStatus{ObservedGeneration: 2, DesiredNumberScheduled: 10, CurrentNumberScheduled: 10, UpdatedNumberScheduled: 4, NumberReady: 9, NumberAvailable: 9, NumberUnavailable: 1}
	settled := appsv1.DaemonSetStatus{ObservedGeneration: 2, DesiredNumberScheduled: 10, CurrentNumberScheduled: 10, UpdatedNumberScheduled: 10, NumberReady: 10, NumberAvailable: 10}
	with := func(s appsv1.DaemonSetStatus, f func(*appsv1.DaemonSetStatus)) appsv1.DaemonSetStatus {
		f(&s)
		return s
	}
	tests := []struct {
		name        string
		stored, new appsv1.DaemonSetStatus
		onDelete    bool
		want        bool
	}{
		{name: "counters move", stored: moving, new: with(moving, func(s *appsv1.DaemonSetStatus) { s.UpdatedNumberScheduled = 5 }), want: true},
		{name: "settled", stored: moving, new: settled},
		{name: "all available, old pods left", stored: moving, new: with(settled, func(s *appsv1.DaemonSetStatus) { s.UpdatedNumberScheduled = 7 }), want: true},
		{name: "all available, old pods left, OnDelete: settled", stored: moving, new: with(settled, func(s *appsv1.DaemonSetStatus) { s.UpdatedNumberScheduled = 7 }), onDelete: true},
		{name: "settled but one misscheduled", stored: moving, new: with(settled, func(s *appsv1.DaemonSetStatus) { s.NumberMisscheduled = 1 }), want: true},
		{name: "a new generation observed", stored: with(moving, func(s *appsv1.DaemonSetStatus) { s.ObservedGeneration = 1 }), new: moving},
		{name: "a collision counted", stored: moving, new: with(moving, func(s *appsv1.DaemonSetStatus) { s.CollisionCount = ptr.To[int32](1) })},
		{name: "conditions change", stored: moving, new: with(moving, func(s *appsv1.DaemonSetStatus) {
			s.Conditions = []appsv1.DaemonSetCondition{{Type: "X", Status: corev1.ConditionTrue}}
		})},
		{name: "empty and nil conditions are the same", stored: with(moving, func(s *appsv1.DaemonSetStatus) { s.Conditions = []appsv1.DaemonSetCondition{} }),
			new: with(moving, func(s *appsv1.DaemonSetStatus) { s.NumberReady = 8 }), want: true},
		{name: "nothing desired is settled", stored: moving, new: appsv1.DaemonSetStatus{ObservedGeneration: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := testDS("ns", "ds", func(ds *appsv1.DaemonSet) { ds.Status = tt.stored })
			if tt.onDelete {
				ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
			} else {
				ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType}
			}
			if got := minorStatusChange(ds, tt.new); got != tt.want {
				t.Errorf("minorStatusChange = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestSyncHoldsCounterOnlyStatus follows one placement on the fake clock:
// the first status (a new generation observed) is written at once; while
// the pods come up, a status that only moves counters is written at most
// once per interval, the syncs in between write nothing; the settled
// status is written at once, however recent the last write.
func TestSyncHoldsCounterOnlyStatus(t *testing.T) {
	const interval = 500 * time.Millisecond
	ds := testDS("ns", "ds")
	objs := []runtime.Object{ds}
	for _, n := range []string{"n1", "n2", "n3"} {
		objs = append(objs, testNode(n, nil))
	}
	h := newHarness(t, syncer.Config{StatusWriteInterval: interval}, objs...)
	ctx := context.Background()
	// readyPods marks the first n pods of the fake API server Running and
	// Ready in the cache.
	readyPods := func(n int) {
		pods, err := h.Client.CoreV1().Pods("ns").List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range pods.Items[:n] {
			p := pods.Items[i].DeepCopy()
			p.ResourceVersion = "2"
			p.Spec.NodeName = p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchFields[0].Values[0]
			p.Status = corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}
			h.Cache(p)
		}
	}
	steps := []struct {
		name       string
		at         time.Duration
		ready      int // pods Ready in the cache before the sync
		wantStatus bool
		wantStored appsv1.DaemonSetStatus
	}{
		{name: "first sync: a new generation, written at once", at: 0, wantStatus: true,
			wantStored: appsv1.DaemonSetStatus{ObservedGeneration: 1, DesiredNumberScheduled: 3, NumberUnavailable: 3}},
		{name: "pods seen, not Ready: counters only, held", at: 100 * time.Millisecond,
			wantStored: appsv1.DaemonSetStatus{ObservedGeneration: 1, DesiredNumberScheduled: 3, NumberUnavailable: 3}},
		{name: "one Ready: held again", at: 300 * time.Millisecond, ready: 1,
			wantStored: appsv1.DaemonSetStatus{ObservedGeneration: 1, DesiredNumberScheduled: 3, NumberUnavailable: 3}},
		{name: "the interval is over: the newest status is written", at: 500 * time.Millisecond, ready: 2, wantStatus: true,
			wantStored: appsv1.DaemonSetStatus{ObservedGeneration: 1, DesiredNumberScheduled: 3, CurrentNumberScheduled: 3, UpdatedNumberScheduled: 3, NumberReady: 2, NumberAvailable: 2, NumberUnavailable: 1}},
		{name: "settled 100ms later: written at once", at: 600 * time.Millisecond, ready: 3, wantStatus: true,
			wantStored: appsv1.DaemonSetStatus{ObservedGeneration: 1, DesiredNumberScheduled: 3, CurrentNumberScheduled: 3, UpdatedNumberScheduled: 3, NumberReady: 3, NumberAvailable: 3}},
		{name: "nothing changes: nothing written", at: 700 * time.Millisecond, ready: 3,
			wantStored: appsv1.DaemonSetStatus{ObservedGeneration: 1, DesiredNumberScheduled: 3, CurrentNumberScheduled: 3, UpdatedNumberScheduled: 3, NumberReady: 3, NumberAvailable: 3}},
	}
	for i, st := range steps {
		h.Clock.SetTime(t0.Add(st.at))
		if i > 0 {
			h.Observe("ns")
			readyPods(st.ready)
		}
		if err := h.Mode.sync(ctx, "ns/ds"); err != nil {
			t.Fatalf("%s: sync: %v", st.name, err)
		}
		wrote := false
		for _, w := range h.Writes() {
			wrote = wrote || w == "update daemonsets/status"
		}
		if wrote != st.wantStatus {
			t.Errorf("%s: status written = %v, want %v", st.name, wrote, st.wantStatus)
		}
		stored, err := h.Client.AppsV1().DaemonSets("ns").Get(ctx, "ds", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(st.wantStored, stored.Status); d != "" {
			t.Errorf("%s: stored status (-want +got):\n%s", st.name, d)
		}
		h.Cache(stored) // the DaemonSet informer sees the write
	}
}
