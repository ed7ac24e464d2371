package daemon_test

import (
	"fmt"
	"math/rand/v2"
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

// nodeLine is what TestStanding checks of a NodeStanding.
type nodeLine struct {
	Name      string
	ShouldRun bool
	Held      daemon.KeepReason
	Wave      string
	Pods      string // per pod: "u" updated or "o" old, then "a" available, "r" ready, "-" neither
}

func linesOf(ro *daemon.Standing) []nodeLine {
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

// TestStanding: every node with its pods judged, and the policy's holds.
func TestStanding(t *testing.T) {
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
		{name: "partition: an unavailable old pod goes first, the available ones are kept", kinds: []string{"new", "old", "old-unready", "old"},
			pol:  daemon.RolloutPolicy{Partition: pios("2")},
			want: []nodeLine{{"n1", true, "", "", "ua"}, {"n2", true, daemon.HeldPartition, "", "oa"}, {"n3", true, "", "", "o-"}, {"n4", true, daemon.HeldPartition, "", "oa"}}},
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
			pods := dt.PodsByKind(ds, dt.Epoch.Add(-time.Hour), tt.kinds...)
			opts := daemon.Options{Now: dt.Epoch, Rollout: tt.pol}
			plain, err := daemon.Compute(ds, nodes, pods, opts)
			if err != nil {
				t.Fatal(err)
			}
			if plain.Standing != nil {
				t.Error("a plan without Options.ReportStanding has a standing")
			}
			opts.ReportStanding = true
			plan, err := daemon.Compute(ds, nodes, pods, opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, linesOf(plan.Standing)); diff != "" {
				t.Errorf("nodes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantWaves, plan.Standing.Waves); diff != "" {
				t.Errorf("waves (-want +got):\n%s", diff)
			}
			// The standing changes nothing else in the plan.
			plan.Standing = nil
			if diff := cmp.Diff(plain, plan, conformancePlanOptions); diff != "" {
				t.Errorf("plan with a standing differs (-without +with):\n%s", diff)
			}
		})
	}
}

// The standing of a plan in the middle of a canary: n1 updated, the
// partition keeps the others.
func ExamplePlan_standing() {
	ds := dt.DaemonSet("agent", dt.WithImage("registry.example/agent:v2"), dt.WithMaxUnavailable("1"))
	nodes, pods := oldCluster(ds, 3)
	pods = settle(dt.Pod(ds, "v2", ""), pods, "n1")
	opts := daemon.Options{Now: dt.Epoch, Rollout: daemon.RolloutPolicy{Partition: pios("2")}, ReportStanding: true}
	plan, _ := daemon.Compute(ds, nodes, pods, opts)
	for _, n := range plan.Standing.Nodes {
		fmt.Printf("%s desired=%v updated=%v available=%v held=%q\n", n.Name, n.ShouldRun, n.HasUpdated(), n.HasAvailable(), n.Held)
	}
	// Output:
	// n1 desired=true updated=true available=true held=""
	// n2 desired=true updated=false available=true held="Partition"
	// n3 desired=true updated=false available=true held="Partition"
}

// countStatus counts a standing into the counters of a status, with the
// pod the status counts on each node.
func countStatus(ro *daemon.Standing) appsv1.DaemonSetStatus {
	var st appsv1.DaemonSetStatus
	for _, n := range ro.Nodes {
		if n.Missing {
			continue
		}
		if !n.ShouldRun {
			if len(n.Pods) > 0 {
				st.NumberMisscheduled++
			}
			continue
		}
		st.DesiredNumberScheduled++
		if n.Oldest < 0 {
			st.NumberUnavailable++
			continue
		}
		st.CurrentNumberScheduled++
		s := n.States[n.Oldest]
		if s.Ready {
			st.NumberReady++
		}
		if s.Ready && s.Available {
			st.NumberAvailable++
		} else {
			st.NumberUnavailable++
		}
		if s.Updated {
			st.UpdatedNumberScheduled++
		}
	}
	return st
}

// TestStandingCountsToStatus holds the standing to the plan's status over
// generated clusters (under drawn policies too) and the conformance
// corpus: counted, its nodes give every counter of the status.
func TestStandingCountsToStatus(t *testing.T) {
	checked := 0
	check := func(name string, ds *appsv1.DaemonSet, nodes []*corev1.Node, pods []*corev1.Pod, opts daemon.Options) {
		t.Helper()
		opts.ReportStanding = true
		plan, err := daemon.Compute(ds, nodes, pods, opts)
		if plan.Standing == nil {
			if err == nil && plan.Skip == "" {
				t.Errorf("%s: a plan without error or skip has no standing", name)
			}
			return
		}
		want := plan.Status
		want = appsv1.DaemonSetStatus{
			DesiredNumberScheduled: want.DesiredNumberScheduled, CurrentNumberScheduled: want.CurrentNumberScheduled,
			NumberMisscheduled: want.NumberMisscheduled, NumberReady: want.NumberReady, UpdatedNumberScheduled: want.UpdatedNumberScheduled,
			NumberAvailable: want.NumberAvailable, NumberUnavailable: want.NumberUnavailable,
		}
		if diff := cmp.Diff(want, countStatus(plan.Standing)); diff != "" {
			t.Errorf("%s: standing counted (-status +counted):\n%s", name, diff)
		}
		existing := 0
		for _, n := range plan.Standing.Nodes {
			if !n.Missing {
				existing++
			}
		}
		if existing != len(nodes) {
			t.Errorf("%s: the standing has %d nodes for %d", name, existing, len(nodes))
		}
		checked++
	}
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 100 {
		c := dt.GenerateCluster(r, dt.ClusterConfig{Healthy: i%4 == 0, Rollout: i%4 == 0})
		if i%3 == 0 {
			c.Rollout = daemon.RolloutPolicy{Partition: pios("1"), Order: daemon.UpdateOrder{Label: "kubernetes.io/hostname"},
				Waves: &rollout.WaveBarrier{}, Paused: i%2 == 0}
		}
		in := c.Input()
		check(fmt.Sprintf("generated %d", i), in.DaemonSet, in.Nodes, in.Pods, in.Options)
	}
	for i, s := range loadConformanceScenarios(t) {
		if i%2 == 1 {
			continue // half the corpus covers the cases; all of it costs seconds under -race
		}
		check(s.Name, s.DaemonSet, s.Nodes, s.Pods, daemon.Options{Now: s.Now, Revisions: s.Revisions})
	}
	if checked < 150 {
		t.Errorf("only %d inputs compared", checked)
	}
}
