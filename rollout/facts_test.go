package rollout

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestPodFactsStateIsStateOf checks FactsOf(pod).State against StateOf
// over pods of every kind the judgement tells apart, for revisions,
// generations, minReadySeconds and clocks around them.
func TestPodFactsStateIsStateOf(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	deleting := metav1.NewTime(t0)
	pod := func(labels map[string]string, conds []corev1.PodCondition, del *metav1.Time) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: labels, DeletionTimestamp: del}, Status: corev1.PodStatus{Conditions: conds}}
	}
	ready := func(s corev1.ConditionStatus, at time.Time) []corev1.PodCondition {
		return []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}, {Type: corev1.PodReady, Status: s, LastTransitionTime: metav1.NewTime(at)}}
	}
	pods := map[string]*corev1.Pod{
		"nil":                 nil,
		"no labels":           pod(nil, nil, nil),
		"hash a, ready":       pod(map[string]string{appsv1.ControllerRevisionHashLabelKey: "a"}, ready(corev1.ConditionTrue, t0.Add(-30*time.Second)), nil),
		"hash b, not ready":   pod(map[string]string{appsv1.ControllerRevisionHashLabelKey: "b"}, ready(corev1.ConditionFalse, t0), nil),
		"generation 7":        pod(map[string]string{extensionsv1beta1.DaemonSetTemplateGenerationKey: "7"}, ready(corev1.ConditionTrue, time.Time{}), nil),
		"generation 07":       pod(map[string]string{extensionsv1beta1.DaemonSetTemplateGenerationKey: "07"}, nil, nil),
		"empty generation":    pod(map[string]string{extensionsv1beta1.DaemonSetTemplateGenerationKey: ""}, nil, nil),
		"deleting, ready now": pod(map[string]string{appsv1.ControllerRevisionHashLabelKey: "a"}, ready(corev1.ConditionTrue, t0), &deleting),
	}
	seven, zero := int64(7), int64(0)
	for name, p := range pods {
		facts := FactsOf(p)
		for _, hash := range []string{"", "a", "b"} {
			for _, gen := range []*int64{nil, &seven, &zero} {
				for _, minReady := range []int32{0, 10, 60, -5} {
					for _, now := range []time.Time{t0.Add(-time.Minute), t0, t0.Add(20 * time.Second), t0.Add(time.Hour)} {
						want := StateOf(p, hash, gen, minReady, now)
						if diff := cmp.Diff(want, facts.State(hash, gen, minReady, now)); diff != "" {
							t.Errorf("%s, hash %q, generation %v, minReady %d, now %v: (-StateOf +Facts.State):\n%s", name, hash, gen, minReady, now, diff)
						}
					}
				}
			}
		}
	}
}
