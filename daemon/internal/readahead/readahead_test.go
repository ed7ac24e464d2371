package readahead

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon/internal/namesort"
)

func TestLabelKey(t *testing.T) {
	required := func(terms ...corev1.NodeSelectorTerm) *corev1.Affinity {
		return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms},
		}}
	}
	exists := func(key string) corev1.NodeSelectorRequirement {
		return corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpExists}
	}
	byName := corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"n"}}}}
	tests := []struct {
		name string
		spec corev1.PodSpec
		want string
	}{
		{"nothing to read", corev1.PodSpec{}, ""},
		{"least nodeSelector key", corev1.PodSpec{NodeSelector: map[string]string{"zone": "a", "arch": "amd64", "os": "linux"}}, "arch"},
		{"nodeSelector before affinity", corev1.PodSpec{NodeSelector: map[string]string{"os": "linux"}, Affinity: required(corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{exists("a")}})}, "os"},
		{"first requirement of the first term with one", corev1.PodSpec{Affinity: required(byName, corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{exists("pool"), exists("zone")}})}, "pool"},
		{"fields only", corev1.PodSpec{Affinity: required(byName)}, ""},
		{"affinity without required terms", corev1.PodSpec{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{}}}, ""},
		{"no node affinity", corev1.PodSpec{Affinity: &corev1.Affinity{}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := LabelKey(&tt.spec); got != tt.want {
				t.Errorf("LabelKey = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestGatherEmptyObjects: the read-ahead functions read objects with no name,
// labels, taints, owners or conditions, owner references with and without a
// controller flag, and empty batches, without a panic.
func TestGatherEmptyObjects(t *testing.T) {
	controller := true
	nodes := []*corev1.Node{{}, {ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: map[string]string{"os": "linux"}}, Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: "k"}}}}}
	pods := []*corev1.Pod{{}, {
		ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: map[string]string{"a": "b"}, OwnerReferences: []metav1.OwnerReference{{UID: "u"}}},
		Spec:       corev1.PodSpec{NodeName: "n"},
		Status:     corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodReady}}},
	}, {
		ObjectMeta: metav1.ObjectMeta{Name: "q", Namespace: "ns", OwnerReferences: []metav1.OwnerReference{{UID: "u", Controller: &controller}}},
	}}
	keys := []namesort.Key{namesort.KeyOf("", 0), namesort.KeyOf("n", 1)}
	for _, labelKey := range []string{"", "os"} {
		Nodes(nodes, keys, labelKey)
		Nodes(nodes, nil, labelKey)
	}
	Names(nodes)
	Names(nil)
	Pods(pods)
	Pods(nil)
}
