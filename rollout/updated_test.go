package rollout_test

import (
	"errors"
	"math"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/rollout"
)

func int64Ptr(v int64) *int64 { return &v }

func TestGetTemplateGeneration(t *testing.T) {
	withAnnotation := func(v string) *appsv1.DaemonSet {
		return &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{
			Namespace: "kube-system", Name: "agent",
			Annotations: map[string]string{appsv1.DeprecatedTemplateGeneration: v},
		}}
	}
	tests := []struct {
		name    string
		ds      *appsv1.DaemonSet
		want    *int64
		wantErr bool
	}{
		{name: "a nil ds has no generation", ds: nil},
		{name: "no annotations means no generation", ds: &appsv1.DaemonSet{}},
		{name: "other annotations mean no generation", ds: &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"a": "1"}}}},
		{name: "generation 0 parses", ds: withAnnotation("0"), want: int64Ptr(0)},
		{name: "generation 1 parses", ds: withAnnotation("1"), want: int64Ptr(1)},
		{name: "a leading plus parses", ds: withAnnotation("+5"), want: int64Ptr(5)},
		{name: "a negative generation parses", ds: withAnnotation("-3"), want: int64Ptr(-3)},
		{name: "the largest int64 parses", ds: withAnnotation("9223372036854775807"), want: int64Ptr(math.MaxInt64)},
		{name: "one past the largest int64 is an error", ds: withAnnotation("9223372036854775808"), wantErr: true},
		{name: "an empty value is an error", ds: withAnnotation(""), wantErr: true},
		{name: "a hexadecimal value is an error", ds: withAnnotation("0x10"), wantErr: true},
		{name: "text is an error", ds: withAnnotation("seven"), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := rollout.GetTemplateGeneration(tt.ds)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("GetTemplateGeneration() mismatch (-want +got):\n%s", diff)
			}
			if !tt.wantErr {
				if err != nil {
					t.Fatalf("GetTemplateGeneration() error = %v, want none", err)
				}
				return
			}
			var fe *field.Error
			if !errors.As(err, &fe) {
				t.Fatalf("GetTemplateGeneration() error = %v, want a wrapped *field.Error", err)
			}
			want := &field.Error{
				Type:     field.ErrorTypeInvalid,
				Field:    "metadata.annotations[deprecated.daemonset.template.generation]",
				BadValue: tt.ds.Annotations[appsv1.DeprecatedTemplateGeneration],
			}
			if diff := cmp.Diff(want, fe, ignoreDetail); diff != "" {
				t.Errorf("GetTemplateGeneration() field error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// labelledPod returns pod ns/name with the given labels.
func labelledPod(name string, labels map[string]string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: name, Labels: labels}}
}

func TestIsPodUpdated(t *testing.T) {
	const hashKey, genKey = appsv1.ControllerRevisionHashLabelKey, "pod-template-generation"
	tests := []struct {
		name string
		pod  *corev1.Pod
		hash string
		gen  *int64
		want bool
	}{
		{name: "a nil pod is not updated", pod: nil, hash: "abc", gen: int64Ptr(1)},
		{name: "a matching hash is updated", pod: labelledPod("p", map[string]string{hashKey: "abc"}), hash: "abc", want: true},
		{name: "another hash is not updated", pod: labelledPod("p", map[string]string{hashKey: "abd"}), hash: "abc"},
		{name: "an empty hash never matches, even an empty label", pod: labelledPod("p", map[string]string{hashKey: ""}), hash: ""},
		{name: "no labels is not updated", pod: labelledPod("p", nil), hash: "abc", gen: int64Ptr(0)},
		{name: "a matching generation is updated", pod: labelledPod("p", map[string]string{genKey: "7"}), gen: int64Ptr(7), want: true},
		{name: "a matching generation wins over a stale hash", pod: labelledPod("p", map[string]string{hashKey: "old", genKey: "7"}), hash: "new", gen: int64Ptr(7), want: true},
		{name: "a nil generation ignores the generation label", pod: labelledPod("p", map[string]string{genKey: "7"}), hash: "abc"},
		{name: "another generation is not updated", pod: labelledPod("p", map[string]string{genKey: "6"}), gen: int64Ptr(7)},
		{name: "generation 0 matches label 0", pod: labelledPod("p", map[string]string{genKey: "0"}), gen: int64Ptr(0), want: true},
		{name: "generation 0 does not match a missing label", pod: labelledPod("p", map[string]string{}), gen: int64Ptr(0)},
		{name: "a zero-padded label does not match (string comparison)", pod: labelledPod("p", map[string]string{genKey: "07"}), gen: int64Ptr(7)},
		{name: "a plus-signed label does not match", pod: labelledPod("p", map[string]string{genKey: "+7"}), gen: int64Ptr(7)},
		{name: "a negative generation matches its decimal form", pod: labelledPod("p", map[string]string{genKey: "-2"}), gen: int64Ptr(-2), want: true},
		{name: "the smallest int64 matches its decimal form", pod: labelledPod("p", map[string]string{genKey: "-9223372036854775808"}), gen: int64Ptr(math.MinInt64), want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := rollout.IsPodUpdated(tt.pod, tt.hash, tt.gen); got != tt.want {
				t.Errorf("IsPodUpdated() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestUpdatedDoesNotModifyInput(t *testing.T) {
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{appsv1.DeprecatedTemplateGeneration: "3"}}}
	pod := labelledPod("p", map[string]string{"pod-template-generation": "3"})
	dsBefore, podBefore := ds.DeepCopy(), pod.DeepCopy()
	gen, _ := rollout.GetTemplateGeneration(ds)
	_ = rollout.IsPodUpdated(pod, "h", gen)
	if diff := cmp.Diff(dsBefore, ds); diff != "" {
		t.Errorf("GetTemplateGeneration() modified the DaemonSet (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(podBefore, pod); diff != "" {
		t.Errorf("IsPodUpdated() modified the pod (-before +after):\n%s", diff)
	}
}

func TestIsPodUpdatedAllocs(t *testing.T) {
	pod := labelledPod("p", map[string]string{"pod-template-generation": "123456789012"})
	gen := int64Ptr(123456789012)
	allocs := testing.AllocsPerRun(100, func() {
		if !rollout.IsPodUpdated(pod, "nope", gen) {
			t.Fatal("IsPodUpdated() = false, want true")
		}
	})
	if allocs != 0 {
		t.Errorf("IsPodUpdated() allocates %v times per run, want 0", allocs)
	}
}

// FuzzIsPodUpdated compares IsPodUpdated with the definition spelled out
// with strconv, and GetTemplateGeneration with strconv.ParseInt.
func FuzzIsPodUpdated(f *testing.F) {
	f.Add("abc", "abc", "7", int64(7), true)
	f.Add("", "", "", int64(0), true)
	f.Add("x", "y", "07", int64(7), true)
	f.Add("x", "y", "-9223372036854775808", int64(math.MinInt64), false)
	f.Fuzz(func(t *testing.T, label, hash, genLabel string, gen int64, withGen bool) {
		pod := labelledPod("p", map[string]string{
			appsv1.ControllerRevisionHashLabelKey: label,
			"pod-template-generation":             genLabel,
		})
		var g *int64
		if withGen {
			g = &gen
		}
		want := (hash != "" && label == hash) || (withGen && genLabel == strconv.FormatInt(gen, 10))
		if got := rollout.IsPodUpdated(pod, hash, g); got != want {
			t.Fatalf("IsPodUpdated(label %q, hash %q, gen label %q, gen %v) = %v, want %v", label, hash, genLabel, g, got, want)
		}
		ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{appsv1.DeprecatedTemplateGeneration: genLabel}}}
		got, err := rollout.GetTemplateGeneration(ds)
		n, perr := strconv.ParseInt(genLabel, 10, 64)
		if (err == nil) != (perr == nil) || (err == nil && (got == nil || *got != n)) || (err != nil && got != nil) {
			t.Fatalf("GetTemplateGeneration(%q) = %v, %v; strconv gives %d, %v", genLabel, got, err, n, perr)
		}
	})
}
