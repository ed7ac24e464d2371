package daemon_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/rollout"
)

func TestComputeTemplateSkew(t *testing.T) {
	// v2 is the template at generation 2; v1 the one before.
	v1 := dt.DaemonSet("agent", dt.WithTemplateGeneration(1))
	v2 := dt.DaemonSet("agent", dt.WithImage("registry.example/agent:v2"), dt.WithTemplateGeneration(2))
	v2.Generation = 2
	newer := dt.NewerRevision(v2, 2, "futureResponders", []any{map[string]any{"name": "drain"}})
	skew := &rollout.TemplateSkewError{Revision: newer.Name, Hash: dt.NewerHash, Fields: []string{"spec.template.spec.futureResponders"}}
	nodes := []*corev1.Node{dt.Node("n1"), dt.Node("n2"), dt.Node("n3")}
	// kube-controller-manager replaced n1's pod at generation 2, under
	// its own hash; n2 still runs v1; n3 has no pod.
	skewedPods := []*corev1.Pod{
		dt.Pod(v2, "p1", "n1", dt.WithHash(dt.NewerHash)),
		dt.Pod(v1, "p2", "n2"),
	}
	// A chaos scenario: a pod labelled with the DaemonSet's generation but a
	// stale hash, the revisions this build's own.
	stale := []*corev1.Pod{dt.Pod(v2, "p1", "n1", dt.WithHash("stale")), dt.Pod(v1, "p2", "n2")}

	tests := []struct {
		name      string
		revisions []*appsv1.ControllerRevision
		pods      []*corev1.Pod
		wantSkew  *rollout.TemplateSkewError
		want      actions
	}{
		{
			name:      "the newest revision holds a field this build does not know: no action at all",
			revisions: []*appsv1.ControllerRevision{dt.Revision(v1, 1), newer},
			pods:      skewedPods,
			wantSkew:  skew,
		},
		{
			name:      "the same with this build's revision of the template older than kube-controller-manager's",
			revisions: []*appsv1.ControllerRevision{dt.Revision(v1, 1), dt.Revision(v2, 2), dt.NewerRevision(v2, 3, "futureResponders", "x")},
			pods:      skewedPods,
			wantSkew:  &rollout.TemplateSkewError{Revision: newer.Name, Hash: dt.NewerHash, Fields: []string{"spec.template.spec.futureResponders"}},
		},
		{
			name:      "a stale hash on a pod at the DaemonSet's generation is no skew",
			revisions: []*appsv1.ControllerRevision{dt.Revision(v1, 1), dt.Revision(v2, 2)},
			pods:      stale,
			// p1 counts as updated by its generation; the step replaces n2's.
			want: actions{Creates: []string{"n3/NodeNeedsPod"}},
		},
		{
			name:      "an unknown field in an old revision only is no skew",
			revisions: []*appsv1.ControllerRevision{dt.NewerRevision(v1, 1, "futureResponders", "x"), dt.Revision(v2, 2)},
			pods:      []*corev1.Pod{dt.Pod(v2, "p1", "n1"), dt.Pod(v1, "p2", "n2"), dt.Pod(v2, "p3", "n3")},
			want:      actions{Deletes: []string{"p2/RollingUpdate"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, compute := range []func() (daemon.Plan, error){
				func() (daemon.Plan, error) {
					return daemon.Compute(v2, nodes, tt.pods, daemon.Options{Now: dt.Epoch, Revisions: tt.revisions})
				},
				func() (daemon.Plan, error) {
					return daemon.NewPlanner().Compute(v2, nodes, tt.pods, daemon.Options{Now: dt.Epoch, Revisions: tt.revisions})
				},
			} {
				plan, err := compute()
				var got *rollout.TemplateSkewError
				errors.As(err, &got)
				if diff := cmp.Diff(tt.wantSkew, got); diff != "" {
					t.Fatalf("Compute() skew mismatch (-want +got):\n%s\nerror: %v", diff, err)
				}
				if diff := cmp.Diff(tt.wantSkew, plan.TemplateSkew); diff != "" {
					t.Errorf("Plan.TemplateSkew mismatch (-want +got):\n%s", diff)
				}
				if tt.wantSkew == nil {
					if err != nil {
						t.Fatalf("Compute() error = %v", err)
					}
					if diff := cmp.Diff(tt.want, actionsOf(plan)); diff != "" {
						t.Errorf("Compute() actions mismatch (-want +got):\n%s", diff)
					}
					return
				}
				var de *daemon.Error
				if !errors.As(err, &de) || de.Stage != daemon.StageHistory || de.DaemonSet != "default/agent" {
					t.Errorf("Compute() error = %#v, want a *daemon.Error of default/agent at %q", err, daemon.StageHistory)
				}
				if !errors.Is(err, rollout.ErrTemplateSkew) || errors.Is(err, daemon.ErrInvalidInput) {
					t.Errorf("errors.Is(%v): ErrTemplateSkew %v, ErrInvalidInput %v; want true, false", err,
						errors.Is(err, rollout.ErrTemplateSkew), errors.Is(err, daemon.ErrInvalidInput))
				}
				if !plan.IsZero() || plan.Hash != "" || plan.StatusChanged || plan.Rolling != nil || len(plan.History.Adopt) > 0 {
					t.Errorf("Compute() plan asks for something under a template skew: %+v", plan)
				}
				if diff := cmp.Diff(v2.Status, plan.Status); diff != "" {
					t.Errorf("Plan.Status is not the stored status (-want +got):\n%s", diff)
				}
			}
		})
	}
}
