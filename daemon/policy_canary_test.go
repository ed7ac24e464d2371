package daemon_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/rollout"
)

// canaryFleet returns n nodes n01..n<n>, node i in zone zoneOf(i) (from
// 1), each running an old pod (not ready on the nodes in unready), but
// for the nodes in updated, which run a pod of the current revision
// created, and ready since, the time given.
func canaryFleet(ds *appsv1.DaemonSet, n int, zoneOf func(int) string, unready []string, updated map[string]time.Time) ([]*corev1.Node, []*corev1.Pod) {
	var nodes []*corev1.Node
	var pods []*corev1.Pod
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("n%02d", i)
		nodes = append(nodes, dt.Node(name, dt.WithLabel(zone, zoneOf(i))))
		if at, ok := updated[name]; ok {
			pods = append(pods, dt.Pod(ds, ds.Name+"-"+name+"-v2", name, dt.CreatedAt(at), dt.ReadySince(at)))
			continue
		}
		opts := []dt.PodOption{dt.WithHash("v1")}
		if slices.Contains(unready, name) {
			opts = append(opts, dt.NotReadyPod())
		}
		pods = append(pods, dt.Pod(ds, ds.Name+"-"+name, name, opts...))
	}
	return nodes, pods
}

// Zones of canaryFleet's nodes: a and b in turn, or blocks of three
// (n01-n03 a, n04-n06 b, n07-n09 c, ...).
func alternate(i int) string { return string(rune('a' + (i-1)%2)) }
func blocks(i int) string    { return string(rune('a' + (i-1)/3)) }

// canaryOf lists the standing's nodes of the canary wave, by name.
func canaryOf(ro *daemon.Standing) []string {
	var out []string
	for _, n := range ro.Nodes {
		if n.Wave == daemon.CanaryWave {
			out = append(out, n.Name)
		}
	}
	return out
}

// heldBy lists the standing's nodes the policy holds for h, by name.
func heldBy(ro *daemon.Standing, h daemon.KeepReason) []string {
	var out []string
	for _, n := range ro.Nodes {
		if n.Held == h {
			out = append(out, n.Name)
		}
	}
	return out
}

func TestRolloutPolicyCanary(t *testing.T) {
	one := &daemon.CanarySpec{Count: intstr.FromInt32(1)}
	bake := &rollout.WaveBarrier{Bake: 10 * time.Minute}
	ago := func(d time.Duration) time.Time { return dt.Epoch.Add(-d) }
	tests := []struct {
		name     string
		nodes    int
		zoneOf   func(int) string
		maxU     string
		unready  []string
		updated  map[string]time.Time
		joined   func(ds *appsv1.DaemonSet) ([]*corev1.Node, []*corev1.Pod)
		pol      daemon.RolloutPolicy
		want     []string // actions
		canary   []string
		waves    []string // Standing.Waves
		heldWave []string
		wave     *rollout.WaveProgress
		wait     time.Duration
	}{
		{name: "canary of 1: one node, then the rest", nodes: 6, zoneOf: alternate, maxU: "100%",
			pol:    daemon.RolloutPolicy{Canary: one},
			want:   []string{"delete n01"},
			canary: []string{"n01"}, waves: []string{"canary", "rest"}, heldWave: []string{"n02", "n03", "n04", "n05", "n06"},
			wave: &rollout.WaveProgress{Name: "canary", Waves: 2, Desired: 1, Waiting: []string{"n01"}}},
		{name: "10% of 25 nodes is 3", nodes: 25, zoneOf: alternate, maxU: "100%",
			pol:    daemon.RolloutPolicy{Canary: &daemon.CanarySpec{Count: intstr.FromString("10%")}},
			want:   []string{"delete n01", "delete n02", "delete n03"},
			canary: []string{"n01", "n02", "n03"}, waves: []string{"canary", "rest"},
			heldWave: []string{"n04", "n05", "n06", "n07", "n08", "n09", "n10", "n11", "n12", "n13", "n14",
				"n15", "n16", "n17", "n18", "n19", "n20", "n21", "n22", "n23", "n24", "n25"},
			wave: &rollout.WaveProgress{Name: "canary", Waves: 2, Desired: 3, Waiting: []string{"n01", "n02", "n03"}}},
		{name: "an unavailable old pod of a later wave waits for the canary, even without Strict", nodes: 6, zoneOf: alternate,
			maxU: "2", unready: []string{"n04"},
			pol:    daemon.RolloutPolicy{Canary: one},
			want:   []string{"delete n01"},
			canary: []string{"n01"}, waves: []string{"canary", "rest"}, heldWave: []string{"n02", "n03", "n04", "n05", "n06"},
			wave: &rollout.WaveProgress{Name: "canary", Waves: 2, Desired: 1, Waiting: []string{"n01"}}},
		{name: "spread across 3 zones: one of each", nodes: 9, zoneOf: blocks, maxU: "100%",
			pol:    daemon.RolloutPolicy{Canary: &daemon.CanarySpec{Count: intstr.FromInt32(3), Spread: zone}},
			want:   []string{"delete n01", "delete n04", "delete n07"},
			canary: []string{"n01", "n04", "n07"}, waves: []string{"canary", "rest"},
			heldWave: []string{"n02", "n03", "n05", "n06", "n08", "n09"},
			wave:     &rollout.WaveProgress{Name: "canary", Waves: 2, Desired: 3, Waiting: []string{"n01", "n04", "n07"}}},
		{name: "spread over the order label: its values' order, round after round", nodes: 9, zoneOf: blocks, maxU: "100%",
			pol: daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: zone, Values: []string{"c"}},
				Canary: &daemon.CanarySpec{Count: intstr.FromInt32(4), Spread: zone}},
			want:   []string{"delete n01", "delete n04", "delete n07", "delete n08"},
			canary: []string{"n01", "n04", "n07", "n08"}, waves: []string{"canary", zone + "=c", zone + "=a", zone + "=b"},
			heldWave: []string{"n02", "n03", "n05", "n06", "n09"},
			wave:     &rollout.WaveProgress{Name: "canary", Waves: 4, Desired: 4, Waiting: []string{"n01", "n04", "n07", "n08"}}},
		{name: "scope: the canary is of the nodes in scope", nodes: 6, zoneOf: alternate, maxU: "100%",
			pol: daemon.RolloutPolicy{Canary: one, Scope: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "kubernetes.io/hostname", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"n01"}}}}},
			want:   []string{"delete n02"},
			canary: []string{"n02"}, waves: []string{"canary", "rest"}, heldWave: []string{"n03", "n04", "n05", "n06"},
			wave: &rollout.WaveProgress{Name: "canary", Waves: 2, Desired: 1, Waiting: []string{"n02"}}},
		{name: "partition keeps the last nodes after the canary, never the canary", nodes: 9, zoneOf: blocks, maxU: "100%",
			pol:    daemon.RolloutPolicy{Canary: &daemon.CanarySpec{Count: intstr.FromInt32(3), Spread: zone}, Partition: pios("6")},
			want:   []string{"delete n01", "delete n04", "delete n07"},
			canary: []string{"n01", "n04", "n07"}, waves: []string{"canary", "rest"},
			wave: &rollout.WaveProgress{Name: "canary", Waves: 2, Desired: 3, Waiting: []string{"n01", "n04", "n07"}}},
		{name: "partition: the canary done, the rest is kept", nodes: 9, zoneOf: blocks, maxU: "100%",
			updated: map[string]time.Time{"n01": ago(time.Hour), "n04": ago(time.Hour), "n07": ago(time.Hour)},
			pol:     daemon.RolloutPolicy{Canary: &daemon.CanarySpec{Count: intstr.FromInt32(3), Spread: zone}, Partition: pios("6")},
			canary:  []string{"n01", "n04", "n07"}, waves: []string{"canary", "rest"},
			wave: &rollout.WaveProgress{Wave: 1, Name: "rest", Index: 1, Waves: 2, Desired: 6,
				Waiting: []string{"n02", "n03", "n05", "n06", "n08", "n09"}}},
		{name: "waves and bake: the canary bakes before zone a", nodes: 6, zoneOf: alternate, maxU: "100%",
			updated: map[string]time.Time{"n01": ago(4 * time.Minute)},
			pol:     daemon.RolloutPolicy{Canary: one, Order: daemon.UpdateOrder{Label: zone}, Waves: bake},
			canary:  []string{"n01"}, waves: []string{"canary", zone + "=a", zone + "=b"},
			heldWave: []string{"n02", "n03", "n04", "n05", "n06"},
			wave:     &rollout.WaveProgress{Name: "canary", Waves: 3, Desired: 1, Done: 1, BakeUntil: dt.Epoch.Add(6 * time.Minute)},
			wait:     6 * time.Minute},
		{name: "waves and bake: the canary baked, zone a starts", nodes: 6, zoneOf: alternate, maxU: "100%",
			updated: map[string]time.Time{"n01": ago(10 * time.Minute)},
			pol:     daemon.RolloutPolicy{Canary: one, Order: daemon.UpdateOrder{Label: zone}, Waves: bake},
			want:    []string{"delete n03", "delete n05"},
			canary:  []string{"n01"}, waves: []string{"canary", zone + "=a", zone + "=b"},
			heldWave: []string{"n02", "n04", "n06"},
			wave:     &rollout.WaveProgress{Wave: 1, Name: zone + "=a", Index: 1, Waves: 3, Desired: 2, Waiting: []string{"n03", "n05"}}},
		{name: "a node joins with a new pod: the canary stays", nodes: 6, zoneOf: alternate, maxU: "100%",
			updated: map[string]time.Time{"n01": ago(5 * time.Minute), "n02": ago(5 * time.Minute)},
			joined: func(ds *appsv1.DaemonSet) ([]*corev1.Node, []*corev1.Pod) {
				return []*corev1.Node{dt.Node("m1", dt.WithLabel(zone, "a"))},
					[]*corev1.Pod{dt.Pod(ds, "agent-m1-v2", "m1", dt.CreatedAt(dt.Epoch), dt.NotReadyPod())}
			},
			pol:    daemon.RolloutPolicy{Canary: &daemon.CanarySpec{Count: intstr.FromInt32(2)}, Waves: bake},
			canary: []string{"n01", "n02"}, waves: []string{"canary", "rest"},
			heldWave: []string{"n03", "n04", "n05", "n06"},
			wave:     &rollout.WaveProgress{Name: "canary", Waves: 2, Desired: 2, Done: 2, BakeUntil: dt.Epoch.Add(5 * time.Minute)},
			wait:     5 * time.Minute},
		{name: "a node joins without a pod: created, the canary stays", nodes: 6, zoneOf: alternate, maxU: "100%",
			updated: map[string]time.Time{"n01": ago(5 * time.Minute), "n02": ago(5 * time.Minute)},
			joined: func(ds *appsv1.DaemonSet) ([]*corev1.Node, []*corev1.Pod) {
				return []*corev1.Node{dt.Node("m1", dt.WithLabel(zone, "a"))}, nil
			},
			pol:    daemon.RolloutPolicy{Canary: &daemon.CanarySpec{Count: intstr.FromInt32(2)}, Waves: bake},
			want:   []string{"create m1"},
			canary: []string{"n01", "n02"}, waves: []string{"canary", "rest"}},
		{name: "canary larger than the desired nodes: all of them, one wave", nodes: 3, zoneOf: alternate, maxU: "100%",
			pol:    daemon.RolloutPolicy{Canary: &daemon.CanarySpec{Count: intstr.FromInt32(5)}},
			want:   []string{"delete n01", "delete n02", "delete n03"},
			canary: []string{"n01", "n02", "n03"}, waves: []string{"canary"},
			wave: &rollout.WaveProgress{Name: "canary", Waves: 1, Desired: 3, Waiting: []string{"n01", "n02", "n03"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := dt.DaemonSet("agent", dt.WithMaxUnavailable(tt.maxU))
			nodes, pods := canaryFleet(ds, tt.nodes, tt.zoneOf, tt.unready, tt.updated)
			if tt.joined != nil {
				n, p := tt.joined(ds)
				nodes, pods = append(nodes, n...), append(pods, p...)
			}
			opts := daemon.Options{Now: dt.Epoch, Rollout: tt.pol, ReportStanding: true}
			plan, err := daemon.Compute(ds, nodes, pods, opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, actedOn(plan)); diff != "" {
				t.Errorf("actions (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.canary, canaryOf(plan.Standing)); diff != "" {
				t.Errorf("canary (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.waves, plan.Standing.Waves); diff != "" {
				t.Errorf("Standing.Waves (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.heldWave, heldBy(plan.Standing, daemon.HeldWave)); diff != "" {
				t.Errorf("held by the barrier (-want +got):\n%s", diff)
			}
			var got *rollout.WaveProgress
			if plan.Rolling != nil && plan.Rolling.Policy != nil {
				got = plan.Rolling.Policy.Wave
			}
			if diff := cmp.Diff(tt.wave, got); diff != "" {
				t.Errorf("Rolling.Policy.Wave (-want +got):\n%s", diff)
			}
			if plan.RequeueAfter != tt.wait {
				t.Errorf("RequeueAfter = %v, want %v", plan.RequeueAfter, tt.wait)
			}

			// CanaryNodes (in update order), given the desired nodes and
			// their updated pods, names the plan's canary.
			hash := plan.Hash
			updated := func(n *corev1.Node) *corev1.Pod {
				for _, p := range pods {
					if p.Spec.NodeName == n.Name && rollout.IsPodUpdated(p, hash, nil) {
						return p
					}
				}
				return nil
			}
			if diff := cmp.Diff(tt.canary, slices.Sorted(slices.Values(tt.pol.CanaryNodes(nodes, updated)))); diff != "" {
				t.Errorf("CanaryNodes (-want +got):\n%s", diff)
			}

			// The same plan whatever the order of nodes and pods.
			r := rand.New(rand.NewPCG(uint64(len(tt.name)), 32))
			for i := range 4 {
				sn, sp := slices.Clone(nodes), slices.Clone(pods)
				if i == 0 {
					slices.Reverse(sn)
					slices.Reverse(sp)
				} else {
					r.Shuffle(len(sn), func(a, b int) { sn[a], sn[b] = sn[b], sn[a] })
					r.Shuffle(len(sp), func(a, b int) { sp[a], sp[b] = sp[b], sp[a] })
				}
				shuffled, err := daemon.Compute(ds, sn, sp, opts)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(plan, shuffled); diff != "" {
					t.Errorf("permutation %d: plan differs (-in order +permuted):\n%s", i, diff)
				}
				if diff := cmp.Diff(tt.canary, slices.Sorted(slices.Values(tt.pol.CanaryNodes(sn, updated)))); diff != "" {
					t.Errorf("permutation %d: CanaryNodes (-want +got):\n%s", i, diff)
				}
			}
		})
	}
}

func TestCanaryNodes(t *testing.T) {
	nodes := []*corev1.Node{
		dt.Node("a1", dt.WithLabel(zone, "a")), dt.Node("a2", dt.WithLabel(zone, "a")), nil,
		dt.Node("b1", dt.WithLabel(zone, "b")), dt.Node("x1"), dt.Node("b2", dt.WithLabel(zone, "b")),
	}
	updatedAt := func(at map[string]time.Time) func(*corev1.Node) *corev1.Pod {
		return func(n *corev1.Node) *corev1.Pod {
			if t, ok := at[n.Name]; ok {
				return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: n.Name, CreationTimestamp: metav1.NewTime(t)}}
			}
			return nil
		}
	}
	count := func(s string) *daemon.CanarySpec { return &daemon.CanarySpec{Count: intstr.Parse(s), Spread: zone} }
	tests := []struct {
		name    string
		pol     daemon.RolloutPolicy
		updated func(*corev1.Node) *corev1.Pod
		want    []string
	}{
		{name: "no canary", want: nil},
		{name: "spread: a value, then the next, nodes without the label last", pol: daemon.RolloutPolicy{Canary: count("3")},
			want: []string{"a1", "b1", "x1"}},
		{name: "second round", pol: daemon.RolloutPolicy{Canary: count("4")}, want: []string{"a1", "a2", "b1", "x1"}},
		{name: "50% of 5 is 3", pol: daemon.RolloutPolicy{Canary: count("50%")}, want: []string{"a1", "b1", "x1"}},
		{name: "an updated node is taken first, and spread still", pol: daemon.RolloutPolicy{Canary: count("2")},
			updated: updatedAt(map[string]time.Time{"a2": dt.Epoch}), want: []string{"a2", "b1"}},
		{name: "the earliest updated first", pol: daemon.RolloutPolicy{Canary: count("1")},
			updated: updatedAt(map[string]time.Time{"a1": dt.Epoch, "b2": dt.Epoch.Add(-time.Minute)}), want: []string{"b2"}},
		{name: "scope", pol: daemon.RolloutPolicy{Canary: count("2"), Scope: &metav1.LabelSelector{MatchLabels: map[string]string{zone: "b"}}},
			want: []string{"b1", "b2"}},
		{name: "in update order", pol: daemon.RolloutPolicy{Canary: count("3"),
			Order: daemon.UpdateOrder{Compare: func(a, b *corev1.Node) int { return cmpNames(b.Name, a.Name) }}},
			want: []string{"x1", "b2", "a2"}},
		{name: "invalid count: none", pol: daemon.RolloutPolicy{Canary: count("0")}, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.pol.CanaryNodes(nodes, tt.updated)); diff != "" {
				t.Errorf("CanaryNodes (-want +got):\n%s", diff)
			}
		})
	}
}

// cmpNames compares two names, for an UpdateOrder.Compare.
func cmpNames(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestRolloutPolicyCanaryIsNotZero(t *testing.T) {
	p := daemon.RolloutPolicy{Canary: &daemon.CanarySpec{Count: intstr.FromInt32(1)}}
	if p.IsZero() {
		t.Error("a policy with a canary is zero")
	}
	if got := p.WaveOf(dt.Node("n1")); got != daemon.RestWave {
		t.Errorf("WaveOf without an order label = %q, want %q", got, daemon.RestWave)
	}
}

// A canary of two nodes, one per zone, before the rest: the first plan
// replaces only the canary's nodes; once they run the new revision,
// available, the rest (one wave without an order label) goes.
func ExampleCanarySpec() {
	ds := dt.DaemonSet("agent", dt.WithMaxUnavailable("100%"))
	nodes, pods := oldCluster(ds, 6)
	pol := daemon.RolloutPolicy{Canary: &daemon.CanarySpec{Count: intstr.FromInt32(2), Spread: zone}}
	plan, _ := daemon.Compute(ds, nodes, pods, daemon.Options{Now: dt.Epoch, Rollout: pol, ReportStanding: true})
	fmt.Println("waves", plan.Standing.Waves, "canary", pol.CanaryNodes(nodes, nil))
	fmt.Println(plan.Rolling.Policy.Wave)
	printPlan(plan)

	pods = []*corev1.Pod{dt.Pod(ds, "agent-n1-v2", "n1", dt.CreatedAt(dt.Epoch)), dt.Pod(ds, "agent-n2-v2", "n2", dt.CreatedAt(dt.Epoch)),
		pods[2], pods[3], pods[4], pods[5]}
	plan, _ = daemon.Compute(ds, nodes, pods, daemon.Options{Now: dt.Epoch.Add(time.Minute), Rollout: pol})
	fmt.Println(plan.Rolling.Policy.Wave)
	printPlan(plan)
	// Output:
	// waves [canary rest] canary [n1 n2]
	// wave canary (1 of 2): 0/2 updated and available; waiting for n1, n2
	// delete agent-n1 on n1 (RollingUpdate)
	// delete agent-n2 on n2 (RollingUpdate)
	// wave rest (2 of 2): 0/4 updated and available; waiting for n3, n4, n5, n6
	// delete agent-n3 on n3 (RollingUpdate)
	// delete agent-n4 on n4 (RollingUpdate)
	// delete agent-n5 on n5 (RollingUpdate)
	// delete agent-n6 on n6 (RollingUpdate)
}

// TestRolloutPolicyCanaryPaused: a paused rollout with a canary replaces
// nothing; its standing holds the canary's nodes for the pause and the
// others for the barrier, as the step it holds back would.
func TestRolloutPolicyCanaryPaused(t *testing.T) {
	ds := dt.DaemonSet("agent", dt.WithMaxUnavailable("100%"))
	nodes, pods := canaryFleet(ds, 4, alternate, nil, nil)
	pol := daemon.RolloutPolicy{Paused: true, Canary: &daemon.CanarySpec{Count: intstr.FromString("50%")}}
	plan, err := daemon.Compute(ds, nodes, pods, daemon.Options{Now: dt.Epoch, Rollout: pol, ReportStanding: true})
	if err != nil {
		t.Fatal(err)
	}
	got := map[daemon.KeepReason][]string{}
	for _, n := range plan.Standing.Nodes {
		got[n.Held] = append(got[n.Held], n.Wave+":"+n.Name)
	}
	want := map[daemon.KeepReason][]string{
		daemon.HeldPaused: {"canary:n01", "canary:n02"},
		daemon.HeldWave:   {"rest:n03", "rest:n04"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("holds (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string(nil), actedOn(plan)); diff != "" {
		t.Errorf("actions (-want +got):\n%s", diff)
	}
	if w := plan.Standing.Paused.Policy.Wave; w == nil || w.Name != daemon.CanaryWave {
		t.Errorf("the paused step's wave = %v, want the canary", w)
	}
}
