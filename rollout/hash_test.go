package rollout_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/rollout"
)

// hashTemplate is a small pod template for the hash tests.
func hashTemplate(image string, labels map[string]string) *corev1.PodTemplateSpec {
	return &corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "agent", Image: image}},
		},
	}
}

func int32Ptr(v int32) *int32 { return &v }

// TestComputeHashConformance checks every scenario in which upstream
// created the first revision of a DaemonSet: the revision's hash is
// ComputeHash(&spec.template, status.collisionCount).
func TestComputeHashConformance(t *testing.T) {
	for _, fx := range loadHashFixtures(t) {
		t.Run(fx.Scenario, func(t *testing.T) {
			var tmpl corev1.PodTemplateSpec
			if err := json.Unmarshal(fx.Template, &tmpl); err != nil {
				t.Fatal(err)
			}
			if got := rollout.ComputeHash(&tmpl, fx.CollisionCount); got != fx.Hash {
				t.Errorf("ComputeHash() = %q, want %q (collisionCount %v)", got, fx.Hash, fx.CollisionCount)
			}
		})
	}
}

func TestComputeHash(t *testing.T) {
	base := hashTemplate("registry.example/agent:v1", map[string]string{"app": "agent"})
	// Known values, computed once from this implementation and confirmed
	// stable; upstream agreement is established by the conformance test.
	baseHash := rollout.ComputeHash(base, nil)
	tests := []struct {
		name           string
		template       *corev1.PodTemplateSpec
		collisionCount *int32
		// sameAs / differentFrom name hashes the result must equal or differ from.
		sameAs        []string
		differentFrom []string
	}{
		{
			name:     "a deep copy hashes like the original",
			template: base.DeepCopy(),
			sameAs:   []string{baseHash},
		},
		{
			name:           "a zero collision count differs from a nil one",
			template:       base,
			collisionCount: int32Ptr(0),
			differentFrom:  []string{baseHash},
		},
		{
			name:           "collision count 1 differs from 0",
			template:       base,
			collisionCount: int32Ptr(1),
			differentFrom:  []string{baseHash, rollout.ComputeHash(base, int32Ptr(0))},
		},
		{
			name:          "another image differs",
			template:      hashTemplate("registry.example/agent:v2", map[string]string{"app": "agent"}),
			differentFrom: []string{baseHash},
		},
		{
			name:          "another label differs",
			template:      hashTemplate("registry.example/agent:v1", map[string]string{"app": "agent", "tier": "node"}),
			differentFrom: []string{baseHash},
		},
		{
			name:     "a nil template hashes as the zero template",
			template: nil,
			sameAs:   []string{rollout.ComputeHash(&corev1.PodTemplateSpec{}, nil)},
		},
		{
			name:           "a nil template with a collision count hashes as the zero template with it",
			template:       nil,
			collisionCount: int32Ptr(-7), // negative: written as its uint32 bits
			sameAs:         []string{rollout.ComputeHash(&corev1.PodTemplateSpec{}, int32Ptr(-7))},
		},
		{
			name:          "an empty label map differs from a nil one (the dump shows the map)",
			template:      hashTemplate("registry.example/agent:v1", map[string]string{}),
			differentFrom: []string{rollout.ComputeHash(hashTemplate("registry.example/agent:v1", nil), nil)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := rollout.ComputeHash(tt.template, tt.collisionCount)
			checkHashAlphabet(t, got)
			for _, want := range tt.sameAs {
				if got != want {
					t.Errorf("ComputeHash() = %q, want %q", got, want)
				}
			}
			for _, other := range tt.differentFrom {
				if got == other {
					t.Errorf("ComputeHash() = %q, want a different hash", got)
				}
			}
		})
	}
}

// TestComputeHashKnownValues pins a few hashes so that a change of the
// rendering (a bump of k8s.io/api or k8s.io/utils adding a field) shows up
// here by name, not only as conformance failures. The values were computed
// by this implementation after it passed TestComputeHashConformance.
func TestComputeHashKnownValues(t *testing.T) {
	small := hashTemplate("registry.example/agent:v1", map[string]string{"app": "agent"})
	tests := []struct {
		name           string
		template       *corev1.PodTemplateSpec
		collisionCount *int32
		want           string
	}{
		{name: "small template without collision count", template: small, want: "85cbb55596"},
		{name: "small template with collision count 0", template: small, collisionCount: int32Ptr(0), want: "75c8bc4bc6"},
		{name: "small template with collision count 1", template: small, collisionCount: int32Ptr(1), want: "88b7b9d4f"},
		{name: "nil template", want: "54f4c57dcb"},
		{name: "zero template with collision count -7", template: &corev1.PodTemplateSpec{}, collisionCount: int32Ptr(-7), want: "54c978464b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := rollout.ComputeHash(tt.template, tt.collisionCount); got != tt.want {
				t.Errorf("ComputeHash() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestComputeHashDoesNotModifyInput(t *testing.T) {
	tmpl := hashTemplate("registry.example/agent:v1", map[string]string{"app": "agent"})
	cc := int32Ptr(3)
	before, beforeCC := tmpl.DeepCopy(), *cc
	_ = rollout.ComputeHash(tmpl, cc)
	if diff := cmp.Diff(before, tmpl); diff != "" {
		t.Errorf("ComputeHash() modified the template (-before +after):\n%s", diff)
	}
	if *cc != beforeCC {
		t.Errorf("ComputeHash() modified the collision count: %d, want %d", *cc, beforeCC)
	}
}

// checkHashAlphabet fails unless h is a decimal uint32 encoded with
// SafeEncodeString: 1 to 10 characters, each the image of a digit.
func checkHashAlphabet(t *testing.T, h string) {
	t.Helper()
	if len(h) == 0 || len(h) > 10 {
		t.Errorf("hash %q has length %d, want 1..10", h, len(h))
	}
	if i := strings.IndexFunc(h, func(r rune) bool { return !strings.ContainsRune("456789bcdf", r) }); i >= 0 {
		t.Errorf("hash %q has %q outside the encoded-digit alphabet", h, h[i])
	}
}

// FuzzComputeHash checks that the hash depends only on the template's
// value, that flipping the lowest bit of the collision count changes it (the
// inputs then differ in exactly one byte, which FNV-1a always separates),
// that a nil and a non-nil collision count differ (a 2^-32 chance of an FNV
// collision aside), and that the output uses the encoded-digit alphabet.
func FuzzComputeHash(f *testing.F) {
	f.Add("agent", "registry.example/agent:v1", "app", "agent", int32(0), true)
	f.Add("", "", "", "", int32(-1), false)
	f.Add("x", "y:\u00e9<&>", "k", "", int32(2147483647), true)
	f.Add("c", "i", "app", "agent", int32(-2147483648), true)
	f.Fuzz(func(t *testing.T, name, image, labelKey, labelValue string, cc int32, withCount bool) {
		tmpl := &corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{labelKey: labelValue}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: name, Image: image}}},
		}
		var count *int32
		if withCount {
			count = &cc
		}
		before := tmpl.DeepCopy()
		got := rollout.ComputeHash(tmpl, count)
		checkHashAlphabet(t, got)
		if diff := cmp.Diff(before, tmpl); diff != "" {
			t.Fatalf("ComputeHash() modified the template (-before +after):\n%s", diff)
		}
		if again := rollout.ComputeHash(before, count); again != got {
			t.Fatalf("ComputeHash(deep copy) = %q, want %q", again, got)
		}
		flipped := cc ^ 1
		if other := rollout.ComputeHash(tmpl, &flipped); other == rollout.ComputeHash(tmpl, &cc) {
			t.Fatalf("collision counts %d and %d hash alike: %q", cc, flipped, other)
		}
		if rollout.ComputeHash(tmpl, nil) == rollout.ComputeHash(tmpl, &cc) {
			t.Fatalf("nil and %d collision counts hash alike", cc)
		}
	})
}

func BenchmarkComputeHash(b *testing.B) {
	fixtures := loadHashFixtures(b)
	var tmpl corev1.PodTemplateSpec
	if err := json.Unmarshal(fixtures[0].Template, &tmpl); err != nil {
		b.Fatal(err)
	}
	b.Run("conformance-template", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = rollout.ComputeHash(&tmpl, fixtures[0].CollisionCount)
		}
	})
	small := hashTemplate("registry.example/agent:v1", map[string]string{"app": "agent"})
	b.Run("small-template", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = rollout.ComputeHash(small, nil)
		}
	})
}
