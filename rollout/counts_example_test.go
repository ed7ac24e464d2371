package rollout_test

import (
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/rollout"
)

// exampleRollingDS returns a RollingUpdate DaemonSet with the given budgets.
func exampleRollingDS(maxSurge, maxUnavailable intstr.IntOrString) *appsv1.DaemonSet {
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "fluentd"},
		Spec: appsv1.DaemonSetSpec{UpdateStrategy: appsv1.DaemonSetUpdateStrategy{
			Type: appsv1.RollingUpdateDaemonSetStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDaemonSet{
				MaxSurge:       &maxSurge,
				MaxUnavailable: &maxUnavailable,
			},
		}},
	}
}

func ExampleSurgeCount() {
	ds := exampleRollingDS(intstr.FromString("10%"), intstr.FromInt32(0))
	for _, nodes := range []int{0, 1, 10, 11} {
		n, _ := rollout.SurgeCount(ds, nodes)
		fmt.Printf("10%% of %d nodes: %d\n", nodes, n)
	}

	_, err := rollout.SurgeCount(exampleRollingDS(intstr.FromString("abc%"), intstr.FromInt32(0)), 10)
	var fe *field.Error
	fmt.Println(errors.As(err, &fe), fe.Field)
	// Output:
	// 10% of 0 nodes: 0
	// 10% of 1 nodes: 1
	// 10% of 10 nodes: 1
	// 10% of 11 nodes: 2
	// true spec.updateStrategy.rollingUpdate.maxSurge
}

func ExampleUnavailableCount() {
	ds := exampleRollingDS(intstr.FromInt32(0), intstr.FromString("33%"))
	n, err := rollout.UnavailableCount(ds, 10)
	fmt.Println(n, err)

	ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = nil
	_, err = rollout.UnavailableCount(ds, 10)
	fmt.Println(err)
	// Output:
	// 4 <nil>
	// spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: required when rollingUpdate is set
}

func ExampleAllowsSurge() {
	fmt.Println(rollout.AllowsSurge(exampleRollingDS(intstr.FromString("1%"), intstr.FromInt32(0))))
	fmt.Println(rollout.AllowsSurge(exampleRollingDS(intstr.FromInt32(0), intstr.FromInt32(1))))
	fmt.Println(rollout.AllowsSurge(nil))
	// Output:
	// true
	// false
	// false
}
