package companion

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/daemon/simulate"
	"github.com/daemonplan/daemonplan/examples/controller/internal/kubetest"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// TestPlanningViewKeepsProgress judges generated clusters' rollouts
// (progressive.Judge) twice: with every object padded with the fields the informers' transform
// (syncer.PlanningView) drops, and with the objects as the informers store
// them. The judgements must be the same: a field the transform drops and the
// judgement reads fails here (syncer's TestPlanningViewKeepsPlans does the
// same for the plans).
func TestPlanningViewKeepsProgress(t *testing.T) {
	for i := range 200 {
		cfg := dt.ClusterConfig{}
		switch i % 4 {
		case 1:
			cfg = dt.ClusterConfig{Healthy: true}
		case 2:
			cfg = dt.ClusterConfig{Healthy: true, Rollout: true, Nodes: 1 + i%30}
		case 3:
			cfg.Nodes = 1 + i%30
		}
		r := rand.New(rand.NewPCG(uint64(i), 0x7472696d))
		c := dt.GenerateCluster(r, cfg)
		kubetest.Pad(r, c)
		thin := c.DeepCopy()
		thin.DaemonSet = viewOf(t, thin.DaemonSet)
		for j, n := range thin.Nodes {
			thin.Nodes[j] = viewOf(t, n)
		}
		for j, p := range thin.Pods {
			thin.Pods[j] = viewOf(t, p)
		}
		for _, policy := range []daemon.RolloutPolicy{c.Rollout, {Order: daemon.UpdateOrder{Label: "zone"}}} {
			fat, lean := c.Input(), thin.Input()
			if d := cmp.Diff(progressOf(fat, policy), progressOf(lean, policy)); d != "" {
				t.Errorf("generated-%03d/order=%q: padded vs transformed (-padded +transformed):\n%s", i, policy.Order.Label, d)
			}
		}
	}
}

func viewOf[T *appsv1.DaemonSet | *corev1.Node | *corev1.Pod](t *testing.T, o T) T {
	t.Helper()
	v, err := syncer.PlanningView(o)
	if err != nil {
		t.Fatalf("PlanningView: %v", err)
	}
	return v.(T)
}

func progressOf(in simulate.Input, policy daemon.RolloutPolicy) string {
	in.Options.Rollout, in.Options.ReportStanding = policy, true
	plan, err := daemon.Compute(in.DaemonSet, in.Nodes, in.Pods, in.Options)
	if err != nil {
		return "error: " + err.Error()
	}
	j, err := progressive.Judge(in.DaemonSet, &plan)
	if err != nil {
		return "error: " + err.Error()
	}
	return fmt.Sprintf("%+v", j)
}
