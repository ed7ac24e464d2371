package daemontest

import (
	"math/rand/v2"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/rollout"
)

// GeneratePolicy draws a rollout policy from r for nodes that carry the
// label key domain (values zone-a, zone-b, zone-c): each option on or off,
// with values that are sometimes out of range (a partition above the
// desired count, a percentage above 100%, a label no node carries), and a
// wave barrier (with or without a bake) on half the policies with an order
// label, and a canary (of a count, which may exceed the desired nodes, or
// a percentage; spread across the zones or not) on a third of them, with
// its own draws after every other. The same r gives the same policy; fuzz
// targets draw their policies with it.
func GeneratePolicy(r *rand.Rand, domain string) daemon.RolloutPolicy {
	ios := func(s string) *intstr.IntOrString { v := intstr.Parse(s); return &v }
	var p daemon.RolloutPolicy
	if r.IntN(2) == 0 {
		p.Partition = ios([]string{"0", "1", "2", "5", "100", "25%", "50%", "100%", "150%"}[r.IntN(9)])
	}
	if r.IntN(3) == 0 {
		p.Scope = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: domain, Operator: metav1.LabelSelectorOpIn, Values: []string{"zone-a", "zone-b"}[:1+r.IntN(2)]}}}
	}
	p.Paused = r.IntN(6) == 0
	switch r.IntN(4) {
	case 1:
		p.Order.Label, p.Order.Values = domain, []string{"zone-c", "zone-a"}
	case 2:
		p.Order.Label = "example.com/none"
	case 3:
		p.Order.Compare = func(a, b *corev1.Node) int { return strings.Compare(b.Name, a.Name) }
	}
	if r.IntN(3) == 0 {
		p.DomainBudget = &daemon.DomainBudget{Label: domain, MaxUnavailable: ios([]string{"1", "50%", "0"}[r.IntN(3)]),
			MaxSurge: ios([]string{"1", "100%"}[r.IntN(2)])}
	}
	p.Strict = r.IntN(3) == 0
	if p.Order.Label != "" && r.IntN(2) == 0 {
		p.Waves = &rollout.WaveBarrier{Bake: []time.Duration{0, 3 * time.Second, time.Minute}[r.IntN(3)]}
	}
	if r.IntN(3) == 0 {
		p.Canary = &daemon.CanarySpec{Count: intstr.Parse([]string{"1", "2", "7", "10%", "50%", "100%"}[r.IntN(6)]),
			Spread: []string{"", domain}[r.IntN(2)]}
		if p.Waves == nil && r.IntN(2) == 0 {
			p.Waves = &rollout.WaveBarrier{Bake: 3 * time.Second}
		}
	}
	return p
}
