package daemon_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/rollout"
)

// wavedCluster is oldCluster (n1..n6, zones a and b in turn, old pods),
// with the pods of the nodes in done at the current revision, ready since
// readyAt.
func wavedCluster(ds *appsv1.DaemonSet, readyAt time.Time, unready []string, done ...string) ([]*corev1.Node, []*corev1.Pod) {
	nodes, pods := oldCluster(ds, 6, unready...)
	for i, p := range pods {
		for _, d := range done {
			if p.Spec.NodeName == d {
				pods[i] = dt.Pod(ds, p.Name+"-v2", d, dt.ReadySince(readyAt))
			}
		}
	}
	return nodes, pods
}

func TestRolloutPolicyWaves(t *testing.T) {
	byZone := daemon.UpdateOrder{Label: zone}
	bake := &rollout.WaveBarrier{Bake: 10 * time.Minute}
	tests := []struct {
		name     string
		maxU     string
		maxSurge string
		unready  []string
		done     []string
		readyAgo time.Duration
		pol      daemon.RolloutPolicy
		want     []string
		wantWave *rollout.WaveProgress
		wantWait time.Duration
	}{
		{name: "zone a first, whatever the budget", maxU: "100%", pol: daemon.RolloutPolicy{Order: byZone, Waves: bake},
			want:     []string{"delete n1", "delete n3", "delete n5"},
			wantWave: &rollout.WaveProgress{Name: zone + "=a", Waves: 2, Desired: 3, Waiting: []string{"n1", "n3", "n5"}}},
		{name: "Values choose the first wave", maxU: "100%", pol: daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: zone, Values: []string{"b"}}, Waves: bake},
			want:     []string{"delete n2", "delete n4", "delete n6"},
			wantWave: &rollout.WaveProgress{Name: zone + "=b", Waves: 2, Desired: 3, Waiting: []string{"n2", "n4", "n6"}}},
		{name: "zone a done, baking: nothing starts, requeued for the bake's end", maxU: "100%", done: []string{"n1", "n3", "n5"}, readyAgo: 4 * time.Minute,
			pol:      daemon.RolloutPolicy{Order: byZone, Waves: bake},
			wantWave: &rollout.WaveProgress{Name: zone + "=a", Waves: 2, Desired: 3, Done: 3, BakeUntil: dt.Epoch.Add(6 * time.Minute)},
			wantWait: 6 * time.Minute},
		{name: "zone a baked: zone b starts", maxU: "100%", done: []string{"n1", "n3", "n5"}, readyAgo: 10 * time.Minute,
			pol:      daemon.RolloutPolicy{Order: byZone, Waves: bake},
			want:     []string{"delete n2", "delete n4", "delete n6"},
			wantWave: &rollout.WaveProgress{Wave: 1, Name: zone + "=b", Index: 1, Waves: 2, Desired: 3, Waiting: []string{"n2", "n4", "n6"}}},
		{name: "an unavailable old pod of zone b waits, even without Strict", maxU: "100%", unready: []string{"n2"},
			pol:      daemon.RolloutPolicy{Order: byZone, Waves: bake},
			want:     []string{"delete n1", "delete n3", "delete n5"},
			wantWave: &rollout.WaveProgress{Name: zone + "=a", Waves: 2, Desired: 3, Waiting: []string{"n1", "n3", "n5"}}},
		{name: "without waves that pod goes at once", maxU: "1", unready: []string{"n2"}, pol: daemon.RolloutPolicy{Order: byZone},
			want: []string{"delete n2"}},
		{name: "nodes out of scope hold no wave", maxU: "100%", done: []string{"n1"}, readyAgo: time.Hour,
			pol: daemon.RolloutPolicy{Order: byZone, Waves: bake, Scope: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "kubernetes.io/hostname", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"n3", "n5"}}}}},
			want:     []string{"delete n2", "delete n4", "delete n6"},
			wantWave: &rollout.WaveProgress{Wave: 1, Name: zone + "=b", Index: 1, Waves: 2, Desired: 3, Waiting: []string{"n2", "n4", "n6"}}},
		{name: "a per-zone budget inside the open wave", maxU: "100%",
			pol:      daemon.RolloutPolicy{Order: byZone, Waves: bake, DomainBudget: &daemon.DomainBudget{Label: zone, MaxUnavailable: pios("1")}},
			want:     []string{"delete n1"},
			wantWave: &rollout.WaveProgress{Name: zone + "=a", Waves: 2, Desired: 3, Waiting: []string{"n1", "n3", "n5"}}},
		{name: "surge: zone b gets no new pod while zone a surges", maxSurge: "100%", maxU: "0",
			pol:      daemon.RolloutPolicy{Order: byZone, Waves: bake},
			want:     []string{"create n1", "create n3", "create n5"},
			wantWave: &rollout.WaveProgress{Name: zone + "=a", Waves: 2, Desired: 3, Waiting: []string{"n1", "n3", "n5"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := []dt.DaemonSetOption{dt.WithMaxUnavailable(tt.maxU)}
			if tt.maxSurge != "" {
				opts = append(opts, dt.WithMaxSurge(tt.maxSurge))
			}
			ds := dt.DaemonSet("agent", opts...)
			nodes, pods := wavedCluster(ds, dt.Epoch.Add(-tt.readyAgo), tt.unready, tt.done...)
			plan, err := daemon.Compute(ds, nodes, pods, daemon.Options{Now: dt.Epoch, Rollout: tt.pol})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, actedOn(plan)); diff != "" {
				t.Errorf("actions (-want +got):\n%s", diff)
			}
			var got *rollout.WaveProgress
			if plan.Rolling != nil && plan.Rolling.Policy != nil {
				got = plan.Rolling.Policy.Wave
			}
			if diff := cmp.Diff(tt.wantWave, got); diff != "" {
				t.Errorf("Rolling.Policy.Wave (-want +got):\n%s", diff)
			}
			if plan.RequeueAfter != tt.wantWait {
				t.Errorf("RequeueAfter = %v, want %v", plan.RequeueAfter, tt.wantWait)
			}
		})
	}
}

func TestWaveOf(t *testing.T) {
	p := daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: zone, Values: []string{"c"}}}
	nodes := []*corev1.Node{
		dt.Node("n1", dt.WithLabel(zone, "a")), dt.Node("n2", dt.WithLabel(zone, "c")), dt.Node("n3"),
		dt.Node("n4", dt.WithLabel(zone, "")), nil, dt.Node("n5", dt.WithLabel(zone, "a")),
	}
	for _, tt := range []struct {
		node *corev1.Node
		want string
	}{{nodes[0], zone + "=a"}, {nodes[2], "!" + zone}, {nil, "!" + zone}} {
		if got := p.WaveOf(tt.node); got != tt.want {
			t.Errorf("WaveOf = %q, want %q", got, tt.want)
		}
	}
	var none daemon.RolloutPolicy
	if got := none.WaveOf(nodes[0]); got != "" {
		t.Errorf("WaveOf without an order label = %q, want \"\"", got)
	}
}

// Waves by zone with a bake: zone a is replaced first; once its pods are
// all new and available, zone b waits until they have been available for
// the bake, and the plan asks to look again when it ends.
func ExampleRolloutPolicy_waves() {
	ds := dt.DaemonSet("agent", dt.WithMaxUnavailable("100%"))
	nodes, pods := oldCluster(ds, 4)
	pol := daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: zone}, Waves: &rollout.WaveBarrier{Bake: 15 * time.Minute}}
	plan, _ := daemon.Compute(ds, nodes, pods, daemon.Options{Now: dt.Epoch, Rollout: pol, ReportStanding: true})
	fmt.Println("waves", plan.Standing.Waves)
	printPlan(plan)

	// Ten minutes later zone a runs the new revision.
	now := dt.Epoch.Add(10 * time.Minute)
	pods = []*corev1.Pod{
		dt.Pod(ds, "agent-n1-v2", "n1", dt.ReadySince(dt.Epoch.Add(5*time.Minute))), pods[1],
		dt.Pod(ds, "agent-n3-v2", "n3", dt.ReadySince(dt.Epoch.Add(8*time.Minute))), pods[3],
	}
	plan, _ = daemon.Compute(ds, nodes, pods, daemon.Options{Now: now, Rollout: pol})
	w := plan.Rolling.Policy.Wave
	fmt.Printf("%s: %d/%d updated; baking until +%v; look again in %v\n", w.Name, w.Done, w.Desired, w.BakeUntil.Sub(dt.Epoch), plan.RequeueAfter)

	plan, _ = daemon.Compute(ds, nodes, pods, daemon.Options{Now: dt.Epoch.Add(23 * time.Minute), Rollout: pol})
	printPlan(plan)
	// Output:
	// waves [topology.kubernetes.io/zone=a topology.kubernetes.io/zone=b]
	// delete agent-n1 on n1 (RollingUpdate)
	// delete agent-n3 on n3 (RollingUpdate)
	// topology.kubernetes.io/zone=a: 2/2 updated; baking until +23m0s; look again in 13m0s
	// delete agent-n2 on n2 (RollingUpdate)
	// delete agent-n4 on n4 (RollingUpdate)
}
