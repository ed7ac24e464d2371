package daemon_test

import (
	"errors"
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
)

// countStatus counts StatusByNode's nodes into the counters of a status.
func countStatus(nodes []daemon.StatusNode) appsv1.DaemonSetStatus {
	var st appsv1.DaemonSetStatus
	for _, n := range nodes {
		if !n.ShouldRun {
			if n.Pod != nil {
				st.NumberMisscheduled++
			}
			continue
		}
		st.DesiredNumberScheduled++
		if n.Pod != nil {
			st.CurrentNumberScheduled++
		}
		if n.Ready {
			st.NumberReady++
		}
		if n.Ready && n.Available {
			st.NumberAvailable++
		} else {
			st.NumberUnavailable++
		}
	}
	return st
}

// TestStatusByNodeCountsToStatus holds StatusByNode to Compute's status
// over generated clusters and the conformance corpus: counted, its nodes
// give every counter but updatedNumberScheduled.
func TestStatusByNodeCountsToStatus(t *testing.T) {
	checked := 0
	check := func(name string, ds *appsv1.DaemonSet, nodes []*corev1.Node, pods []*corev1.Pod, opts daemon.Options) {
		t.Helper()
		plan, perr := daemon.Compute(ds, nodes, pods, opts)
		got, err := daemon.StatusByNode(ds, nodes, pods, opts)
		if err != nil && perr == nil {
			t.Errorf("%s: StatusByNode() error = %v; Compute succeeded", name, err)
		}
		// Compute also fails on revision collisions and invalid budgets,
		// which StatusByNode does not look at.
		if err != nil || perr != nil || plan.Skip != "" {
			return
		}
		want := plan.Status
		want = appsv1.DaemonSetStatus{
			DesiredNumberScheduled: want.DesiredNumberScheduled, CurrentNumberScheduled: want.CurrentNumberScheduled,
			NumberMisscheduled: want.NumberMisscheduled, NumberReady: want.NumberReady,
			NumberAvailable: want.NumberAvailable, NumberUnavailable: want.NumberUnavailable,
		}
		if diff := cmp.Diff(want, countStatus(got)); diff != "" {
			t.Errorf("%s: StatusByNode() counted (-Compute's status +counted):\n%s", name, diff)
		}
		if len(got) != len(nodes) {
			t.Errorf("%s: StatusByNode() gave %d nodes for %d", name, len(got), len(nodes))
		}
		checked++
	}
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 100 {
		c := dt.GenerateCluster(r, dt.ClusterConfig{Healthy: i%4 == 0})
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

func TestStatusByNode(t *testing.T) {
	now := dt.Epoch
	ds := dt.DaemonSet("agent", dt.WithNodeSelector("role", "worker"))
	old := dt.Pod(ds, "agent-old", "w1", dt.CreatedAt(now.Add(-2*time.Hour)), dt.NotReadyPod())
	young := dt.Pod(ds, "agent-young", "w1", dt.CreatedAt(now.Add(-time.Hour)))
	stray := dt.Pod(ds, "agent-stray", "infra")
	w1, w2 := dt.Node("w1", dt.WithLabel("role", "worker")), dt.Node("w2", dt.WithLabel("role", "worker"))
	infra := dt.Node("infra")
	nodes := []*corev1.Node{w2, infra, w1}
	pods := []*corev1.Pod{young, stray, old}
	before := []any{ds.DeepCopy(), w1.DeepCopy(), w2.DeepCopy(), infra.DeepCopy(), old.DeepCopy(), young.DeepCopy(), stray.DeepCopy()}

	got, err := daemon.StatusByNode(ds, nodes, pods, daemon.Options{Now: now})
	if err != nil {
		t.Fatalf("StatusByNode() error = %v", err)
	}
	want := []daemon.StatusNode{
		{Node: infra, Pod: stray, Ready: true, Available: true},
		{Node: w1, ShouldRun: true, Pod: old}, // the oldest pod decides, not the ready one
		{Node: w2, ShouldRun: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("StatusByNode() (-want +got):\n%s", diff)
	}
	after := []any{ds, w1, w2, infra, old, young, stray}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("StatusByNode() modified its input (-before +after):\n%s", diff)
	}

	skipped := ds.DeepCopy()
	skipped.DeletionTimestamp = &metav1.Time{Time: now}
	if got, err := daemon.StatusByNode(skipped, nodes, pods, daemon.Options{Now: now}); got != nil || err != nil {
		t.Errorf("StatusByNode(being deleted) = %v, %v; want nil, nil", got, err)
	}
	if _, err := daemon.StatusByNode(nil, nodes, pods, daemon.Options{}); !errors.Is(err, daemon.ErrInvalidInput) {
		t.Errorf("StatusByNode(nil) error = %v, want ErrInvalidInput", err)
	}
	if _, err := daemon.StatusByNode(ds, []*corev1.Node{w1, w1}, nil, daemon.Options{}); !errors.Is(err, daemon.ErrInvalidInput) {
		t.Errorf("StatusByNode(duplicate nodes) error = %v, want ErrInvalidInput", err)
	}
}
