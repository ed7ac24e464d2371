package rollout_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/rollout"
)

func ExampleComputeHash() {
	template := &corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "agent"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: "registry.example/agent:v1"}}},
	}
	fmt.Println(rollout.ComputeHash(template, nil))
	// After a name collision the controller bumps status.collisionCount,
	// which changes the hash and so the revision name.
	collisions := int32(1)
	fmt.Println(rollout.ComputeHash(template, &collisions))
	// Output:
	// 85cbb55596
	// 88b7b9d4f
}
