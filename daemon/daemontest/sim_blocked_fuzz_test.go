package daemontest_test

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/simulate"
	"github.com/daemonplan/daemonplan/daemon/whatif"
)

// FuzzSimulateBlocked draws a healthy cluster (rolling out or settled),
// breaks some of it as real clusters are broken (NotReady nodes,
// crash-looping pods), simulates it and checks the invariants of the
// outcomes (issue 31 §2):
//   - a Converged run names no Blocker;
//   - a Blocked run names at least one, each a NotReady node or a failing
//     pod, sorted by node and once each, and its judgement is not
//     complete;
//   - assuming the Blockers' nodes Ready (simulate.Assume), the run
//     reaches an end (no step limit) and none of them blocks it again
//     (others may: a NotReady node whose old pod was still Ready blocks
//     once the rollout replaces that pod).
func FuzzSimulateBlocked(f *testing.F) {
	for seed := range uint64(16) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		r := rand.New(rand.NewPCG(seed, 0x626c6b)) // "blk"
		c := dt.GenerateCluster(r, dt.ClusterConfig{Healthy: true, Rollout: r.IntN(2) == 0})
		if r.IntN(2) == 0 { // a node agent: tolerates NotReady nodes too
			c.DaemonSet.Spec.Template.Spec.Tolerations = append(c.DaemonSet.Spec.Template.Spec.Tolerations, corev1.Toleration{Operator: corev1.TolerationOpExists})
		}
		for _, n := range c.Nodes {
			if r.IntN(5) == 0 {
				simulate.SetNodeReady(n, false, c.Now)
			}
		}
		for _, p := range c.Pods {
			if r.IntN(5) == 0 {
				breakPod(p, c.Now, int32(r.IntN(20)))
			}
		}
		cfg := simulate.Config{ReadyDelay: 2 * time.Second, MaxSteps: 400}
		res := simulate.Run(c, cfg)
		switch res.Outcome {
		case simulate.OutcomeConverged:
			if res.Blocking != nil {
				t.Fatalf("Converged with Blocking %+v", res.Blocking)
			}
			return
		case simulate.OutcomeBlocked:
		default:
			return
		}
		if len(res.Blocking) == 0 || res.Judgement.Complete {
			t.Fatalf("Blocked with Blocking %+v, judgement complete %v", res.Blocking, res.Judgement.Complete)
		}
		var nodes []string
		for _, b := range res.Blocking {
			if b.Cause != whatif.CauseNodeNotReady && b.Failing == "" {
				t.Fatalf("Blocker %+v: neither a NotReady node nor a failing pod", b)
			}
			nodes = append(nodes, b.Node)
		}
		if !slices.IsSorted(nodes) || len(slices.Compact(slices.Clone(nodes))) != len(nodes) {
			t.Fatalf("Blocking nodes %v: want sorted, once each", nodes)
		}
		assumed, _, err := simulate.Assume(c, simulate.Assumptions{Ready: nodes})
		if err != nil {
			t.Fatal(err)
		}
		again := simulate.Run(assumed, cfg)
		if again.Outcome == simulate.OutcomeStepLimit {
			t.Fatalf("assuming %v Ready: %s (%s)", nodes, again.Outcome, again.Reason)
		}
		for _, b := range again.Blocking {
			if slices.Contains(nodes, b.Node) {
				t.Fatalf("assuming %v Ready: %s, still blocked by %+v", nodes, again.Outcome, b)
			}
		}
	})
}

// breakPod makes p crash-loop with restarts restarts, not Ready since
// creation.
func breakPod(p *corev1.Pod, now time.Time, restarts int32) {
	p.Status.Phase = corev1.PodRunning
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main", RestartCount: restarts,
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}}}
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse,
		LastTransitionTime: metav1.Time{Time: now.Add(-time.Hour)}}}
}
