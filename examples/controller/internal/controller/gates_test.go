package controller

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/util/workqueue"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// afterQueue is the controller's queue, recording the waits of AddAfter.
type afterQueue struct {
	workqueue.TypedRateLimitingInterface[string]
	after []time.Duration
}

func (q *afterQueue) AddAfter(key string, d time.Duration) {
	q.after = append(q.after, d)
	q.TypedRateLimitingInterface.AddAfter(key, d)
}

// crashLooping is pod with its container waiting in CrashLoopBackOff.
func crashLooping(pod *corev1.Pod) *corev1.Pod {
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", RestartCount: 1,
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}}}
	return pod
}

// zoned are nodes a1, b1 and b2 (label zone=a, b, b) running the new
// revision on a1 and the old one on b1 and b2, and nodes of zone c
// running nothing, named missing.
func zoned(missing ...string) func(*appsv1.DaemonSet, string) []runtime.Object {
	return func(ds *appsv1.DaemonSet, hash string) []runtime.Object {
		old := t0.Add(-2 * time.Hour)
		objs := []runtime.Object{
			testNode("a1", map[string]string{"zone": "a"}), testNode("b1", map[string]string{"zone": "b"}), testNode("b2", map[string]string{"zone": "b"}),
			daemonPod(ds, "new-a1", "a1", hash, t0.Add(-time.Hour)),
			daemonPod(ds, "old-b1", "b1", "old", old), daemonPod(ds, "old-b2", "b2", "old", old),
		}
		for _, n := range missing {
			objs = append(objs, testNode(n, map[string]string{"zone": "c"}))
		}
		return objs
	}
}

// oldOn are nodes named names, each running an old pod.
func oldOn(names ...string) func(*appsv1.DaemonSet, string) []runtime.Object {
	return func(ds *appsv1.DaemonSet, _ string) []runtime.Object {
		var objs []runtime.Object
		for _, n := range names {
			objs = append(objs, testNode(n, nil), daemonPod(ds, "old-"+n, n, "old", t0.Add(-2*time.Hour)))
		}
		return objs
	}
}

// TestReplaceModeHonoursTheGates: in replace mode a DaemonSet's gates
// (progressive.Gates.Hold) hold its rollout as in companion mode: while
// held no old pod is replaced, but a missing pod is still created; the
// key is requeued at Hold.Next; a hold is said once, in an event, when it
// begins. Each case syncs twice (the second on the stale cache: no pod
// write, no second event).
func TestReplaceModeHonoursTheGates(t *testing.T) {
	ready := func(ds *appsv1.DaemonSet, hash string) []runtime.Object {
		return append(oldOn("n2", "n3")(ds, hash), testNode("n1", nil), daemonPod(ds, "new-n1", "n1", hash, t0.Add(-time.Hour)))
	}
	for _, tt := range []struct {
		name     string
		ds       *appsv1.DaemonSet // companionDS(ann) when nil
		ann      map[string]string
		approved string // the approved annotation's wave, at the current hash
		objs     func(ds *appsv1.DaemonSet, hash string) []runtime.Object
		at       time.Duration // after t0
		// wantPods are the pod writes; wantEvents the events' type and
		// reason but for the pods' SuccessfulCreate and SuccessfulDelete,
		// the first one's message containing wantMessage;
		// wantAfter the requeues of the first sync.
		wantPods    []string
		wantEvents  []string
		wantMessage string
		wantAfter   []time.Duration
	}{{
		name:        "approval point: no old pod replaced",
		ann:         map[string]string{progressive.AnnotationOrderBy: "zone", progressive.AnnotationPauseAfter: "a", progressive.AnnotationMaxUnavailable: "2"},
		objs:        zoned(),
		wantEvents:  []string{"Normal RolloutWaitingForApproval"},
		wantMessage: "waiting for approval after wave zone=a (kubectl dsplan rollout approve ns/ds)",
	}, {
		name:       "approval point: a missing pod is still created",
		ann:        map[string]string{progressive.AnnotationOrderBy: "zone", progressive.AnnotationPauseAfter: "a", progressive.AnnotationMaxUnavailable: "2"},
		objs:       zoned("c1"),
		wantPods:   []string{"create pods"},
		wantEvents: []string{"Normal RolloutWaitingForApproval"},
	}, {
		name:     "approved: the next wave goes",
		ann:      map[string]string{progressive.AnnotationOrderBy: "zone", progressive.AnnotationPauseAfter: "a", progressive.AnnotationMaxUnavailable: "2"},
		approved: "zone=a",
		objs:     zoned(),
		wantPods: []string{"delete pods", "delete pods"},
	}, {
		name:        "window closed: nothing replaced, requeued at the opening",
		ann:         map[string]string{progressive.AnnotationWindow: "* 08:00-09:00 UTC"},
		objs:        oldOn("n1", "n2"),
		wantEvents:  []string{"Normal RolloutOutsideWindow"},
		wantMessage: "outside the maintenance windows until 2026-01-01T08:00:00Z (* 08:00-09:00 UTC)",
		wantAfter:   []time.Duration{8 * time.Hour},
	}, {
		name:      "window open: replaced, requeued at the closing",
		ann:       map[string]string{progressive.AnnotationWindow: "* 08:00-09:00 UTC"},
		objs:      oldOn("n1", "n2"),
		at:        8*time.Hour + 30*time.Minute,
		wantPods:  []string{"delete pods"},
		wantAfter: []time.Duration{30 * time.Minute},
	}, {
		name: "health gate: no old pod replaced, one Warning",
		ann:  map[string]string{progressive.AnnotationMaxUnavailable: "2"},
		objs: func(ds *appsv1.DaemonSet, hash string) []runtime.Object {
			return append(oldOn("n2", "n3")(ds, hash), testNode("n1", nil), crashLooping(daemonPod(ds, "new-n1", "n1", hash, time.Time{})))
		},
		wantEvents:  []string{"Warning RolloutBlocked"},
		wantMessage: "HealthGateFailed: health gate failed: CrashLoopBackOff on pod new-n1 (node n1",
	}, {
		// Before, a pause-after naming no wave was no stop at all.
		name:        "pause-after naming no wave: no old pod replaced, one Warning",
		ann:         map[string]string{progressive.AnnotationOrderBy: "zone", progressive.AnnotationPauseAfter: "z", progressive.AnnotationMaxUnavailable: "2"},
		objs:        zoned(),
		wantEvents:  []string{"Warning RolloutBlocked"},
		wantMessage: `UnresolvedReference: pause-after "z" names no wave; waves: a, b`,
	}, {
		name:     "health gates pass: replaced",
		ann:      map[string]string{progressive.AnnotationMaxUnavailable: "2"},
		objs:     ready,
		wantPods: []string{"delete pods", "delete pods"},
	}, {
		name:        "on-failure rollback: said once, not carried out",
		ann:         map[string]string{progressive.AnnotationMaxUnavailable: "1", progressive.AnnotationOnFailure: "rollback"},
		objs:        oldOn("n1", "n2"),
		wantPods:    []string{"delete pods"},
		wantEvents:  []string{"Warning RollbackUnsupported"},
		wantMessage: "on-failure: rollback is carried out by companion mode only; replace mode pauses",
	}, {
		name:        "a window's zone unknown: nothing replaced, one Warning",
		ann:         map[string]string{progressive.AnnotationWindow: "* 08:00-17:00 Mars/Olympus_Mons"},
		objs:        oldOn("n1", "n2"),
		wantEvents:  []string{"Warning InvalidAnnotations"},
		wantMessage: "metadata.annotations[rollout.daemonplan.io/window]",
	}, {
		name: "no annotations: upstream's rolling update",
		ds: testDS("ns", "ds", func(ds *appsv1.DaemonSet) {
			one := intstr.FromInt32(1)
			ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &one}}
		}),
		objs:     oldOn("n1", "n2"),
		wantPods: []string{"delete pods"},
	}} {
		t.Run(tt.name, func(t *testing.T) {
			ds := tt.ds
			if ds == nil {
				ds = companionDS(tt.ann)
			}
			rev, hash := revisionOf(t, ds)
			if tt.approved != "" {
				ds.Annotations[progressive.AnnotationApproved] = progressive.Approval{Hash: hash, Wave: tt.approved}.String()
			}
			h := newHarness(t, syncer.Config{}, append([]runtime.Object{ds, rev}, tt.objs(ds, hash)...)...)
			h.Clock.SetTime(t0.Add(tt.at))
			q := &afterQueue{TypedRateLimitingInterface: h.Mode.Queue}
			h.Mode.Queue = q
			var pods []string
			for i := range 2 {
				if err := h.Mode.sync(context.Background(), "ns/ds"); err != nil {
					t.Fatalf("sync %d: %v", i, err)
				}
				if i == 0 {
					if diff := cmp.Diff(tt.wantAfter, q.after); diff != "" {
						t.Errorf("requeues (-want +got):\n%s", diff)
					}
				}
				for _, w := range h.Writes() {
					if strings.HasSuffix(w, " pods") {
						pods = append(pods, w)
					}
				}
			}
			if diff := cmp.Diff(tt.wantPods, pods); diff != "" {
				t.Errorf("pod writes (-want +got):\n%s", diff)
			}
			var events, got []string
			for _, e := range h.Events() {
				if ev := strings.Join(strings.Fields(e)[:2], " "); !strings.HasPrefix(ev, "Normal Successful") {
					events, got = append(events, e), append(got, ev)
				}
			}
			if diff := cmp.Diff(tt.wantEvents, got); diff != "" {
				t.Errorf("events (-want +got):\n%s\n%q", diff, events)
			}
			if tt.wantMessage != "" && len(events) > 0 && !strings.Contains(events[0], tt.wantMessage) {
				t.Errorf("event %q does not say %q", events[0], tt.wantMessage)
			}
		})
	}
}

// TestReplaceModeHealthGateIsNotLatched: replace mode writes no rollout
// conditions, so a failed health gate holds the rollout only while a
// new-revision pod fails: once it recovers the rollout goes on, and a
// new failure is said again.
func TestReplaceModeHealthGateIsNotLatched(t *testing.T) {
	ds := companionDS(map[string]string{progressive.AnnotationMaxUnavailable: "1"})
	rev, hash := revisionOf(t, ds)
	objs := append([]runtime.Object{ds, rev, testNode("n1", nil), crashLooping(daemonPod(ds, "new-n1", "n1", hash, time.Time{}))},
		oldOn("n2", "n3")(ds, hash)...)
	h := newHarness(t, syncer.Config{}, objs...)
	ctx := context.Background()
	for _, step := range []struct {
		name       string
		pod        *corev1.Pod // cached before the sync
		wantPods   []string
		wantEvents int
	}{
		{name: "failing", wantEvents: 1},
		{name: "still failing", wantEvents: 0},
		{name: "recovered", pod: daemonPod(ds, "new-n1", "n1", hash, t0.Add(-time.Minute)), wantPods: []string{"delete pods"}},
		{name: "failing again", pod: crashLooping(daemonPod(ds, "new-n1", "n1", hash, time.Time{})), wantEvents: 1},
	} {
		if step.pod != nil {
			h.Cache(step.pod)
		}
		if err := h.Mode.sync(ctx, "ns/ds"); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		var pods []string
		for _, w := range h.Writes() {
			if strings.HasSuffix(w, " pods") {
				pods = append(pods, w)
			}
		}
		if diff := cmp.Diff(step.wantPods, pods); diff != "" {
			t.Errorf("%s: pod writes (-want +got):\n%s", step.name, diff)
		}
		n := 0
		for _, e := range h.Events() {
			if hasEvent([]string{e}, "Warning RolloutBlocked HealthGateFailed: ") {
				n++
			}
		}
		if n != step.wantEvents {
			t.Errorf("%s: %d RolloutBlocked events, want %d", step.name, n, step.wantEvents)
		}
	}
}

// TestGatedOptions: only a DaemonSet with valid rollout annotations, not
// paused, is planned with a standing to be judged and held; any other
// costs nothing beyond its plan.
func TestGatedOptions(t *testing.T) {
	base := daemon.Options{Now: t0, BurstReplicas: 250}
	withRollout := func(p daemon.RolloutPolicy, standing bool) daemon.Options {
		o := base
		o.Rollout, o.ReportStanding = p, standing
		return o
	}
	for _, tt := range []struct {
		name      string
		ann       map[string]string
		want      daemon.Options
		wantGated bool
	}{
		{name: "no annotations", want: base},
		{name: "annotated", ann: map[string]string{progressive.AnnotationMaxUnavailable: "1"}, want: withRollout(daemon.RolloutPolicy{}, true), wantGated: true},
		{name: "paused by its annotation", ann: map[string]string{progressive.AnnotationPaused: "true"}, want: withRollout(daemon.RolloutPolicy{Paused: true}, false)},
		{name: "invalid", ann: map[string]string{progressive.AnnotationMaxUnavailable: "two"}, want: withRollout(daemon.RolloutPolicy{Paused: true}, false)},
	} {
		r, _ := progressive.ForDaemonSet(companionDS(tt.ann))
		got, gated := gatedOptions(r, base)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: options (-want +got):\n%s", tt.name, diff)
		}
		if gated != tt.wantGated {
			t.Errorf("%s: gated %v, want %v", tt.name, gated, tt.wantGated)
		}
	}
}
