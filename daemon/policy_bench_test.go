package daemon_test

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
)

// BenchmarkComputePolicy plans one sync of the rollout fleet of
// BenchmarkCompute with no policy (the zero value: the same allocations
// as BenchmarkCompute), with every option but Paused and Canary set, and
// with a canary of 5% spread over a label every node has a value of (the
// most groups), at 1k and 10k nodes, so that the cost of a policy, and
// its linearity, can be read.
func BenchmarkComputePolicy(b *testing.B) {
	policies := []struct {
		name string
		pol  daemon.RolloutPolicy
	}{
		{"none", daemon.RolloutPolicy{}},
		{"partition", daemon.RolloutPolicy{Partition: pios("50%")}},
		{"all", daemon.RolloutPolicy{
			Partition:    pios("10%"),
			Scope:        &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "kubernetes.io/hostname", Operator: metav1.LabelSelectorOpExists}}},
			Order:        daemon.UpdateOrder{Label: "kubernetes.io/hostname"},
			DomainBudget: &daemon.DomainBudget{Label: "kubernetes.io/hostname", MaxUnavailable: pios("1")},
			Strict:       true,
		}},
		{"canary", daemon.RolloutPolicy{Canary: &daemon.CanarySpec{Count: intstr.FromString("5%"), Spread: "kubernetes.io/hostname"}}},
	}
	for _, state := range []fleetState{steady, rolloutStart} {
		for _, n := range []int{1_000, 10_000} {
			ds, nodes, pods, revs := fleet(n, state)
			for _, p := range policies {
				opts := daemon.Options{Now: dt.Epoch.Add(time.Minute), Revisions: revs, Rollout: p.pol}
				b.Run(fmt.Sprintf("state=%s/nodes=%d/policy=%s", state, n, p.name), func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						if _, err := daemon.Compute(ds, nodes, pods, opts); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}
