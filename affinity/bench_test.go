package affinity_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/daemonplan/daemonplan/affinity"
)

// The matcher benchmarks use the allocation test's fixture. Compare runs with
//
//	go test -run='^$' -bench=NodeMatcher -benchmem -count=6 ./affinity | tee new.txt
//	benchstat old.txt new.txt

// BenchmarkNodeMatcher measures the per-node cost after one compilation.
func BenchmarkNodeMatcher(b *testing.B) {
	spec, n := issueFixture()
	m := affinity.NewNodeMatcher(spec)
	b.ReportAllocs()
	for b.Loop() {
		m.Match(n)
	}
}

// BenchmarkNodeMatcherHelpers is component-helpers' path for comparison:
// compiled once as well, its Match still builds a field set per node.
func BenchmarkNodeMatcherHelpers(b *testing.B) {
	spec, n := issueFixture()
	required := nodeaffinity.GetRequiredNodeAffinity(&corev1.Pod{Spec: *spec})
	b.ReportAllocs()
	for b.Loop() {
		_, _ = required.Match(n)
	}
}

// BenchmarkNodeMatcherHelpersPerNode is upstream's DaemonSet controller
// pattern: parse the affinity again for every node.
func BenchmarkNodeMatcherHelpersPerNode(b *testing.B) {
	spec, n := issueFixture()
	pod := &corev1.Pod{Spec: *spec}
	b.ReportAllocs()
	for b.Loop() {
		_, _ = nodeaffinity.GetRequiredNodeAffinity(pod).Match(n)
	}
}

// BenchmarkNewNodeMatcher measures the one-off compilation.
func BenchmarkNewNodeMatcher(b *testing.B) {
	spec, _ := issueFixture()
	b.ReportAllocs()
	for b.Loop() {
		affinity.NewNodeMatcher(spec)
	}
}
