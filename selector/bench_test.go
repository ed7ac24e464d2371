package selector_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/selector"
)

// BenchmarkClaimPods measures a claim over a mixed population (see
// randomPods) in random order, as an informer lists it. Compare runs with
//
//	go test -run '^$' -bench ClaimPods -benchmem -count 6 ./selector | tee new.txt
//	benchstat old.txt new.txt
func BenchmarkClaimPods(b *testing.B) {
	sel := appSelector()
	for _, n := range []int{100, 10_000} {
		rng := rand.New(rand.NewPCG(42, 0))
		pods := shuffled(rng, randomPods(rng, n))
		b.Run(fmt.Sprintf("pods=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = selector.ClaimPods(testOwner, sel, pods)
			}
		})
	}
}

func BenchmarkClaimRevisions(b *testing.B) {
	sel := appSelector()
	rng := rand.New(rand.NewPCG(42, 1))
	revs := shuffled(rng, podsAsRevisions(randomPods(rng, 1_000)))
	b.ReportAllocs()
	for b.Loop() {
		_ = selector.ClaimRevisions(testOwner, sel, revs)
	}
}

func BenchmarkForDaemonSet(b *testing.B) {
	ds := newDaemonSet(&metav1.LabelSelector{
		MatchLabels: map[string]string{"app": "fluentd", "tier": "node"},
		MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "zone", Operator: metav1.LabelSelectorOpIn, Values: []string{"a", "b", "c"}},
		},
	}, nil)
	b.ReportAllocs()
	for b.Loop() {
		_, _ = selector.ForDaemonSet(ds)
	}
}
