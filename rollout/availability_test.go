package rollout_test

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/rollout"
)

// availNow is the clock of the availability tests.
var availNow = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// podWithConditions returns a pod with the given status conditions.
func podWithConditions(conds ...corev1.PodCondition) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "agent-x"},
		Status:     corev1.PodStatus{Conditions: conds},
	}
}

// readySince is a Ready=True condition that last changed at t (zero: unset).
func readySince(t time.Time) corev1.PodCondition {
	return corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(t)}
}

func TestIsPodReady(t *testing.T) {
	tests := []struct {
		name string
		pod  *corev1.Pod
		want bool
	}{
		{name: "a nil pod is not ready", pod: nil},
		{name: "a pod without conditions is not ready", pod: podWithConditions()},
		{name: "Ready=True is ready", pod: podWithConditions(readySince(availNow)), want: true},
		{name: "Ready=False is not ready", pod: podWithConditions(corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionFalse})},
		{name: "Ready=Unknown is not ready", pod: podWithConditions(corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionUnknown})},
		{name: "other True conditions do not count", pod: podWithConditions(corev1.PodCondition{Type: corev1.ContainersReady, Status: corev1.ConditionTrue})},
		{
			name: "only the first Ready condition counts (False first)",
			pod:  podWithConditions(corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionFalse}, readySince(availNow)),
		},
		{
			name: "only the first Ready condition counts (True first)",
			pod:  podWithConditions(corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}, readySince(availNow), corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionFalse}),
			want: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := rollout.IsPodReady(tt.pod); got != tt.want {
				t.Errorf("IsPodReady() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestIsPodAvailableAndAvailableAt(t *testing.T) {
	tests := []struct {
		name            string
		pod             *corev1.Pod
		minReadySeconds int32
		wantAvailable   bool
		wantAt          time.Time
		wantOK          bool
	}{
		{name: "a nil pod is not available", pod: nil, minReadySeconds: 0},
		{name: "an unready pod is not available even with minReadySeconds 0", pod: podWithConditions(), minReadySeconds: 0},
		{name: "a ready pod with minReadySeconds 0 is available at once", pod: podWithConditions(readySince(availNow)), wantAvailable: true, wantOK: true},
		{name: "minReadySeconds 0 ignores an unset transition time", pod: podWithConditions(readySince(time.Time{})), wantAvailable: true, wantOK: true},
		{
			name: "ready exactly minReadySeconds ago is available (boundary)", pod: podWithConditions(readySince(availNow.Add(-30 * time.Second))),
			minReadySeconds: 30, wantAvailable: true, wantAt: availNow, wantOK: true,
		},
		{
			name: "ready one second short of minReadySeconds is not available", pod: podWithConditions(readySince(availNow.Add(-29 * time.Second))),
			minReadySeconds: 30, wantAt: availNow.Add(time.Second), wantOK: true,
		},
		{
			name: "ready 1s ago with minReadySeconds 1 is available", pod: podWithConditions(readySince(availNow.Add(-time.Second))),
			minReadySeconds: 1, wantAvailable: true, wantAt: availNow, wantOK: true,
		},
		{
			name: "an unset transition time with minReadySeconds never becomes available", pod: podWithConditions(readySince(time.Time{})),
			minReadySeconds: 1,
		},
		{
			name: "a transition in the future is not yet available", pod: podWithConditions(readySince(availNow.Add(time.Hour))),
			minReadySeconds: 5, wantAt: availNow.Add(time.Hour + 5*time.Second), wantOK: true,
		},
		{
			name: "negative minReadySeconds follows the formula: available before the transition", pod: podWithConditions(readySince(availNow.Add(10 * time.Second))),
			minReadySeconds: -10, wantAvailable: true, wantAt: availNow, wantOK: true,
		},
		{
			name: "negative minReadySeconds with an unset transition time is never available", pod: podWithConditions(readySince(time.Time{})),
			minReadySeconds: -10,
		},
		{
			name: "the largest minReadySeconds does not overflow", pod: podWithConditions(readySince(availNow)),
			minReadySeconds: math.MaxInt32, wantAt: availNow.Add(math.MaxInt32 * time.Second), wantOK: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := rollout.IsPodAvailable(tt.pod, tt.minReadySeconds, availNow); got != tt.wantAvailable {
				t.Errorf("IsPodAvailable() = %v, want %v", got, tt.wantAvailable)
			}
			at, ok := rollout.AvailableAt(tt.pod, tt.minReadySeconds)
			if ok != tt.wantOK || !at.Equal(tt.wantAt) {
				t.Errorf("AvailableAt() = %v, %v; want %v, %v", at, ok, tt.wantAt, tt.wantOK)
			}
		})
	}
}

func TestAvailabilityDoesNotModifyInput(t *testing.T) {
	pod := podWithConditions(corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}, readySince(availNow))
	before := pod.DeepCopy()
	_ = rollout.IsPodReady(pod)
	_ = rollout.IsPodAvailable(pod, 10, availNow)
	_, _ = rollout.AvailableAt(pod, 10)
	if diff := cmp.Diff(before, pod); diff != "" {
		t.Errorf("availability functions modified the pod (-before +after):\n%s", diff)
	}
}

func TestAvailabilityAllocs(t *testing.T) {
	pod := podWithConditions(corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}, readySince(availNow.Add(-time.Minute)))
	allocs := testing.AllocsPerRun(100, func() {
		_ = rollout.IsPodReady(pod)
		_ = rollout.IsPodAvailable(pod, 30, availNow)
		_, _ = rollout.AvailableAt(pod, 30)
	})
	if allocs != 0 {
		t.Errorf("availability functions allocate %v times per run, want 0", allocs)
	}
}

// upstreamAvailable restates upstream's availability rule for the fuzz
// oracle, from its definition rather than through AvailableAt.
func upstreamAvailable(pod *corev1.Pod, minReadySeconds int32, now time.Time) bool {
	if pod == nil {
		return false
	}
	for _, c := range pod.Status.Conditions {
		if c.Type != corev1.PodReady {
			continue
		}
		if c.Status != corev1.ConditionTrue {
			return false
		}
		d := time.Duration(minReadySeconds) * time.Second
		return minReadySeconds == 0 || (!c.LastTransitionTime.IsZero() && c.LastTransitionTime.Add(d).Compare(now) <= 0)
	}
	return false
}

// FuzzIsPodAvailable checks IsPodAvailable against upstream's formula and
// the stated link between IsPodAvailable and AvailableAt.
func FuzzIsPodAvailable(f *testing.F) {
	f.Add(int64(-30), int32(30), true, true, false)
	f.Add(int64(-29), int32(30), true, true, false)
	f.Add(int64(0), int32(0), false, true, true)
	f.Add(int64(10), int32(-10), true, true, false)
	f.Add(int64(0), int32(5), true, false, false)
	f.Fuzz(func(t *testing.T, offsetSeconds int64, minReadySeconds int32, ready, ltSet, falseFirst bool) {
		var conds []corev1.PodCondition
		if falseFirst {
			conds = append(conds, corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionFalse})
		}
		status := corev1.ConditionFalse
		if ready {
			status = corev1.ConditionTrue
		}
		c := corev1.PodCondition{Type: corev1.PodReady, Status: status}
		if ltSet {
			c.LastTransitionTime = metav1.NewTime(availNow.Add(time.Duration(offsetSeconds%(1<<32)) * time.Second))
		}
		pod := podWithConditions(append(conds, c)...)
		got := rollout.IsPodAvailable(pod, minReadySeconds, availNow)
		if want := upstreamAvailable(pod, minReadySeconds, availNow); got != want {
			t.Fatalf("IsPodAvailable() = %v, upstream rule gives %v", got, want)
		}
		at, ok := rollout.AvailableAt(pod, minReadySeconds)
		if link := ok && (minReadySeconds == 0 || !at.After(availNow)); link != got {
			t.Fatalf("IsPodAvailable() = %v but AvailableAt() = %v, %v", got, at, ok)
		}
		if ok != rollout.IsPodReady(pod) && (minReadySeconds == 0 || ltSet) {
			t.Fatalf("AvailableAt() ok = %v, IsPodReady() = %v", ok, rollout.IsPodReady(pod))
		}
	})
}

func TestAvailableSince(t *testing.T) {
	tests := []struct {
		name            string
		pod             *corev1.Pod
		minReadySeconds int32
		want            time.Time
	}{
		{name: "a nil pod has no instant", pod: nil},
		{name: "no Ready condition has no instant", pod: podWithConditions()},
		{name: "an unset transition time has no instant", pod: podWithConditions(readySince(time.Time{})), minReadySeconds: 10},
		{name: "minReadySeconds 0: the transition itself (AvailableAt gives none)", pod: podWithConditions(readySince(availNow)), want: availNow},
		{name: "minReadySeconds added to the transition", pod: podWithConditions(readySince(availNow)), minReadySeconds: 30, want: availNow.Add(30 * time.Second)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, rollout.AvailableSince(tc.pod, tc.minReadySeconds)); d != "" {
				t.Errorf("AvailableSince (-want +got):\n%s", d)
			}
		})
	}
}
