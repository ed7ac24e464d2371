package affinity_test

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/affinity"
)

func ExampleReplaceDaemonSetPodNodeNameNodeAffinity() {
	template := &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "kubernetes.io/os", Operator: corev1.NodeSelectorOpIn, Values: []string{"linux"}}},
		}}},
	}}
	bound := affinity.ReplaceDaemonSetPodNodeNameNodeAffinity(template, "node-1")

	req := bound.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchFields[0]
	fmt.Println("bound:", req.Key, req.Operator, req.Values)
	kept := template.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions[0]
	fmt.Println("template unchanged:", kept.Key, kept.Operator, kept.Values)
	// Output:
	// bound: metadata.name In [node-1]
	// template unchanged: kubernetes.io/os In [linux]
}

func ExampleGetTargetNodeName() {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "agent-x7k2p"}}
	p.Spec.Affinity = affinity.ReplaceDaemonSetPodNodeNameNodeAffinity(nil, "node-1")
	fmt.Println(affinity.GetTargetNodeName(p))

	p.Spec.Affinity = nil
	_, err := affinity.GetTargetNodeName(p)
	fmt.Println(errors.Is(err, affinity.ErrNoTargetNode))
	fmt.Println(err)
	// Output:
	// node-1 <nil>
	// true
	// pod "kube-system/agent-x7k2p": no target node: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution: Required value: needed when spec.nodeName is empty
}

func ExampleNewNodeMatcher() {
	spec := &corev1.PodSpec{
		NodeSelector: map[string]string{"kubernetes.io/os": "linux"},
		Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
				{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "example.com/pool", Operator: corev1.NodeSelectorOpIn, Values: []string{"infra", "gpu"}}}},
				{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"edge-7"}}}},
			}},
		}},
	}
	m := affinity.NewNodeMatcher(spec) // compile once...

	nodes := []*corev1.Node{
		{ObjectMeta: metav1.ObjectMeta{Name: "infra-1", Labels: map[string]string{"kubernetes.io/os": "linux", "example.com/pool": "infra"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "edge-1", Labels: map[string]string{"kubernetes.io/os": "linux", "example.com/pool": "edge"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "edge-7", Labels: map[string]string{"kubernetes.io/os": "linux", "example.com/pool": "edge"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "win-1", Labels: map[string]string{"kubernetes.io/os": "windows", "example.com/pool": "infra"}}},
	}
	for _, n := range nodes { // ...match many
		fmt.Println(n.Name, m.Match(n))
	}
	// Output:
	// infra-1 true
	// edge-1 false
	// edge-7 true
	// win-1 false
}

func ExampleNodeMatcher_Match() {
	var zero affinity.NodeMatcher
	fmt.Println("zero matcher, any node:", zero.Match(&corev1.Node{}))
	fmt.Println("zero matcher, nil node:", zero.Match(nil))

	// A node without a name skips matchFields, as in component-helpers.
	m := affinity.NewNodeMatcher(&corev1.PodSpec{Affinity: affinity.ReplaceDaemonSetPodNodeNameNodeAffinity(nil, "node-1")})
	fmt.Println("bound to node-1, node-2:", m.Match(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-2"}}))
	fmt.Println("bound to node-1, unnamed node:", m.Match(&corev1.Node{}))
	// Output:
	// zero matcher, any node: true
	// zero matcher, nil node: false
	// bound to node-1, node-2: false
	// bound to node-1, unnamed node: true
}

func ExampleNodeMatcher_Err() {
	m := affinity.NewNodeMatcher(&corev1.PodSpec{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
			{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "example.com/pool", Operator: corev1.NodeSelectorOpExists}}},
			// Not an operator: this term never matches, and Err says why.
			{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "example.com/pool", Operator: "Equals", Values: []string{"edge"}}}},
		}},
	}}})
	fmt.Println(m.Match(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"example.com/pool": "edge"}}}))
	fmt.Println(m.Err())
	// Output:
	// true
	// spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[1].matchExpressions[0].operator: Unsupported value: "Equals": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"
}

func ExampleMatchNode() {
	spec := &corev1.PodSpec{NodeSelector: map[string]string{"pool": "general"}}
	general := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{"pool": "general"}}}
	gpu := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "b", Labels: map[string]string{"pool": "gpu"}}}
	fmt.Println(affinity.MatchNode(spec, general), affinity.MatchNode(spec, gpu))
	// Output:
	// true false
}
