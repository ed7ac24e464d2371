package daemon_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/rollout"
)

// nodeLine is what TestReadOut checks of a NodeReadOut.
type nodeLine struct {
	Name      string
	ShouldRun bool
	Held      daemon.Hold
	Wave      string
	Pods      string // per pod: "u" updated or "o" old, then "a" available, "r" ready, "-" neither
}

func linesOf(ro *daemon.ReadOut) []nodeLine {
	var out []nodeLine
	for _, n := range ro.Nodes {
		l := nodeLine{Name: n.Name, ShouldRun: n.ShouldRun, Held: n.Held, Wave: n.Wave}
		for _, s := range n.States {
			l.Pods += map[bool]string{true: "u", false: "o"}[s.Updated]
			switch {
			case s.Available:
				l.Pods += "a"
			case s.Ready:
				l.Pods += "r"
			default:
				l.Pods += "-"
			}
		}
		out = append(out, l)
	}
	return out
}

// TestReadOut: every node with its pods judged, and the policy's holds.
func TestReadOut(t *testing.T) {
	zoneA := &metav1.LabelSelector{MatchLabels: map[string]string{zone: "a"}}
	tests := []struct {
		name      string
		kinds     []string
		pol       daemon.RolloutPolicy
		want      []nodeLine
		wantWaves []string
	}{
		{name: "zero policy", kinds: []string{"new", "old", "", "new-unready"},
			want: []nodeLine{{"n1", true, "", "", "ua"}, {"n2", true, "", "", "oa"}, {"n3", true, "", "", ""}, {"n4", true, "", "", "u-"}}},
		{name: "scope", kinds: []string{"old", "old", "old", "old"}, pol: daemon.RolloutPolicy{Scope: zoneA},
			want: []nodeLine{{"n1", true, "", "", "oa"}, {"n2", true, daemon.HeldScope, "", "oa"}, {"n3", true, "", "", "oa"}, {"n4", true, daemon.HeldScope, "", "oa"}}},
		{name: "partition keeps the last old nodes", kinds: []string{"new", "old", "old", "old"}, pol: daemon.RolloutPolicy{Partition: pios("2")},
			want: []nodeLine{{"n1", true, "", "", "ua"}, {"n2", true, "", "", "oa"}, {"n3", true, daemon.HeldPartition, "", "oa"}, {"n4", true, daemon.HeldPartition, "", "oa"}}},
		{name: "a later wave waits", kinds: []string{"new-unready", "old", "old", "old"},
			pol: daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: zone}, Waves: &rollout.WaveBarrier{}},
			want: []nodeLine{{"n1", true, "", zone + "=a", "u-"}, {"n2", true, daemon.HeldWave, zone + "=b", "oa"},
				{"n3", true, "", zone + "=a", "oa"}, {"n4", true, daemon.HeldWave, zone + "=b", "oa"}},
			wantWaves: []string{zone + "=a", zone + "=b"}},
		{name: "paused", kinds: []string{"new", "old"}, pol: daemon.RolloutPolicy{Paused: true},
			want: []nodeLine{{"n1", true, "", "", "ua"}, {"n2", true, daemon.HeldPaused, "", "oa"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := dt.DaemonSet("agent", dt.WithMaxUnavailable("1"))
			nodes, _ := oldCluster(ds, len(tt.kinds))
			pods := podsOf(ds, dt.Epoch.Add(-time.Hour), tt.kinds...)
			opts := daemon.Options{Now: dt.Epoch, Rollout: tt.pol}
			plain, err := daemon.Compute(ds, nodes, pods, opts)
			if err != nil {
				t.Fatal(err)
			}
			if plain.ReadOut != nil {
				t.Error("a plan without Options.ReadOut has a read-out")
			}
			opts.ReadOut = true
			plan, err := daemon.Compute(ds, nodes, pods, opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, linesOf(plan.ReadOut)); diff != "" {
				t.Errorf("nodes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantWaves, plan.ReadOut.Waves); diff != "" {
				t.Errorf("waves (-want +got):\n%s", diff)
			}
			// The read-out changes nothing else in the plan.
			plan.ReadOut = nil
			if diff := cmp.Diff(plain, plan, conformancePlanOptions); diff != "" {
				t.Errorf("plan with a read-out differs (-without +with):\n%s", diff)
			}
		})
	}
}

// The read-out of a plan in the middle of a canary: n1 updated, the
// partition keeps the others.
func ExamplePlan_readOut() {
	ds := dt.DaemonSet("agent", dt.WithImage("registry.example/agent:v2"), dt.WithMaxUnavailable("1"))
	nodes, pods := oldCluster(ds, 3)
	pods = settle(dt.Pod(ds, "v2", ""), pods, "n1")
	opts := daemon.Options{Now: dt.Epoch, Rollout: daemon.RolloutPolicy{Partition: pios("2")}, ReadOut: true}
	plan, _ := daemon.Compute(ds, nodes, pods, opts)
	for _, n := range plan.ReadOut.Nodes {
		fmt.Printf("%s desired=%v updated=%v available=%v held=%q\n", n.Name, n.ShouldRun, n.HasUpdated(), n.HasAvailable(), n.Held)
	}
	// Output:
	// n1 desired=true updated=true available=true held=""
	// n2 desired=true updated=false available=true held="Partition"
	// n3 desired=true updated=false available=true held="Partition"
}
