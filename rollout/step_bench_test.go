package rollout_test

import (
	"fmt"
	"testing"

	"github.com/daemonplan/daemonplan/rollout"
)

// benchFleet returns n nodes, each with the pods of state and their judged
// States (as daemon.Compute passes them): steady, one new available pod;
// rollout and surge, one old available pod; drain, an old and a new
// available pod on every other node (a surge rollout half done, whose
// old pods the step removes), one old pod on the others.
func benchFleet(n int, state string) []rollout.Node {
	nodes := make([]rollout.Node, n)
	for i := range nodes {
		name := fmt.Sprintf("node-%05d", i)
		kinds := []podKind{oldAvail}
		switch {
		case state == "steady":
			kinds = []podKind{newAvail}
		case state == "drain" && i%2 == 0:
			kinds = []podKind{oldAvail, newAvail}
		}
		nd := rollout.Node{Name: name, ShouldRun: true}
		for k, kind := range kinds {
			pod := stepPod(fmt.Sprintf("%s-%d", name, k), name, kind)
			nd.Pods = append(nd.Pods, pod)
			nd.States = append(nd.States, rollout.StateOf(pod, newHash, nil, 0, stepNow))
		}
		nodes[i] = nd
	}
	return nodes
}

// BenchmarkRollingUpdate times one step over fleets of 1k and 10k nodes:
// upstream's step (RollingUpdate), and a policy step (RollingUpdatePolicy
// with a partition, nodes ranked in reverse and three domains of one
// unavailable node each; see withPolicy).
func BenchmarkRollingUpdate(b *testing.B) {
	for _, state := range []string{"steady", "rollout", "surge", "drain"} {
		for _, n := range []int{1_000, 10_000} {
			ds := stepDS(sp("10%"), ip(0))
			if state == "surge" || state == "drain" {
				ds = stepDS(ip(0), sp("10%"))
			}
			nodes := benchFleet(n, state)
			b.Run(fmt.Sprintf("state=%s/nodes=%d/policy=none", state, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := rollout.RollingUpdate(ds, nodes, newHash, stepNow); err != nil {
						b.Fatal(err)
					}
				}
			})
			pnodes, p := withPolicy(nodes)
			b.Run(fmt.Sprintf("state=%s/nodes=%d/policy=all", state, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := rollout.RollingUpdatePolicy(ds, pnodes, newHash, stepNow, p); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// withPolicy returns a copy of nodes ranked in reverse, in three domains,
// and a policy with a partition of a tenth of them and one unavailable or
// surging node per domain.
func withPolicy(nodes []rollout.Node) ([]rollout.Node, rollout.Policy) {
	out := make([]rollout.Node, len(nodes))
	copy(out, nodes)
	for i := range out {
		out[i].Rank = int32(len(out) - i)
		out[i].Domain = int32(i % 3)
	}
	return out, rollout.Policy{Partition: len(nodes) / 10, DomainMaxUnavailable: ip(1), DomainMaxSurge: ip(1)}
}
