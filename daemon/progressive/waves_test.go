package progressive

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonplan/daemonplan/daemon"
)

func TestWavesOf(t *testing.T) {
	const zone = "topology.kubernetes.io/zone"
	// Six nodes, two in each of zones a, b and c, given out of order.
	var nodes []*corev1.Node
	for _, z := range []string{"c", "a", "b"} {
		for i := 2; i >= 1; i-- {
			nodes = append(nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{
				Name: fmt.Sprintf("%s-%d", z, i), Labels: map[string]string{zone: z}}})
		}
	}
	nodes = append(nodes, nil)
	for _, tc := range []struct {
		name   string
		policy daemon.RolloutPolicy
		want   []Wave
	}{
		{"no order label, no canary", daemon.RolloutPolicy{}, nil},
		{"zones, b first", daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: zone, Values: []string{"b"}}}, []Wave{
			{Name: zone + "=b", Nodes: []string{"b-1", "b-2"}},
			{Name: zone + "=a", Nodes: []string{"a-1", "a-2"}},
			{Name: zone + "=c", Nodes: []string{"c-1", "c-2"}},
		}},
		{"a canary of 3 spread across the zones, then the zones", daemon.RolloutPolicy{
			Order:  daemon.UpdateOrder{Label: zone},
			Canary: &daemon.CanarySpec{Count: intstr.FromInt32(3), Spread: zone},
		}, []Wave{
			{Name: daemon.CanaryWave, Nodes: []string{"a-1", "b-1", "c-1"}},
			{Name: zone + "=a", Nodes: []string{"a-2"}},
			{Name: zone + "=b", Nodes: []string{"b-2"}},
			{Name: zone + "=c", Nodes: []string{"c-2"}},
		}},
		{"a canary without an order label, then the rest", daemon.RolloutPolicy{
			Canary: &daemon.CanarySpec{Count: intstr.FromInt32(1)},
		}, []Wave{
			{Name: daemon.CanaryWave, Nodes: []string{"a-1"}},
			{Name: daemon.RestWave, Nodes: []string{"a-2", "b-1", "b-2", "c-1", "c-2"}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, WavesOf(&tc.policy, nodes)); diff != "" {
				t.Errorf("WavesOf (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWaveBakeWithCanary: wave-bake needs order-by or canary, since a
// canary alone makes two waves (the canary and the rest) to bake between.
func TestWaveBakeWithCanary(t *testing.T) {
	a, err := ParseAnnotations(map[string]string{AnnotationCanary: "1", AnnotationWaveBake: "5m"})
	if err != nil {
		t.Fatalf("canary with wave-bake and no order-by: %v", err)
	}
	type got struct {
		Canary *daemon.CanarySpec
		Bake   *time.Duration
	}
	g := got{Canary: a.Policy.Canary}
	if a.Policy.Waves != nil {
		g.Bake = &a.Policy.Waves.Bake
	}
	bake := 5 * time.Minute
	if diff := cmp.Diff(got{Canary: &daemon.CanarySpec{Count: intstr.FromInt32(1)}, Bake: &bake}, g); diff != "" {
		t.Errorf("policy (-want +got):\n%s", diff)
	}
	if err := a.Policy.Validate(); err != nil {
		t.Errorf("the parsed policy does not validate: %v", err)
	}
}
