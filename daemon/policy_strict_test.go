package daemon_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/simulate"
)

// zonedCluster returns nodes node-0..node-<n-1> in zones a, b and c in
// turn (node-i in zone "abc"[i%3]), each running an old (hash v1) pod; the
// pods on the nodes numbered in unready are not ready.
func zonedCluster(ds *appsv1.DaemonSet, n int, unready ...int) ([]*corev1.Node, []*corev1.Pod) {
	var nodes []*corev1.Node
	var pods []*corev1.Pod
	for i := range n {
		name := fmt.Sprintf("node-%d", i)
		nodes = append(nodes, dt.Node(name, dt.WithLabel(zone, string(rune('a'+i%3)))))
		opts := []dt.PodOption{dt.WithHash("v1")}
		for _, u := range unready {
			if u == i {
				opts = append(opts, dt.NotReadyPod())
			}
		}
		pods = append(pods, dt.Pod(ds, ds.Name+"-"+name, name, opts...))
	}
	return nodes, pods
}

// TestStrictLeavesNoMoreUnavailable: under Strict, an unavailable old pod
// that the step does not replace (its zone's budget is spent) is still an
// unavailable node, and takes its slot of maxUnavailable: the step never
// deletes an available old pod that would leave more than maxUnavailable
// nodes without an available pod. 10 nodes, maxUnavailable 25% (3); zone
// a holds nodes 0, 3, 6, 9, zone b 1, 4, 7, zone c 2, 5, 8. The cases
// with a domain budget and unavailable pods sharing a zone failed before
// the fix: the step deleted as many available pods as maxUnavailable less
// the replaced unavailable ones, leaving 4 or 5 nodes down.
func TestStrictLeavesNoMoreUnavailable(t *testing.T) {
	reverse := func(a, b *corev1.Node) int { return strings.Compare(b.Name, a.Name) }
	zoneOfOne := &daemon.DomainBudget{Label: zone, MaxUnavailable: pios("1")}
	tests := []struct {
		name    string
		unready []int
		pol     daemon.RolloutPolicy
		want    []string
	}{
		{name: "strict alone replaces the unavailable ones", unready: []int{4, 7, 9},
			pol: daemon.RolloutPolicy{Strict: true}, want: []string{"delete node-4", "delete node-7", "delete node-9"}},
		{name: "strict, reversed order", unready: []int{4, 7, 9},
			pol:  daemon.RolloutPolicy{Strict: true, Order: daemon.UpdateOrder{Compare: reverse}},
			want: []string{"delete node-4", "delete node-7", "delete node-9"}},
		{name: "strict, zone budget: node-7 waits for its zone and keeps its slot", unready: []int{4, 7, 9},
			pol: daemon.RolloutPolicy{Strict: true, DomainBudget: zoneOfOne}, want: []string{"delete node-4", "delete node-9"}},
		{name: "strict, zone budget, reversed order (the report)", unready: []int{4, 7, 9},
			pol:  daemon.RolloutPolicy{Strict: true, DomainBudget: zoneOfOne, Order: daemon.UpdateOrder{Compare: reverse}},
			want: []string{"delete node-7", "delete node-9"}},
		{name: "strict, zone budget, all three unavailable in zone b", unready: []int{1, 4, 7},
			pol: daemon.RolloutPolicy{Strict: true, DomainBudget: zoneOfOne}, want: []string{"delete node-1"}},
		{name: "strict, zone budget, reversed, all three in zone c", unready: []int{2, 5, 8},
			pol:  daemon.RolloutPolicy{Strict: true, DomainBudget: zoneOfOne, Order: daemon.UpdateOrder{Compare: reverse}},
			want: []string{"delete node-8"}},
		{name: "strict, zone budget, two unavailable in zone b leave one slot", unready: []int{4, 7},
			pol: daemon.RolloutPolicy{Strict: true, DomainBudget: zoneOfOne}, want: []string{"delete node-0", "delete node-4"}},
		{name: "strict, zone budget, one per zone: all replaced", unready: []int{0, 1, 2},
			pol: daemon.RolloutPolicy{Strict: true, DomainBudget: zoneOfOne}, want: []string{"delete node-0", "delete node-1", "delete node-2"}},
		{name: "zone budget without strict replaces every unavailable one", unready: []int{1, 4, 7},
			pol: daemon.RolloutPolicy{DomainBudget: zoneOfOne}, want: []string{"delete node-1", "delete node-4", "delete node-7"}},
		{name: "upstream", unready: []int{4, 7, 9}, want: []string{"delete node-4", "delete node-7", "delete node-9"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := dt.DaemonSet("agent", dt.WithMaxUnavailable("25%"))
			nodes, pods := zonedCluster(ds, 10, tt.unready...)
			rep := dt.CheckPlan(simulate.Input{DaemonSet: ds, Nodes: nodes, Pods: pods,
				Options: daemon.Options{Now: dt.Epoch, Rollout: tt.pol}}, dt.CheckOptions{})
			if err := rep.Err(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, actedOn(rep.Plan)); diff != "" {
				t.Errorf("actions (-want +got):\n%s", diff)
			}
			// The budget, counted here without the checker: desired nodes
			// left without an available pod.
			deleted := map[string]bool{}
			for _, d := range rep.Plan.Deletes {
				deleted[d.NodeName] = true
			}
			down := 0
			for i := range nodes {
				if deleted[nodes[i].Name] || slices.Contains(tt.unready, i) {
					down++
				}
			}
			if limit := max(rep.Plan.Rolling.MaxUnavailable, len(tt.unready)); down > limit {
				t.Errorf("%d nodes without an available pod after the plan, maxUnavailable %d", down, rep.Plan.Rolling.MaxUnavailable)
			}
		})
	}
}
