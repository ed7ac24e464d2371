package affinity_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/affinity"
)

// gpuSpec requires a GPU instance type in one term, or the gpu pool label in
// another.
func gpuSpec() *corev1.PodSpec {
	return &corev1.PodSpec{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
			{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "node.kubernetes.io/instance-type", Operator: corev1.NodeSelectorOpIn, Values: []string{"g5.xlarge"}}}},
			{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "pool", Operator: corev1.NodeSelectorOpIn, Values: []string{"gpu"}}}},
		}},
	}}}
}

func ExampleNodeMatcher_Explain() {
	m := affinity.NewNodeMatcher(gpuSpec())
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{"node.kubernetes.io/instance-type": "m5.large"}}}
	mismatch, ok := m.Explain(node)
	fmt.Println("matches:", ok)
	for _, t := range mismatch.Terms {
		fmt.Printf("term %d: %s at matchExpressions[%d] (%s)\n", t.Term, t.Reason, t.Requirement, t.Key)
	}
	// Output:
	// matches: false
	// term 0: Unmatched at matchExpressions[0] (node.kubernetes.io/instance-type)
	// term 1: Unmatched at matchExpressions[0] (pool)
}

func ExampleNodeMatcher_Unsatisfiable() {
	spec := &corev1.PodSpec{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{
				{Key: "cores", Operator: corev1.NodeSelectorOpGt, Values: []string{"8"}},
				{Key: "cores", Operator: corev1.NodeSelectorOpLt, Values: []string{"4"}},
			},
		}}},
	}}}
	m := affinity.NewNodeMatcher(spec)
	fmt.Println("parse errors:", m.Err())
	fmt.Println(m.Unsatisfiable())
	// Output:
	// parse errors: <nil>
	// [spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key: Invalid value: "cores": can never match: no integer is greater than 8 and less than 4, spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Invalid value: 1: can never match: no term can match any node]
}

func ExampleNodeMatcher_MatchSet() {
	m := affinity.NewNodeMatcher(gpuSpec())
	for _, types := range [][]string{{"g5.xlarge"}, {"g5.xlarge", "m5.large"}, {"m5.large"}} {
		set, err := affinity.NewNodeSet("", map[string]string{"pool": "general"}, []corev1.NodeSelectorRequirement{
			{Key: "node.kubernetes.io/instance-type", Operator: corev1.NodeSelectorOpIn, Values: types},
		}, true)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(types, m.MatchSet(set).Truth)
	}
	// Output:
	// [g5.xlarge] Always
	// [g5.xlarge m5.large] Sometimes
	// [m5.large] Never
}
