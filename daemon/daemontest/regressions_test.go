package daemontest_test

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/backoff"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/simulate"
)

// The findings of this package in daemon.Compute, kept as regression
// cases once fixed.

// TestRegressionRequeueUnderClockSkew: under clock skew, RequeueAfter
// waited longer than upstream would (fixed in 9968e41). Upstream requeues after minReadySeconds
// whenever ready and available pods differ ("as a last line of defense to
// guard against clock-skew", updateDaemonSetStatus), and after the
// backoff's current delay when a failed pod is held back
// (podsShouldBeOnNode: enqueueDaemonSetAfter(ds, failedPodsBackoff.Get)).
// Compute waited for the exact instant instead, which its own comment
// (daemon/requeue.go) said was "never later" than upstream's; it was later
// when a pod's Ready lastTransitionTime, or a backoff entry's LastUpdate,
// lay after Options.Now. Found by FuzzConformance (clock mutations).
func TestRegressionRequeueUnderClockSkew(t *testing.T) {
	tests := []struct {
		name string
		in   func() simulate.Input
		want time.Duration
	}{
		{name: "a pod Ready since an hour after Now, minReadySeconds 10: upstream requeues after 10s",
			in: func() simulate.Input {
				ds := dt.DaemonSet("fluentd", dt.WithMinReadySeconds(10))
				return simulate.Input{DaemonSet: ds, Nodes: []*corev1.Node{dt.Node("n1")},
					Pods:    []*corev1.Pod{dt.Pod(ds, "p1", "n1", dt.ReadySince(dt.Epoch.Add(time.Hour)))},
					Options: daemon.Options{Now: dt.Epoch}}
			},
			want: 10 * time.Second},
		{name: "a failed pod held by a backoff of 1s updated an hour after Now: upstream requeues after 1s",
			in: func() simulate.Input {
				ds := dt.DaemonSet("fluentd")
				key := backoff.Key{UID: ds.UID, NodeName: "n1"}
				return simulate.Input{DaemonSet: ds, Nodes: []*corev1.Node{dt.Node("n1")},
					Pods: []*corev1.Pod{dt.Pod(ds, "p1", "n1", dt.WithPhase(corev1.PodFailed))},
					Options: daemon.Options{Now: dt.Epoch, FailedPodBackoff: backoff.New(backoff.Entry{
						Key: key, Delay: time.Second, LastUpdate: dt.Epoch.Add(time.Hour)})}}
			},
			want: time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in()
			plan, err := in.Compute()
			if err != nil {
				t.Fatal(err)
			}
			if plan.RequeueAfter > tt.want {
				t.Errorf("RequeueAfter = %v, want at most %v (upstream's)", plan.RequeueAfter, tt.want)
			}
			if vs := dt.CheckGivenPlan(in, plan, err); len(vs) > 0 {
				t.Errorf("CheckGivenPlan() = %v", vs)
			}
		})
	}
}

// TestRegressionHistoryDeleteHoldsCallersRevision: rollout.HistoryPlan documents that
// "those in Delete, Adopt, Release and Relabel are the caller's pointers,
// unmodified", but an old revision without the hash label, deleted beyond
// revisionHistoryLimit, was in Delete as a new object (the copy that rule 1
// of ConstructHistory labelled), not as the caller's revision (fixed in
// 874f176). The same revision is also in Update: upstream labels it, then
// deletes it, and HistoryPlan now says Update goes before Delete.
func TestRegressionHistoryDeleteHoldsCallersRevision(t *testing.T) {
	ds := dt.DaemonSet("fluentd", dt.WithImage("registry.example/fluentd:v2"))
	limit := int32(0)
	ds.Spec.RevisionHistoryLimit = &limit
	old := dt.Revision(dt.DaemonSet("fluentd"), 1)
	delete(old.Labels, appsv1.ControllerRevisionHashLabelKey)

	plan, err := daemon.Compute(ds, []*corev1.Node{dt.Node("n1")}, nil,
		daemon.Options{Now: dt.Epoch, Revisions: []*appsv1.ControllerRevision{old}})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.History.Delete) != 1 {
		t.Fatalf("History.Delete = %d revisions, want the old one", len(plan.History.Delete))
	}
	if got := plan.History.Delete[0]; got != old {
		t.Errorf("History.Delete[0] is a new object (labels %v), want the caller's revision %s", got.Labels, old.Name)
	}
}
