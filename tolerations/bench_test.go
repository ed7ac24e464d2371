package tolerations_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	schedcorev1 "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"

	"github.com/daemonplan/daemonplan/tolerations"
)

// benchFixture is the allocation test's fixture: two taints, three user
// tolerations and the seven defaults, with every taint tolerated so the
// whole list is scanned.
func benchFixture() ([]corev1.Taint, []corev1.Toleration) {
	tols := tolerations.WithDaemonTolerations([]corev1.Toleration{
		user1,
		user2,
		tol("example.com/zone", corev1.TolerationOpGt, "3", corev1.TaintEffectNoSchedule),
	}, true)
	return []corev1.Taint{dedicated, notReadyExec}, tols
}

// BenchmarkFindUntoleratedTaint compares this package with component-helpers'
// FindMatchingUntoleratedTaint, which allocates a filtered copy of the taints.
//
//	go test -run='^$' -bench=FindUntoleratedTaint -benchmem -count=6 ./tolerations | tee new.txt
func BenchmarkFindUntoleratedTaint(b *testing.B) {
	taints, tols := benchFixture()
	const effects = tolerations.NoSchedule | tolerations.NoExecute
	b.Run("impl=tolerations", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			tolerations.FindUntoleratedTaint(taints, tols, effects, false)
		}
	})
	b.Run("impl=component-helpers", func(b *testing.B) {
		filter := func(t *corev1.Taint) bool { return effects.Has(t.Effect) }
		b.ReportAllocs()
		for b.Loop() {
			schedcorev1.FindMatchingUntoleratedTaint(klog.Logger{}, taints, tols, filter, false)
		}
	})
}

func BenchmarkWithDaemonTolerations(b *testing.B) {
	for _, n := range []int{0, 3, 30} {
		var user []corev1.Toleration
		for i := range n {
			user = append(user, tol(fmt.Sprintf("example.com/t%d", i), corev1.TolerationOpExists, "", ""))
		}
		b.Run(fmt.Sprintf("user=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				tolerations.WithDaemonTolerations(user, true)
			}
		})
	}
}
