package tolerations_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/tolerations"
)

func printTolerations(tols []corev1.Toleration) {
	for _, t := range tols {
		seconds := "forever"
		if t.TolerationSeconds != nil {
			seconds = fmt.Sprintf("%ds", *t.TolerationSeconds)
		}
		fmt.Printf("%s %s %q %q %s\n", t.Key, t.Operator, t.Value, t.Effect, seconds)
	}
}

func ExampleDaemonTolerations() {
	printTolerations(tolerations.DaemonTolerations(true))
	// Output:
	// node.kubernetes.io/not-ready Exists "" "NoExecute" forever
	// node.kubernetes.io/unreachable Exists "" "NoExecute" forever
	// node.kubernetes.io/disk-pressure Exists "" "NoSchedule" forever
	// node.kubernetes.io/memory-pressure Exists "" "NoSchedule" forever
	// node.kubernetes.io/pid-pressure Exists "" "NoSchedule" forever
	// node.kubernetes.io/unschedulable Exists "" "NoSchedule" forever
	// node.kubernetes.io/network-unavailable Exists "" "NoSchedule" forever
}

func ExampleAddOrUpdateDaemonPodTolerations() {
	fiveMinutes := int64(300)
	spec := &corev1.PodSpec{Tolerations: []corev1.Toleration{
		{Key: "example.com/dedicated", Operator: corev1.TolerationOpEqual, Value: "infra", Effect: corev1.TaintEffectNoSchedule},
		// Matches the not-ready default, so it is replaced in place and
		// loses its tolerationSeconds.
		{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &fiveMinutes},
	}}
	fmt.Println("changed:", tolerations.AddOrUpdateDaemonPodTolerations(spec))
	printTolerations(spec.Tolerations)
	fmt.Println("changed again:", tolerations.AddOrUpdateDaemonPodTolerations(spec))
	// Output:
	// changed: true
	// example.com/dedicated Equal "infra" "NoSchedule" forever
	// node.kubernetes.io/not-ready Exists "" "NoExecute" forever
	// node.kubernetes.io/unreachable Exists "" "NoExecute" forever
	// node.kubernetes.io/disk-pressure Exists "" "NoSchedule" forever
	// node.kubernetes.io/memory-pressure Exists "" "NoSchedule" forever
	// node.kubernetes.io/pid-pressure Exists "" "NoSchedule" forever
	// node.kubernetes.io/unschedulable Exists "" "NoSchedule" forever
	// changed again: false
}

func ExampleWithDaemonTolerations() {
	user := []corev1.Toleration{{Key: "gpu", Operator: corev1.TolerationOpExists}}
	merged := tolerations.WithDaemonTolerations(user, false)
	fmt.Println(len(user), "user toleration,", len(merged), "after the merge")
	printTolerations(merged[:2])
	// Output:
	// 1 user toleration, 7 after the merge
	// gpu Exists "" "" forever
	// node.kubernetes.io/not-ready Exists "" "NoExecute" forever
}

func ExampleEffectSet_Has() {
	set := tolerations.NoSchedule | tolerations.NoExecute
	fmt.Println(set, set.Has(corev1.TaintEffectNoExecute), set.Has(corev1.TaintEffectPreferNoSchedule))
	// Output:
	// NoSchedule|NoExecute true false
}

func ExampleFindUntoleratedTaint() {
	taints := []corev1.Taint{
		{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule},
		{Key: "example.com/gpu-only", Value: "true", Effect: corev1.TaintEffectPreferNoSchedule},
		{Key: "example.com/dedicated", Value: "db", Effect: corev1.TaintEffectNoSchedule},
	}
	tols := tolerations.DaemonTolerations(false)

	// The DaemonSet controller looks at NoSchedule and NoExecute taints only.
	taint, found := tolerations.FindUntoleratedTaint(taints, tols, tolerations.NoSchedule|tolerations.NoExecute, false)
	fmt.Println(found, taint.ToString())
	// Output:
	// true example.com/dedicated=db:NoSchedule
}

func ExampleEffectSet_String() {
	fmt.Println(tolerations.EffectSet(0))
	fmt.Println(tolerations.NoExecute | tolerations.PreferNoSchedule)
	// Output:
	// none
	// PreferNoSchedule|NoExecute
}

func ExampleFindUntoleratedDaemonTaint() {
	taints := []corev1.Taint{
		{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule},
		{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoSchedule},
	}
	// The daemon defaults tolerate the cordon; nothing tolerates dedicated.
	taint, found := tolerations.FindUntoleratedDaemonTaint(taints, nil, false, tolerations.NoSchedule|tolerations.NoExecute, false)
	fmt.Println(found, taint.ToString())
	// Output:
	// true dedicated=db:NoSchedule
}
