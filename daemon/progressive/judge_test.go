package progressive_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/rollout"
)

// judge computes the plan of ds with the standing and judges it.
func judge(ds *appsv1.DaemonSet, nodes []*corev1.Node, pods []*corev1.Pod, opts daemon.Options) (progressive.Judgement, error) {
	opts.ReportStanding = true
	plan, err := daemon.Compute(ds, nodes, pods, opts)
	if err != nil {
		return progressive.Judgement{}, err
	}
	return progressive.Judge(ds, &plan)
}

// TestJudgeReason: the verdict and its reason, named in the policy's terms
// (the cases of daemon's RolloutComplete, which the judge replaces).
func TestJudgeReason(t *testing.T) {
	zoneA := &metav1.LabelSelector{MatchLabels: map[string]string{zone: "a"}}
	waves := func(bake time.Duration) daemon.RolloutPolicy {
		return daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: zone}, Waves: &rollout.WaveBarrier{Bake: bake}}
	}
	tests := []struct {
		name     string
		ds       []dt.DaemonSetOption
		kinds    []string
		readyAgo time.Duration
		// tainted nodes carry a NoSchedule taint the DaemonSet does not
		// tolerate: they may no longer get a pod but keep theirs.
		tainted  []string
		pol      daemon.RolloutPolicy
		burst    int
		want     progressive.Reason
		wantText string
	}{
		{name: "all old, zero policy", kinds: []string{"old", "old", "old", "old"},
			want: progressive.Reason{Cause: progressive.CauseReplacing, Count: 4, Nodes: []string{"n1", "n2", "n3", "n4"}}},
		{name: "all updated, zero policy", kinds: []string{"new", "new", "new", "new"}, want: progressive.Reason{Cause: progressive.CauseComplete}},
		{name: "a pod not ready, zero policy", kinds: []string{"new", "new-unready", "new", "new"},
			want:     progressive.Reason{Cause: progressive.CauseUnavailable, Count: 3, Of: 4, Nodes: []string{"n2"}},
			wantText: "3 of 4 desired nodes have an available pod; waiting for n2"},
		{name: "OnDelete waits for deletes", ds: []dt.DaemonSetOption{dt.OnDelete()}, kinds: []string{"new", "old", "old", "new"},
			want: progressive.Reason{Cause: progressive.CauseNotUpdated, Count: 2, Of: 4, Nodes: []string{"n2", "n3"}}},
		{name: "a missing pod", kinds: []string{"new", "", "new", "new"},
			want: progressive.Reason{Cause: progressive.CauseCreatingDeleting, Count: 1, Nodes: []string{"n2"}}},
		{name: "paused with pods to replace", kinds: []string{"new", "new", "old", "old"}, pol: daemon.RolloutPolicy{Paused: true},
			want:     progressive.Reason{Cause: progressive.CausePaused, Count: 2, Nodes: []string{"n3", "n4"}},
			wantText: "paused: the rolling step would replace 2 pods on n3, n4"},
		{name: "paused under a burst cap of 1: all counted, the first named", kinds: []string{"new", "new", "old", "old"},
			pol: daemon.RolloutPolicy{Paused: true}, burst: 1,
			want: progressive.Reason{Cause: progressive.CausePaused, Count: 2, Nodes: []string{"n3"}}},
		{name: "paused at the partition", kinds: []string{"new", "new", "old", "old"}, pol: daemon.RolloutPolicy{Paused: true, Partition: pios("2")},
			want: progressive.Reason{Cause: progressive.CausePartitionReached, Count: 2, Of: 2}},
		{name: "partition reached", kinds: []string{"new", "new", "old", "old"}, pol: daemon.RolloutPolicy{Partition: pios("2")},
			want:     progressive.Reason{Cause: progressive.CausePartitionReached, Count: 2, Of: 2},
			wantText: "complete at the partition: 2 nodes keep the old revision (partition 2)"},
		{name: "scope done", kinds: []string{"new", "old", "new", "old"}, pol: daemon.RolloutPolicy{Scope: zoneA},
			want: progressive.Reason{Cause: progressive.CauseComplete}},
		{name: "budget used up outside the scope", ds: []dt.DaemonSetOption{dt.WithMaxUnavailable("2")},
			kinds: []string{"old", "old-unready", "old", "old-unready", "old", "old"}, pol: daemon.RolloutPolicy{Scope: zoneA},
			want:     progressive.Reason{Cause: progressive.CauseBudgetOutsideScope, Count: 2, Of: 2, Nodes: []string{"n2", "n4"}},
			wantText: "maxUnavailable (2) is used up, 2 nodes by unavailable nodes outside the scope: n2, n4"},
		{name: "budget used up by a new pod not ready", ds: []dt.DaemonSetOption{dt.WithMaxUnavailable("1")},
			kinds: []string{"new-unready", "old", "old", "old"}, pol: daemon.RolloutPolicy{Strict: true},
			want: progressive.Reason{Cause: progressive.CauseBudget, Count: 1, Of: 1, Nodes: []string{"n1"}}},
		{name: "domain budgets used up", kinds: []string{"new-unready", "new-unready", "old", "old"},
			pol:  daemon.RolloutPolicy{DomainBudget: &daemon.DomainBudget{Label: zone, MaxUnavailable: pios("1")}},
			want: progressive.Reason{Cause: progressive.CauseDomainBudget, Count: 2, Nodes: []string{"n1", "n2"}}},
		{name: "a wave bakes", kinds: []string{"new", "old", "new", "old"}, readyAgo: time.Minute, pol: waves(time.Hour),
			want:     progressive.Reason{Cause: progressive.CauseWaveBaking, Wave: zone + "=a", Until: dt.Epoch.Add(59 * time.Minute)},
			wantText: "wave topology.kubernetes.io/zone=a is updated and available; it bakes until 2025-06-01T12:59:00Z"},
		{name: "a wave waits for a node", kinds: []string{"new-unready", "old", "new", "old"}, pol: waves(0),
			want:     progressive.Reason{Cause: progressive.CauseWaveWaiting, Wave: zone + "=a", Count: 1, Of: 2, Nodes: []string{"n1"}},
			wantText: "wave topology.kubernetes.io/zone=a: 1/2 updated and available; waiting for n1"},
		{name: "a node that may no longer run keeps an unavailable new pod",
			kinds: []string{"new", "new", "new", "new-unready"}, tainted: []string{"n4"}, pol: waves(0),
			want: progressive.Reason{Cause: progressive.CauseComplete}},
		{name: "the budget spent by a node that may no longer run", ds: []dt.DaemonSetOption{dt.WithMaxUnavailable("1")},
			kinds: []string{"old", "old", "old", "new-unready"}, tainted: []string{"n4"}, pol: daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: zone}},
			want:     progressive.Reason{Cause: progressive.CauseBudget, Count: 1, Of: 1, Nodes: []string{"n4"}},
			wantText: "maxUnavailable (1) is used up by 1 unavailable node: n4"},
		{name: "the last wave's bake does not hold completion", kinds: []string{"new", "new", "new", "new"}, readyAgo: time.Minute, pol: waves(time.Hour),
			want: progressive.Reason{Cause: progressive.CauseComplete}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := dt.DaemonSet("agent", append([]dt.DaemonSetOption{dt.WithMaxUnavailable("100%")}, tt.ds...)...)
			nodes, _ := oldCluster(ds, len(tt.kinds))
			for _, n := range nodes {
				if slices.Contains(tt.tainted, n.Name) {
					n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: "dedicated", Value: "other", Effect: corev1.TaintEffectNoSchedule})
				}
			}
			readyAgo := tt.readyAgo
			if readyAgo == 0 {
				readyAgo = time.Hour
			}
			pods := dt.PodsByKind(ds, dt.Epoch.Add(-readyAgo), tt.kinds...)
			got, err := judge(ds, nodes, pods, daemon.Options{Now: dt.Epoch, Rollout: tt.pol, BurstReplicas: tt.burst})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.Reason); diff != "" {
				t.Errorf("reason (-want +got):\n%s", diff)
			}
			if got.Complete != tt.want.Complete() {
				t.Errorf("complete = %v, want %v", got.Complete, tt.want.Complete())
			}
			if tt.wantText != "" && got.Reason.String() != tt.wantText {
				t.Errorf("String() = %q, want %q", got.Reason.String(), tt.wantText)
			}
		})
	}
}

// TestJudgeTally: the counts over the desired nodes, in all and per wave.
// The scoped case is the one kubectl dsplan rollout status used to count
// as "2/4" where the companion said "2/2 (2 outside the scope)".
func TestJudgeTally(t *testing.T) {
	zoneA := &metav1.LabelSelector{MatchLabels: map[string]string{zone: "a"}}
	tests := []struct {
		name        string
		kinds       []string
		pol         daemon.RolloutPolicy
		want        progressive.Tally
		wantWaves   []progressive.Tally
		wantWaiting []string
	}{
		{name: "zero policy", kinds: []string{"new", "old", "", "new-unready"},
			want:        progressive.Tally{Desired: 4, Updated: 1, Available: 2, Old: 1, Waiting: 2},
			wantWaiting: []string{"n3", "n4"}},
		{name: "scope: nodes outside are held, not desired", kinds: []string{"new", "old", "new", "old"}, pol: daemon.RolloutPolicy{Scope: zoneA},
			want: progressive.Tally{Desired: 2, Updated: 2, Available: 2, Held: 2}},
		{name: "partition keeps the last old nodes", kinds: []string{"new", "old", "old", "old"}, pol: daemon.RolloutPolicy{Partition: pios("2")},
			want: progressive.Tally{Desired: 4, Updated: 1, Available: 4, Old: 3, Kept: 2}},
		{name: "per wave", kinds: []string{"new", "old", "new-unready", "old"}, pol: daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: zone, Values: []string{"b"}}},
			want: progressive.Tally{Desired: 4, Updated: 1, Available: 3, Old: 2, Waiting: 1},
			wantWaves: []progressive.Tally{
				{Wave: zone + "=b", Desired: 2, Available: 2, Old: 2},
				{Wave: zone + "=a", Desired: 2, Updated: 1, Available: 1, Waiting: 1},
			},
			wantWaiting: []string{"n3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := dt.DaemonSet("agent", dt.WithMaxUnavailable("1"))
			nodes, _ := oldCluster(ds, len(tt.kinds))
			pods := dt.PodsByKind(ds, dt.Epoch.Add(-time.Hour), tt.kinds...)
			got, err := judge(ds, nodes, pods, daemon.Options{Now: dt.Epoch, Rollout: tt.pol})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.Total); diff != "" {
				t.Errorf("Total (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantWaves, got.Waves); diff != "" {
				t.Errorf("Waves (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantWaiting, got.Waiting, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Waiting (-want +got):\n%s", diff)
			}
		})
	}
}

func TestJudgeNeedsStanding(t *testing.T) {
	ds := dt.DaemonSet("agent")
	nodes, pods := oldCluster(ds, 2)
	plan, err := daemon.Compute(ds, nodes, pods, daemon.Options{Now: dt.Epoch})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := progressive.Judge(ds, &plan); err == nil {
		t.Fatal("Judge of a plan without a standing: no error")
	}
}

func TestDeadline(t *testing.T) {
	t0 := dt.Epoch
	tests := []struct {
		name         string
		j            progressive.Judgement
		since, now   time.Time
		d            time.Duration
		wantExceeded bool
		wantWait     time.Duration
	}{
		{name: "no deadline", since: t0, now: t0.Add(time.Hour)},
		{name: "within", since: t0, now: t0.Add(4 * time.Minute), d: 5 * time.Minute, wantWait: time.Minute},
		{name: "exactly at", since: t0, now: t0.Add(5 * time.Minute), d: 5 * time.Minute, wantExceeded: true},
		{name: "progress moves it", j: progressive.Judgement{LastAvailable: t0.Add(3 * time.Minute)}, since: t0, now: t0.Add(6 * time.Minute),
			d: 5 * time.Minute, wantWait: 2 * time.Minute},
		{name: "complete never exceeds", j: progressive.Judgement{Complete: true}, since: t0, now: t0.Add(time.Hour), d: time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exceeded, wait := tt.j.Deadline(tt.since, tt.d, tt.now)
			if exceeded != tt.wantExceeded || wait != tt.wantWait {
				t.Errorf("Deadline = %v, %v; want %v, %v", exceeded, wait, tt.wantExceeded, tt.wantWait)
			}
		})
	}
}

// TestJudgeWithoutStanding: a plan computed without Options.ReportStanding
// is an input error naming the DaemonSet once, as a *daemon.Error.
func TestJudgeWithoutStanding(t *testing.T) {
	_, err := progressive.Judge(dt.DaemonSet("agent"), &daemon.Plan{})
	var de *daemon.Error
	if !errors.As(err, &de) || !errors.Is(err, daemon.ErrInvalidInput) {
		t.Fatalf("Judge without a standing: %v, want a *daemon.Error matching ErrInvalidInput", err)
	}
	if diff := cmp.Diff("default/agent", de.DaemonSet); diff != "" {
		t.Errorf("the error's DaemonSet (-want +got):\n%s", diff)
	}
}
