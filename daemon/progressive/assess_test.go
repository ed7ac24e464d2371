package progressive_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// utcZones resolves UTC only.
func utcZones(name string) (*time.Location, error) {
	if name == "UTC" {
		return time.UTC, nil
	}
	return nil, fmt.Errorf("unknown time zone %q", name)
}

func TestAssess(t *testing.T) {
	ds := dt.DaemonSet("agent", dt.WithMaxUnavailable("100%"))
	nodes := zonedNodes("abab")
	// Zone a (n1, n3) runs the new revision; zone b the old one.
	pods := dt.PodsByKind(ds, dt.Epoch.Add(-time.Hour), "new", "old", "new", "old")
	annotated := func(kv ...string) progressive.Rollout {
		d := ds.DeepCopy()
		d.Annotations = map[string]string{progressive.AnnotationOrderBy: zone, progressive.AnnotationWaveBake: "0s"}
		for i := 0; i+1 < len(kv); i += 2 {
			d.Annotations[kv[i]] = kv[i+1]
		}
		r, err := progressive.ForDaemonSet(d)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	input := func(r progressive.Rollout, now time.Time) progressive.AssessInput {
		return progressive.AssessInput{
			DaemonSet: r.DaemonSet, Nodes: nodes, Pods: pods,
			Options: r.Options(daemon.Options{Now: now}), Gates: r.Gates(), Zones: utcZones,
		}
	}
	failing := errors.New("planner failed")
	type want struct {
		step     progressive.AssessStep
		cause    progressive.HoldCause
		wave     string
		until    time.Time
		requeue  time.Duration
		complete bool
		judged   bool
	}
	tests := []struct {
		name string
		in   func() progressive.AssessInput
		want want
	}{{
		name: "no gates: judged, nothing holds",
		in: func() progressive.AssessInput {
			r := annotated()
			in := input(r, dt.Epoch)
			in.Gates = nil
			return in
		},
		want: want{judged: true},
	}, {
		name: "an approval point holds after wave a",
		in: func() progressive.AssessInput {
			return input(annotated(progressive.AnnotationPauseAfter, "a"), dt.Epoch)
		},
		want: want{cause: progressive.HoldApproval, wave: zone + "=a", judged: true},
	}, {
		name: "a closed window holds until it opens, requeued then",
		in: func() progressive.AssessInput {
			return input(annotated(progressive.AnnotationWindow, "Mon 00:00-01:00 UTC"), dt.Epoch)
		},
		want: want{cause: progressive.HoldWindow, until: dt.Epoch.Add(12 * time.Hour), requeue: 12 * time.Hour, judged: true},
	}, {
		name: "a window opening in a moment is requeued after MinHoldRequeue",
		in: func() progressive.AssessInput {
			return input(annotated(progressive.AnnotationWindow, "Sun 12:00-13:00 UTC"), dt.Epoch.Add(-50*time.Millisecond))
		},
		want: want{cause: progressive.HoldWindow, until: dt.Epoch, requeue: progressive.MinHoldRequeue, judged: true},
	}, {
		name: "the plan given is judged, none computed",
		in: func() progressive.AssessInput {
			in := input(annotated(progressive.AnnotationPauseAfter, "a"), dt.Epoch)
			plan, err := daemon.Compute(in.DaemonSet, in.Nodes, in.Pods, in.Options)
			if err != nil {
				t.Fatal(err)
			}
			in.Plan, in.Nodes, in.Pods = &plan, nil, nil
			in.Compute = func(*appsv1.DaemonSet, []*corev1.Node, []*corev1.Pod, daemon.Options) (daemon.Plan, error) {
				return daemon.Plan{}, failing
			}
			return in
		},
		want: want{cause: progressive.HoldApproval, wave: zone + "=a", judged: true},
	}, {
		name: "an error of Compute is the plan's",
		in: func() progressive.AssessInput {
			in := input(annotated(), dt.Epoch)
			in.Compute = func(*appsv1.DaemonSet, []*corev1.Node, []*corev1.Pod, daemon.Options) (daemon.Plan, error) {
				return daemon.Plan{}, failing
			}
			return in
		},
		want: want{step: progressive.AssessPlan},
	}, {
		name: "a plan without a standing is refused by the judge",
		in: func() progressive.AssessInput {
			in := input(annotated(), dt.Epoch)
			in.Options.ReportStanding = false
			return in
		},
		want: want{step: progressive.AssessJudge},
	}, {
		name: "an unknown time zone is the gates' error, after the judgement",
		in: func() progressive.AssessInput {
			return input(annotated(progressive.AnnotationWindow, "Mon 00:00-01:00 Europe/Amsterdam"), dt.Epoch)
		},
		want: want{step: progressive.AssessGates, judged: true},
	}, {
		name: "no DaemonSet",
		in:   func() progressive.AssessInput { return progressive.AssessInput{} },
		want: want{step: progressive.AssessPlan},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := progressive.Assess(tt.in())
			got := want{
				step: progressive.StepOf(err), cause: a.Hold.Cause, wave: a.Hold.Wave, until: a.Hold.Until,
				requeue: a.Requeue, complete: a.Judgement.Complete, judged: a.Judgement.Total.Desired > 0,
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("Assess (-want,+got):\n%s (error %v)", diff, err)
			}
			if (err == nil) != (tt.want.step == "") {
				t.Errorf("Assess error %v, want one at step %q", err, tt.want.step)
			}
		})
	}
}

// The errors of Assess keep their message and their type.
func TestAssessErrorUnwraps(t *testing.T) {
	_, err := progressive.Assess(progressive.AssessInput{})
	if !errors.Is(err, daemon.ErrInvalidInput) {
		t.Errorf("Assess without a DaemonSet: %v, want daemon.ErrInvalidInput", err)
	}
	if got := progressive.StepOf(errors.New("other")); got != "" {
		t.Errorf("StepOf of another error = %q, want none", got)
	}
}

// A controller's sync: Assess plans the annotated DaemonSet, judges the
// plan and asks its gates. Held, the controller deletes no old pod; it
// looks again after Requeue when that is set.
func ExampleAssess() {
	ds := dt.DaemonSet("agent", dt.WithMaxUnavailable("100%"))
	ds.Annotations = map[string]string{
		progressive.AnnotationOrderBy:    zone,
		progressive.AnnotationWaveBake:   "0s",
		progressive.AnnotationPauseAfter: "a",
	}
	r, err := progressive.ForDaemonSet(ds)
	if err != nil {
		fmt.Println(err)
		return
	}
	nodes := zonedNodes("abab")
	pods := dt.PodsByKind(ds, dt.Epoch.Add(-time.Hour), "new", "old", "new", "old")
	a, err := progressive.Assess(progressive.AssessInput{
		DaemonSet: r.DaemonSet, Nodes: nodes, Pods: pods,
		Options: r.Options(daemon.Options{Now: dt.Epoch}),
		Gates:   r.Gates(), Zones: time.LoadLocation,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("updated %d/%d, complete %v\n", a.Judgement.Total.Updated, a.Judgement.Total.Desired, a.Judgement.Complete)
	fmt.Printf("held %v: %s\n", a.Hold.Held(), a.Hold)
	fmt.Println("deletes planned:", len(a.Plan.Deletes))
	// Output:
	// updated 2/4, complete false
	// held true: waiting for approval after wave topology.kubernetes.io/zone=a
	// deletes planned: 2
}
