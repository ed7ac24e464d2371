package companion

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	k8stesting "k8s.io/client-go/testing"

	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

func cond(ds *appsv1.DaemonSet, t appsv1.DaemonSetConditionType) string {
	c := findCondition(ds.Status.Conditions, t)
	if c == nil {
		return "<none>"
	}
	return string(c.Status) + " " + c.Reason
}

// TestCompanionReplacesOneNodeAtATime: with max-unavailable 1 the companion
// deletes one old pod, then nothing while its delete is unobserved, while
// the node has no pod, and while the new pod is not available; then the
// next one. It never creates a pod or writes more than its conditions.
func TestCompanionReplacesOneNodeAtATime(t *testing.T) {
	ds := companionDS(map[string]string{progressive.AnnotationMaxUnavailable: "1"})
	rev, hash := revisionOf(t, ds)
	objs := []runtime.Object{ds, rev}
	old := map[string]*corev1.Pod{}
	for _, n := range []string{"n1", "n2", "n3"} {
		old[n] = daemonPod(ds, "old-"+n, n, "old", t0.Add(-2*time.Hour))
		objs = append(objs, testNode(n, nil), old[n])
	}
	h := newHarness(t, syncer.Config{}, objs...)

	steps := []struct {
		name       string
		before     func()
		wantWrites []string
		wantPods   []string
	}{{
		name:       "one old pod deleted, conditions written",
		wantWrites: []string{"delete pods", "patch daemonsets/status"},
		wantPods:   []string{"old-n2", "old-n3"},
	}, {
		name:     "nothing while the delete is not observed",
		wantPods: []string{"old-n2", "old-n3"},
	}, {
		// The message now says it waits for n1.
		name:       "nothing while n1 has no pod (kube-controller-manager's to create)",
		before:     func() { h.goneFromCache(old["n1"]) },
		wantWrites: []string{"patch daemonsets/status"},
		wantPods:   []string{"old-n2", "old-n3"},
	}, {
		name: "nothing while the new pod is not available",
		before: func() {
			p := daemonPod(ds, "new-n1", "n1", hash, time.Time{})
			if _, err := h.Client.CoreV1().Pods("ns").Create(context.Background(), p, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			h.Cache(p)
			h.Client.ClearActions()
		},
		wantPods: []string{"new-n1", "old-n2", "old-n3"},
	}, {
		name: "the next old pod once it is",
		before: func() {
			p := daemonPod(ds, "new-n1", "n1", hash, t0.Add(-time.Minute))
			h.Cache(p)
		},
		wantWrites: []string{"delete pods", "patch daemonsets/status"},
		wantPods:   []string{"new-n1", "old-n3"},
	}}
	for _, s := range steps {
		if s.before != nil {
			s.before()
		}
		h.Clock.Step(messageInterval) // no progress message is held back
		got := h.syncCompanion("ns/ds")
		if diff := cmp.Diff(s.wantWrites, got); diff != "" {
			t.Errorf("%s: writes (-want,+got):\n%s", s.name, diff)
		}
		if diff := cmp.Diff(s.wantPods, podNames(t, h)); diff != "" {
			t.Errorf("%s: pods (-want,+got):\n%s", s.name, diff)
		}
	}
	ds = h.refreshDS("ns", "ds")
	if got := cond(ds, ConditionProgressing); got != "True Updating" {
		t.Errorf("RolloutProgressing = %s", got)
	}
	if c := findCondition(ds.Status.Conditions, ConditionProgressing); !strings.Contains(c.Message, "1/3 nodes updated") || !strings.HasSuffix(c.Message, "(generation 1)") {
		t.Errorf("RolloutProgressing message %q", c.Message)
	}
}

// TestCompanionConditionsPatchTouchesOnlyConditions locks the shape of the
// status write: a strategic merge patch of status.conditions with the
// UID, on the status subresource, under the companion's field manager.
func TestCompanionConditionsPatchTouchesOnlyConditions(t *testing.T) {
	ds := companionDS(map[string]string{progressive.AnnotationPaused: "true"})
	ds.Status = appsv1.DaemonSetStatus{DesiredNumberScheduled: 1, ObservedGeneration: 1,
		Conditions: []appsv1.DaemonSetCondition{{Type: "SomeoneElses", Status: corev1.ConditionTrue}}}
	rev, _ := revisionOf(t, ds)
	h := newHarness(t, syncer.Config{}, ds, rev, testNode("n1", nil), daemonPod(ds, "old-n1", "n1", "old", t0.Add(-time.Hour)))
	if err := h.Mode.sync(context.Background(), "ns/ds"); err != nil {
		t.Fatal(err)
	}
	var patches []k8stesting.PatchAction
	for _, a := range h.Client.Actions() {
		if p, ok := a.(k8stesting.PatchAction); ok {
			patches = append(patches, p)
		}
	}
	if len(patches) != 1 {
		t.Fatalf("%d patches, want 1", len(patches))
	}
	p := patches[0]
	if p.GetSubresource() != "status" || p.GetPatchType() != types.StrategicMergePatchType {
		t.Errorf("patch of %q with %s", p.GetSubresource(), p.GetPatchType())
	}
	var body map[string]map[string]json.RawMessage
	if err := json.Unmarshal(p.GetPatch(), &body); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for top, m := range body {
		for k := range m {
			keys = append(keys, top+"."+k)
		}
	}
	slices.Sort(keys)
	if diff := cmp.Diff([]string{"metadata.uid", "status.conditions"}, keys); diff != "" {
		t.Errorf("patched fields (-want,+got):\n%s", diff)
	}
	got := h.refreshDS("ns", "ds")
	if got.Status.DesiredNumberScheduled != 1 || findCondition(got.Status.Conditions, "SomeoneElses") == nil {
		t.Errorf("the patch lost fields it does not own: %+v", got.Status)
	}
	if c := cond(got, ConditionPaused); c != "True PausedByAnnotation" {
		t.Errorf("RolloutPaused = %s", c)
	}
	if c := cond(got, ConditionProgressing); c != "False Paused" {
		t.Errorf("RolloutProgressing = %s", c)
	}
}

// TestCompanionRefusesWhatItCannotDo: invalid annotations, an OnDelete
// DaemonSet asking for surge, and rollout annotations on a RollingUpdate
// DaemonSet each get one Warning event naming the problem, across syncs,
// and no pod is deleted; a DaemonSet without rollout annotations is left
// alone.
func TestCompanionRefusesWhatItCannotDo(t *testing.T) {
	one := intstr.FromInt32(1)
	tests := []struct {
		name      string
		ds        *appsv1.DaemonSet
		wantEvent string // prefix of the one event; "" for none
		wantCond  string
		// wantGone are conditions the sync must have removed.
		wantGone []appsv1.DaemonSetConditionType
	}{{
		name:      "an invalid annotation",
		ds:        companionDS(map[string]string{progressive.AnnotationPartition: "x"}),
		wantEvent: "Warning InvalidAnnotations metadata.annotations[rollout.daemonplan.io/partition]: Invalid value: \"x\"",
		wantCond:  "False InvalidAnnotations",
	}, {
		name:      "an unknown key",
		ds:        companionDS(map[string]string{progressive.AnnotationPrefix + "max-surge": "1"}),
		wantEvent: "Warning InvalidAnnotations metadata.annotations[rollout.daemonplan.io/max-surge]",
		wantCond:  "False InvalidAnnotations",
	}, {
		name: "surge asked for in the OnDelete spec",
		ds: companionDS(map[string]string{progressive.AnnotationMaxUnavailable: "1"}, func(ds *appsv1.DaemonSet) {
			ds.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{MaxSurge: &one}
		}),
		wantEvent: "Warning SurgeUnsupported spec.updateStrategy.rollingUpdate.maxSurge",
		wantCond:  "False SurgeUnsupported",
	}, {
		name: "a RollingUpdate DaemonSet",
		ds: companionDS(map[string]string{progressive.AnnotationMaxUnavailable: "1"}, func(ds *appsv1.DaemonSet) {
			ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &one}}
		}),
		wantEvent: "Warning RolloutAnnotationsIgnored the rollout annotations will not be carried out: the companion rolls out only OnDelete DaemonSets",
		wantCond:  "False RolloutAnnotationsIgnored",
	}, {
		// Issue 37 §5: a RollingUpdate DaemonSet the companion rolled out
		// before (OnDelete then) keeps no stale condition but the one
		// saying its annotations are inert.
		name: "a DaemonSet turned RollingUpdate after a rollout",
		ds: companionDS(map[string]string{progressive.AnnotationCanary: "1"}, func(ds *appsv1.DaemonSet) {
			ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType}
			ds.Status.Conditions = []appsv1.DaemonSetCondition{
				{Type: ConditionProgressing, Status: corev1.ConditionTrue, Reason: ReasonComplete},
				{Type: ConditionStalled, Status: corev1.ConditionFalse, Reason: ReasonNotBlocked},
				{Type: ConditionReconciling, Status: corev1.ConditionFalse, Reason: ReasonComplete},
			}
		}),
		wantEvent: "Warning RolloutAnnotationsIgnored",
		wantCond:  "False RolloutAnnotationsIgnored",
		wantGone:  []appsv1.DaemonSetConditionType{ConditionStalled, ConditionReconciling},
	}, {
		name:      "a misspelt prefix on a DaemonSet not opted in",
		ds:        companionDS(map[string]string{"rollout.deamonplan.io/partition": "1"}),
		wantEvent: "Warning RolloutAnnotationMisspelt metadata.annotations[rollout.deamonplan.io/partition]: ignored, not a rollout annotation: did you mean rollout.daemonplan.io/partition?",
		wantCond:  "<none>",
	}, {
		name:     "no rollout annotation",
		ds:       companionDS(map[string]string{"example.com/owner": "team"}),
		wantCond: "<none>",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rev, _ := revisionOf(t, tt.ds)
			h := newHarness(t, syncer.Config{}, tt.ds, rev,
				testNode("n1", nil), daemonPod(tt.ds, "old-n1", "n1", "old", t0.Add(-time.Hour)),
				testNode("n2", nil), daemonPod(tt.ds, "old-n2", "n2", "old", t0.Add(-time.Hour)))
			var events []string
			for range 3 {
				for _, w := range h.syncCompanion("ns/ds") {
					if w != "patch daemonsets/status" {
						t.Errorf("write %s", w)
					}
				}
				events = append(events, h.Events()...)
			}
			switch {
			case tt.wantEvent == "" && len(events) > 0:
				t.Errorf("events %q, want none", events)
			case tt.wantEvent != "" && (len(events) != 1 || !strings.HasPrefix(events[0], tt.wantEvent)):
				t.Errorf("events %q, want one starting %q", events, tt.wantEvent)
			}
			after := h.refreshDS("ns", "ds")
			if got := cond(after, ConditionProgressing); got != tt.wantCond {
				t.Errorf("RolloutProgressing = %s, want %s", got, tt.wantCond)
			}
			for _, c := range tt.wantGone {
				if got := cond(after, c); got != "<none>" {
					t.Errorf("%s = %s, want it removed", c, got)
				}
			}
		})
	}
}

// TestCompanionPausesItselfAtTheDeadline: a new pod that never becomes
// ready blocks the rollout; at its progress deadline the companion reports
// RolloutBlocked with the cause and pauses; a restarted companion, reading
// only the DaemonSet, stays paused even once the pod is ready; changing the
// paused annotation resumes it.
func TestCompanionPausesItselfAtTheDeadline(t *testing.T) {
	ds := companionDS(map[string]string{progressive.AnnotationProgressDeadline: "10m"})
	// The companion has known the DaemonSet for an hour.
	ds.Status.Conditions = []appsv1.DaemonSetCondition{{Type: ConditionPaused, Status: corev1.ConditionFalse, Reason: ReasonNotPaused,
		LastTransitionTime: metav1.NewTime(t0.Add(-time.Hour))}}
	rev, hash := revisionOf(t, ds)
	objs := []runtime.Object{ds, rev, daemonPod(ds, "new-n1", "n1", hash, time.Time{})}
	for _, n := range []string{"n1", "n2", "n3"} {
		objs = append(objs, testNode(n, nil))
	}
	objs = append(objs, daemonPod(ds, "old-n2", "n2", "old", t0.Add(-2*time.Hour)), daemonPod(ds, "old-n3", "n3", "old", t0.Add(-2*time.Hour)))
	h := newHarness(t, syncer.Config{}, objs...)

	// The outcome annotation first (the latch's state), then the
	// conditions.
	if got := h.syncCompanion("ns/ds"); !slices.Equal(got, []string{"patch daemonsets", "patch daemonsets/status"}) {
		t.Errorf("writes at the deadline: %q", got)
	}
	got := h.refreshDS("ns", "ds")
	for c, want := range map[appsv1.DaemonSetConditionType]string{
		ConditionBlocked:     "True NewRevisionUnavailable",
		ConditionPaused:      "True ProgressDeadlineExceeded",
		ConditionProgressing: "False ProgressDeadlineExceeded",
	} {
		if g := cond(got, c); g != want {
			t.Errorf("%s = %s, want %s", c, g, want)
		}
	}
	if b := findCondition(got.Status.Conditions, ConditionBlocked); !strings.Contains(b.Message, "not becoming available on n1") {
		t.Errorf("RolloutBlocked message %q does not name n1", b.Message)
	}
	events := h.Events()
	if !hasEvent(events, "Warning RolloutBlocked") || !hasEvent(events, "Warning RolloutPaused") {
		t.Errorf("events %q", events)
	}

	// A new companion, the pod on n1 now ready: still paused.
	h2 := newHarness(t, syncer.Config{}, got, rev,
		testNode("n1", nil), testNode("n2", nil), testNode("n3", nil),
		daemonPod(ds, "new-n1", "n1", hash, t0.Add(-time.Minute)),
		daemonPod(ds, "old-n2", "n2", "old", t0.Add(-2*time.Hour)), daemonPod(ds, "old-n3", "n3", "old", t0.Add(-2*time.Hour)))
	// (The progress message changes: n1 is updated now.)
	if w := h2.syncCompanion("ns/ds"); !slices.Equal(w, []string{"patch daemonsets/status"}) {
		t.Errorf("self-paused, after a restart: writes %q", w)
	}
	if c := cond(h2.refreshDS("ns", "ds"), ConditionPaused); c != "True ProgressDeadlineExceeded" {
		t.Errorf("after a restart: RolloutPaused = %s", c)
	}

	// Resumed by the paused annotation: the next old pod goes.
	resumed := h2.refreshDS("ns", "ds").DeepCopy()
	resumed.Annotations[progressive.AnnotationPaused] = "false"
	if _, err := h2.Client.AppsV1().DaemonSets("ns").Update(context.Background(), resumed, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	h2.refreshDS("ns", "ds")
	h2.Writes()
	// The outcome no longer holds: removed.
	if w := h2.syncCompanion("ns/ds"); !slices.Equal(w, []string{"delete pods", "patch daemonsets", "patch daemonsets/status"}) {
		t.Errorf("resumed: writes %q", w)
	}
	got = h2.refreshDS("ns", "ds")
	if c := cond(got, ConditionPaused); c != "False NotPaused" {
		t.Errorf("RolloutPaused = %s", c)
	}
	if c := cond(got, ConditionBlocked); c != "False NotBlocked" {
		t.Errorf("RolloutBlocked = %s", c)
	}
	// A condition turned False says so, not what it said when True (the
	// patch once left the True message in place).
	for c, stale := range map[appsv1.DaemonSetConditionType]string{ConditionBlocked: "no node became updated", ConditionPaused: "paused itself"} {
		if m := findCondition(got.Status.Conditions, c).Message; m == "" || strings.Contains(m, stale) {
			t.Errorf("%s False: message %q, want one describing it now", c, m)
		}
	}
	if !hasEvent(h2.Events(), "Normal RolloutResumed") {
		t.Error("no RolloutResumed event")
	}
}

func TestHoldMessage(t *testing.T) {
	s := newMemory()
	have := []appsv1.DaemonSetCondition{condition(ConditionProgressing, true, ReasonUpdating, "1/3")}
	msg := []appsv1.DaemonSetCondition{condition(ConditionProgressing, true, ReasonUpdating, "2/3")}
	reason := []appsv1.DaemonSetCondition{condition(ConditionProgressing, true, ReasonComplete, "3/3")}
	steps := []struct {
		name    string
		at      time.Duration
		changes []appsv1.DaemonSetCondition
		want    time.Duration
	}{
		{name: "the first write goes at once", at: 0, changes: msg, want: 0},
		{name: "a message a second later waits", at: time.Second, changes: msg, want: messageInterval - time.Second},
		{name: "a new reason goes at once", at: 2 * time.Second, changes: reason, want: 0},
		{name: "nothing to write", at: 3 * time.Second, want: 0},
		{name: "a message after the interval goes", at: 2*time.Second + messageInterval, changes: msg, want: 0},
	}
	for _, st := range steps {
		if got := s.holdMessage("ns/ds", have, st.changes, t0.Add(st.at)); got != st.want {
			t.Errorf("%s: hold %s, want %s", st.name, got, st.want)
		}
	}
}

// TestCompanionWaitsForTheRevision: until kube-controller-manager's
// revision of the current template is in the cache, the companion deletes
// nothing (the plan's hash is then unconfirmed); once it is, it acts.
func TestCompanionWaitsForTheRevision(t *testing.T) {
	ds := companionDS(map[string]string{progressive.AnnotationMaxUnavailable: "1"})
	rev, _ := revisionOf(t, ds)
	objs := []runtime.Object{ds}
	for _, n := range []string{"n1", "n2"} {
		objs = append(objs, testNode(n, nil), daemonPod(ds, "old-"+n, n, "old", t0.Add(-time.Hour)))
	}
	h := newHarness(t, syncer.Config{}, objs...)
	for _, w := range h.syncCompanion("ns/ds") {
		if w != "patch daemonsets/status" {
			t.Errorf("without the revision: %s", w)
		}
	}
	h.Cache(rev)
	h.Clock.Step(messageInterval)
	if got := h.syncCompanion("ns/ds"); !slices.Equal(got, []string{"delete pods"}) {
		t.Errorf("with the revision: writes %q, want one delete", got)
	}
}

// TestPausedByAnnotationThenResumed: RolloutPaused True by the paused
// annotation, then False once it is removed, with a message saying it is
// not paused (it once kept "paused by the ... annotation").
func TestPausedByAnnotationThenResumed(t *testing.T) {
	ds := companionDS(map[string]string{progressive.AnnotationMaxUnavailable: "1", progressive.AnnotationPaused: "true"})
	rev, _ := revisionOf(t, ds)
	h := newHarness(t, syncer.Config{}, ds, rev, testNode("n1", nil), daemonPod(ds, "old-n1", "n1", "old", t0.Add(-time.Hour)))
	h.syncCompanion("ns/ds")
	paused := h.refreshDS("ns", "ds")
	if c := findCondition(paused.Status.Conditions, ConditionPaused); c == nil || c.Reason != ReasonPausedByAnnotation || !strings.Contains(c.Message, "paused by the") {
		t.Fatalf("RolloutPaused while annotated: %+v", c)
	}
	resumed := paused.DeepCopy()
	delete(resumed.Annotations, progressive.AnnotationPaused)
	if _, err := h.Client.AppsV1().DaemonSets("ns").Update(context.Background(), resumed, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.refreshDS("ns", "ds")
	h.Clock.Step(time.Minute)
	h.syncCompanion("ns/ds")
	c := findCondition(h.refreshDS("ns", "ds").Status.Conditions, ConditionPaused)
	if c == nil || c.Status != corev1.ConditionFalse || c.Reason != ReasonNotPaused {
		t.Fatalf("RolloutPaused once resumed: %+v", c)
	}
	if c.Message == "" || strings.Contains(c.Message, "paused by the") {
		t.Errorf("RolloutPaused False: message %q, want one describing it now", c.Message)
	}
}

// TestPartitionMessage: RolloutProgressing names the nodes the partition
// keeps on the old revision only when some run it. On a DaemonSet's first
// generation there is no old revision (it once said "the partition keeps 3
// on the old revision" all the same); with one old pod left under a
// partition of 3, the partition keeps one.
func TestPartitionMessage(t *testing.T) {
	for _, tt := range []struct {
		name     string
		oldNodes []string
		want     string
	}{
		{name: "first generation", want: "3/3 nodes updated (generation 1)"},
		{name: "one old pod", oldNodes: []string{"n3"}, want: "2/3 nodes updated; the partition keeps 1 on the old revision (generation 1)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ds := companionDS(map[string]string{progressive.AnnotationPartition: "3"})
			rev, hash := revisionOf(t, ds)
			objs := []runtime.Object{ds, rev}
			for _, n := range []string{"n1", "n2", "n3"} {
				h := hash
				if slices.Contains(tt.oldNodes, n) {
					h = "old"
				}
				objs = append(objs, testNode(n, nil), daemonPod(ds, "pod-"+n, n, h, t0.Add(-time.Hour)))
			}
			h := newHarness(t, syncer.Config{}, objs...)
			h.syncCompanion("ns/ds")
			if got := findCondition(h.refreshDS("ns", "ds").Status.Conditions, ConditionProgressing).Message; got != tt.want {
				t.Errorf("RolloutProgressing message:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}
