package daemontest_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/simulate"
)

// TestSteadyCluster checks the cluster SteadyCluster builds: names, pods on
// the nodes the DaemonSet selects, the status, and a zero plan.
func TestSteadyCluster(t *testing.T) {
	type shape struct {
		Nodes, Pods []string
		Desired     int32
		Gate        bool
	}
	tests := []struct {
		name string
		ds   *appsv1.DaemonSet
		n    int
		opts []dt.NodeOption
		want shape
	}{
		{name: "none", ds: dt.DaemonSet("a"), n: 0, want: shape{}},
		{name: "negative", ds: dt.DaemonSet("a"), n: -3, want: shape{}},
		{
			name: "three",
			ds:   dt.DaemonSet("a"),
			n:    3,
			want: shape{Nodes: []string{"node-0", "node-1", "node-2"}, Pods: []string{"a-node-0", "a-node-1", "a-node-2"}, Desired: 3},
		},
		{
			name: "padded names sort in number order",
			ds:   dt.DaemonSet("a"),
			n:    11,
			want: shape{
				Nodes:   []string{"node-00", "node-01", "node-02", "node-03", "node-04", "node-05", "node-06", "node-07", "node-08", "node-09", "node-10"},
				Pods:    []string{"a-node-00", "a-node-01", "a-node-02", "a-node-03", "a-node-04", "a-node-05", "a-node-06", "a-node-07", "a-node-08", "a-node-09", "a-node-10"},
				Desired: 11,
			},
		},
		{
			name: "nodes the selector leaves out get no pod",
			ds:   dt.DaemonSet("a", dt.WithNodeSelector("role", "edge")),
			n:    2,
			want: shape{Nodes: []string{"node-0", "node-1"}},
		},
		{
			name: "node options apply to every node",
			ds:   dt.DaemonSet("a", dt.WithNodeSelector("role", "edge")),
			n:    2,
			opts: []dt.NodeOption{dt.WithLabel("role", "edge")},
			want: shape{Nodes: []string{"node-0", "node-1"}, Pods: []string{"a-node-0", "a-node-1"}, Desired: 2},
		},
		{
			name: "Gt toleration turns the gate on",
			ds:   dt.DaemonSet("a", dt.WithTolerationGt("level", "3", corev1.TaintEffectNoSchedule)),
			n:    1,
			opts: []dt.NodeOption{dt.WithTaint("level", "5", corev1.TaintEffectNoSchedule)},
			want: shape{Nodes: []string{"node-0"}, Pods: []string{"a-node-0"}, Desired: 1, Gate: true},
		},
		{
			name: "Equal toleration",
			ds:   dt.DaemonSet("a", dt.WithTolerationEqual("dedicated", "infra", "")),
			n:    1,
			opts: []dt.NodeOption{dt.WithTaint("dedicated", "infra", corev1.TaintEffectNoExecute)},
			want: shape{Nodes: []string{"node-0"}, Pods: []string{"a-node-0"}, Desired: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.ds.DeepCopy()
			c := dt.SteadyCluster(tt.ds, tt.n, tt.opts...)
			got := shape{Desired: c.DaemonSet.Status.DesiredNumberScheduled, Gate: c.EnableTaintTolerationComparisonOperators}
			for _, n := range c.Nodes {
				got.Nodes = append(got.Nodes, n.Name)
			}
			for _, p := range c.Pods {
				got.Pods = append(got.Pods, p.Name)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("cluster (-want,+got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tt.ds); diff != "" {
				t.Errorf("SteadyCluster modified ds (-before,+after):\n%s", diff)
			}
			plan, err := c.Input().Compute()
			if err != nil {
				t.Fatalf("Compute: %v", err)
			}
			if !plan.IsZero() {
				t.Errorf("plan of a steady cluster is not zero: %+v", plan)
			}
			if err := simulate.Converged(c, dt.Hash(c.DaemonSet)); err != nil {
				t.Errorf("Converged: %v", err)
			}
		})
	}
	if c := dt.SteadyCluster(nil, 3); c != nil {
		t.Errorf("SteadyCluster(nil) = %+v, want nil", c)
	}
}

// TestTolerationOptions pins the tolerations the options add.
func TestTolerationOptions(t *testing.T) {
	ds := dt.DaemonSet("a",
		dt.WithToleration("k", corev1.TaintEffectNoSchedule),
		dt.WithTolerationEqual("dedicated", "infra", corev1.TaintEffectNoExecute),
		dt.WithTolerationGt("level", "3", corev1.TaintEffectNoSchedule),
		dt.WithTolerationLt("level", "9", ""),
	)
	want := []corev1.Toleration{
		{Key: "k", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "infra", Effect: corev1.TaintEffectNoExecute},
		{Key: "level", Operator: corev1.TolerationOpGt, Value: "3", Effect: corev1.TaintEffectNoSchedule},
		{Key: "level", Operator: corev1.TolerationOpLt, Value: "9"},
	}
	if diff := cmp.Diff(want, ds.Spec.Template.Spec.Tolerations); diff != "" {
		t.Errorf("tolerations (-want,+got):\n%s", diff)
	}
}

// TestPeak checks the summary on hand-made results and on a simulated
// rollout.
func TestPeak(t *testing.T) {
	budgets := func(u, s int) simulate.Budgets { return simulate.Budgets{Desired: 10, MaxUnavailable: u, MaxSurge: s} }
	tests := []struct {
		name string
		res  simulate.Result
		want simulate.Peak
	}{
		{name: "no steps", res: simulate.Result{StartDown: 2, StartSurge: 1}, want: simulate.Peak{MaxDown: 2, MaxDownStep: -1, MaxSurge: 1, MaxSurgeStep: -1}},
		{
			name: "within budget",
			res: simulate.Result{Steps: []simulate.StepTrace{
				{Step: 0, Down: 1, Budgets: budgets(2, 0)},
				{Step: 1, Down: 2, Budgets: budgets(2, 0)},
				{Step: 2, Down: 2, Budgets: budgets(2, 0)},
			}},
			want: simulate.Peak{MaxDown: 2, MaxDownStep: 1, MaxUnavailable: 2, MaxSurgeStep: -1},
		},
		{
			name: "over both budgets",
			res: simulate.Result{Steps: []simulate.StepTrace{
				{Step: 0, Down: 0, Surge: 2, Budgets: budgets(0, 1)},
				{Step: 1, Down: 1, Surge: 1, Budgets: budgets(0, 1)},
			}},
			want: simulate.Peak{MaxDown: 1, MaxDownStep: 1, MaxSurge: 2, MaxSurgeStep: 0, SurgeBudget: 1, OverBudget: []int{0, 1}},
		},
		{
			name: "down from the start is not over budget",
			res: simulate.Result{StartDown: 5, Steps: []simulate.StepTrace{
				{Step: 0, Down: 5, Budgets: budgets(1, 0)},
				{Step: 1, Down: 3, Budgets: budgets(1, 0)},
			}},
			want: simulate.Peak{MaxDown: 5, MaxDownStep: -1, MaxUnavailable: 1, MaxSurgeStep: -1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.res.Peak()); diff != "" {
				t.Errorf("Peak (-want,+got):\n%s", diff)
			}
		})
	}

	t.Run("simulated rollouts", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			ds   *appsv1.DaemonSet
			want simulate.Peak
		}{
			{"maxUnavailable 3", dt.DaemonSet("a", dt.WithMaxUnavailable("3")), simulate.Peak{MaxDown: 3, MaxDownStep: 0, MaxUnavailable: 3, MaxSurgeStep: -1}},
			{"maxSurge 20%", dt.DaemonSet("a", dt.WithMaxUnavailable("0"), dt.WithMaxSurge("20%")), simulate.Peak{MaxDownStep: -1, MaxSurge: 4, MaxSurgeStep: 0, SurgeBudget: 4}},
		} {
			c := dt.SteadyCluster(tc.ds, 20)
			res := simulate.Run(c, simulate.Config{ReadyDelay: 5 * time.Second, GracePeriod: 10 * time.Second, Check: dt.Checker(dt.CheckOptions{}),
				Events: []simulate.Event{{Kind: simulate.TemplateChange, Image: "registry.example/a:v2"}}})
			if err := res.Err(); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if diff := cmp.Diff(tc.want, res.Peak()); diff != "" {
				t.Errorf("%s: Peak (-want,+got):\n%s", tc.name, diff)
			}
		}
	})
}
