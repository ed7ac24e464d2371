package rollout_test

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/rollout"
)

func ExampleGetTemplateGeneration() {
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{
		Namespace: "kube-system", Name: "fluentd",
		Annotations: map[string]string{appsv1.DeprecatedTemplateGeneration: "7"},
	}}
	gen, err := rollout.GetTemplateGeneration(ds)
	fmt.Println(*gen, err)

	ds.Annotations[appsv1.DeprecatedTemplateGeneration] = "seven"
	_, err = rollout.GetTemplateGeneration(ds)
	fmt.Println(err)
	// Output:
	// 7 <nil>
	// metadata.annotations[deprecated.daemonset.template.generation]: Invalid value: "seven": must be a base-10 64-bit integer
}

func ExampleIsPodUpdated() {
	gen := int64(7)
	pods := []*corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Name: "by-hash", Labels: map[string]string{"controller-revision-hash": "5d8f9c"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "by-generation", Labels: map[string]string{"pod-template-generation": "7"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "stale", Labels: map[string]string{"controller-revision-hash": "6b7d4f", "pod-template-generation": "6"}}},
	}
	for _, pod := range pods {
		fmt.Println(pod.Name, rollout.IsPodUpdated(pod, "5d8f9c", &gen))
	}
	// Output:
	// by-hash true
	// by-generation true
	// stale false
}
