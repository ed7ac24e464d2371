package rollout_test

import (
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/rollout"
)

// benchHistory builds a DaemonSet with nOld old revisions, nCur revisions
// storing its current template, and nPods pods spread over the hashes.
func benchHistory(b *testing.B, nOld, nCur, nPods int) (*appsv1.DaemonSet, []*appsv1.ControllerRevision, []*corev1.Pod) {
	ds := histDS("registry.example/agent:current")
	limit := int32(10)
	ds.Spec.RevisionHistoryLimit = &limit
	var revs []*appsv1.ControllerRevision
	for i := range nOld {
		data := histData(b, histDS(fmt.Sprintf("registry.example/agent:v%d", i)))
		revs = append(revs, histRev(fmt.Sprintf("agent-old%04d", i), int64(i+1), data, fmt.Sprintf("old%04d", i)))
	}
	cur := histData(b, ds)
	for i := range nCur {
		revs = append(revs, histRev(fmt.Sprintf("agent-cur%d", i), int64(nOld+1+i), cur, fmt.Sprintf("cur%d", i)))
	}
	var pods []*corev1.Pod
	for i := range nPods {
		pods = append(pods, hashPod(fmt.Sprintf("agent-%06d", i), revs[i%len(revs)].Labels[revHashKey]))
	}
	return ds, revs, pods
}

// BenchmarkConstructHistory covers the steady state (one current
// revision), the first sync after a template change (a create, so one
// ComputeHash), and a merge of duplicates that relabels pods.
func BenchmarkConstructHistory(b *testing.B) {
	for _, bc := range []struct {
		name              string
		nOld, nCur, nPods int
	}{
		{"steady/old=10", 10, 1, 0},
		{"steady/old=100", 100, 1, 0},
		{"create/old=10", 10, 0, 0},
		{"duplicates/old=10/pods=1000", 10, 2, 1000},
		{"duplicates/old=10/pods=10000", 10, 2, 10000},
	} {
		ds, revs, pods := benchHistory(b, bc.nOld, bc.nCur, bc.nPods)
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = rollout.ConstructHistory(ds, revs, revs, pods)
			}
		})
	}
}

func BenchmarkCleanupHistory(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		ds, revs, pods := benchHistory(b, n, 0, 10*n)
		b.Run(fmt.Sprintf("old=%d/pods=%d", n, 10*n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = rollout.CleanupHistory(ds, revs, pods)
			}
		})
	}
}
