package affinity_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/affinity"
)

// issueFixture is the allocation budget's fixture: a DaemonSet template
// with a nodeSelector and a two-term required affinity, and a node with ten
// labels and two taints.
func issueFixture() (*corev1.PodSpec, *corev1.Node) {
	spec := &corev1.PodSpec{
		NodeSelector: map[string]string{"kubernetes.io/os": "linux", "example.com/pool": "infra"},
		Affinity: terms(
			corev1.NodeSelectorTerm{
				MatchExpressions: []corev1.NodeSelectorRequirement{
					expr("topology.kubernetes.io/zone", corev1.NodeSelectorOpIn, "zone-a", "zone-b"),
					expr("example.com/cores", corev1.NodeSelectorOpGt, "4"),
				},
			},
			corev1.NodeSelectorTerm{
				MatchExpressions: []corev1.NodeSelectorRequirement{expr("example.com/legacy", corev1.NodeSelectorOpDoesNotExist)},
				MatchFields:      []corev1.NodeSelectorRequirement{expr("metadata.name", corev1.NodeSelectorOpNotIn, "node-7")},
			},
		),
	}
	n := node("node-42",
		"kubernetes.io/os", "linux",
		"kubernetes.io/arch", "amd64",
		"kubernetes.io/hostname", "node-42",
		"example.com/pool", "infra",
		"example.com/cores", "many", // not a number: the Gt requirement fails
		"example.com/rack", "r12",
		"topology.kubernetes.io/zone", "zone-c",
		"topology.kubernetes.io/region", "region-1",
		"node.kubernetes.io/instance-type", "m5.large",
		"example.com/team", "platform",
	)
	n.Spec.Taints = []corev1.Taint{
		{Key: "example.com/dedicated", Value: "infra", Effect: corev1.TaintEffectNoSchedule},
		{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule},
	}
	return spec, n
}

func TestNodeMatcherAllocs(t *testing.T) {
	spec, n := issueFixture()
	m := affinity.NewNodeMatcher(spec)
	if !m.Match(n) {
		t.Fatalf("fixture: Match() = false, want true (second term)")
	}
	other := n.DeepCopy()
	other.Labels["example.com/cores"] = "8"
	other.Labels["topology.kubernetes.io/zone"] = "zone-a"
	miss := n.DeepCopy()
	miss.Labels["example.com/legacy"] = "true"
	for _, fx := range []struct {
		name string
		node *corev1.Node
	}{
		{"second term matches, first fails on a non-numeric label", n},
		{"first term matches", other},
		{"no term matches", miss},
		{"nodeSelector fails", node("node-1")},
	} {
		allocs := testing.AllocsPerRun(100, func() { m.Match(fx.node) })
		// Budget: zero allocations per node.
		if allocs != 0 {
			t.Errorf("%s: Match allocates %v times per call, want 0", fx.name, allocs)
		}
		// The one-shot check compiles nothing, so it too has no allocation.
		if allocs := testing.AllocsPerRun(100, func() { affinity.MatchNode(spec, fx.node) }); allocs != 0 {
			t.Errorf("%s: MatchNode allocates %v times per call, want 0", fx.name, allocs)
		}
	}
}

// TestMatchNodeInvalidTermAllocs: a term that matches the node's labels but
// fails validation (an invalid key) is rejected without allocating; it once
// went to labels.NewRequirement, which builds an error per call.
func TestMatchNodeInvalidTermAllocs(t *testing.T) {
	spec := &corev1.PodSpec{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "Bad_Prefix.com/zone", Operator: corev1.NodeSelectorOpExists}},
		}}},
	}}}
	n := node("node-1")
	n.Labels = map[string]string{"Bad_Prefix.com/zone": "a"}
	if affinity.MatchNode(spec, n) {
		t.Fatalf("MatchNode() = true for a term with an invalid key, want false")
	}
	if allocs := testing.AllocsPerRun(100, func() { affinity.MatchNode(spec, n) }); allocs != 0 {
		t.Errorf("MatchNode allocates %v times per call, want 0", allocs)
	}
}
