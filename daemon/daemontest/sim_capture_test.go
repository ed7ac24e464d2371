package daemontest_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/daemon/simulate"
	"github.com/daemonplan/daemonplan/daemon/whatif"
)

// captured is settled as a real cluster has it: the DaemonSet at template
// generation 2 (the deprecated.daemonset.template.generation annotation
// the API server writes) and its pods labelled pod-template-generation 2
// (as the controller labels them).
func captured(opts ...dt.DaemonSetOption) simulate.Input {
	return settled(append([]dt.DaemonSetOption{dt.WithTemplateGeneration(2)}, opts...)...)
}

// TestSimulateTemplateChangeOnCapture: a template change starts a rollout
// on pods that carry the pod-template-generation label (issue 22 §1: the
// simulator bumped the generation but not the annotation, so every old
// pod still counted as updated and nothing rolled).
func TestSimulateTemplateChangeOnCapture(t *testing.T) {
	in := captured()
	if got := in.Pods[0].Labels["pod-template-generation"]; got != "2" {
		t.Fatalf("fixture: pod-template-generation %q, want 2", got)
	}
	cfg := simulate.Config{ReadyDelay: 5 * time.Second, Check: dt.Checker(dt.CheckOptions{}),
		Events: []simulate.Event{{Kind: simulate.TemplateChange, Image: "registry.example/fluentd:v2"}}}
	res := simulate.Run(clusterOf(in), cfg)
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	creates := 0
	for _, st := range res.Steps {
		creates += st.Creates
	}
	ds := res.Final.DaemonSet
	got := struct {
		Creates            int
		Generation         int64
		TemplateGeneration string
		Duration           time.Duration
	}{creates, ds.Generation, ds.Annotations[appsv1.DeprecatedTemplateGeneration], res.Duration()}
	want := got
	want.Creates, want.Generation, want.TemplateGeneration, want.Duration = 3, 2, "3", 3*5*time.Second
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	for _, p := range res.Final.Pods {
		if g := p.Labels["pod-template-generation"]; g != "3" {
			t.Errorf("pod %s: pod-template-generation %q, want 3", p.Name, g)
		}
	}
}

// starting marks the pod on node as a capture shows a pod that is still
// starting: Running, created age ago, not yet Ready.
func starting(in simulate.Input, node string, age time.Duration, change func(p *corev1.Pod)) {
	p := podOn(in, node)
	p.CreationTimestamp = metav1.Time{Time: in.Options.Now.Add(-age)}
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, LastTransitionTime: p.CreationTimestamp}}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "fluentd", Ready: false, Started: ptrBool(true),
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: p.CreationTimestamp}}}}
	if change != nil {
		change(p)
	}
}

func ptrBool(b bool) *bool { return &b }

func crashLooping(restarts int32) func(p *corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status.ContainerStatuses[0].RestartCount = restarts
		p.Status.ContainerStatuses[0].State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}
	}
}

// TestSimulateStartingPods: pods a capture shows starting become Ready
// after ReadyDelay counted from their own creation; pods it shows failing
// stay down, and the reason says why (issue 22 §1); the run ends Blocked,
// not Stalled, naming the pods as data (issue 31 §2).
func TestSimulateStartingPods(t *testing.T) {
	tests := []struct {
		name         string
		change       func(in simulate.Input)
		want         simulate.Outcome
		wantDuration time.Duration
		wantReason   string
		wantBlocking []simulate.Blocker
	}{
		{name: "a pod 5s old becomes ready 10s later", change: func(in simulate.Input) { starting(in, "n2", 5*time.Second, nil) },
			want: simulate.OutcomeConverged, wantDuration: 10 * time.Second},
		{name: "a pod older than the delay becomes ready at once", change: func(in simulate.Input) { starting(in, "n2", 40*time.Second, nil) },
			want: simulate.OutcomeConverged},
		{name: "a crash-looping pod stays down", change: func(in simulate.Input) { starting(in, "n2", time.Hour, crashLooping(12)) },
			want: simulate.OutcomeBlocked, wantReason: `node "n2" runs pod fluentd-n2, which is not available (CrashLoopBackOff, 12 restarts)`,
			wantBlocking: []simulate.Blocker{{Node: "n2", Pod: "fluentd-n2", Cause: whatif.CauseNotReady, Failing: "CrashLoopBackOff, 12 restarts", Restarts: 12}}},
		{name: "a pod with many restarts stays down", change: func(in simulate.Input) {
			starting(in, "n2", time.Hour, func(p *corev1.Pod) { p.Status.ContainerStatuses[0].RestartCount = 4 })
		}, want: simulate.OutcomeBlocked, wantReason: `node "n2" runs pod fluentd-n2, which is not available (4 restarts)`,
			wantBlocking: []simulate.Blocker{{Node: "n2", Pod: "fluentd-n2", Cause: whatif.CauseNotReady, Failing: "4 restarts", Restarts: 4}}},
		{name: "a pod not ready for an hour stays down", change: func(in simulate.Input) { starting(in, "n2", time.Hour, nil) },
			want: simulate.OutcomeBlocked, wantReason: `node "n2" runs pod fluentd-n2, which is not available (not ready for 1h0m0s)`,
			wantBlocking: []simulate.Blocker{{Node: "n2", Pod: "fluentd-n2", Cause: whatif.CauseNotReady, Failing: "not ready for 1h0m0s"}}},
		{name: "an image that does not pull stays down", change: func(in simulate.Input) {
			starting(in, "n2", 30*time.Second, func(p *corev1.Pod) {
				p.Status.Phase = corev1.PodPending
				p.Status.ContainerStatuses[0].State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff"}}
			})
		}, want: simulate.OutcomeBlocked, wantReason: `node "n2" runs pod fluentd-n2, which is not available (ImagePullBackOff)`,
			wantBlocking: []simulate.Blocker{{Node: "n2", Pod: "fluentd-n2", Cause: whatif.CausePending, Failing: "ImagePullBackOff"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := captured()
			tt.change(in)
			res := simulate.Run(clusterOf(in), simulate.Config{ReadyDelay: 15 * time.Second, Check: dt.Checker(dt.CheckOptions{})})
			if res.Outcome != tt.want {
				t.Fatalf("Outcome = %s (%s), want %s", res.Outcome, res.Reason, tt.want)
			}
			if tt.want == simulate.OutcomeConverged && res.Duration() != tt.wantDuration {
				t.Errorf("Duration() = %v, want %v", res.Duration(), tt.wantDuration)
			}
			if res.Reason != tt.wantReason {
				t.Errorf("Reason = %q, want %q", res.Reason, tt.wantReason)
			}
			if diff := cmp.Diff(tt.wantBlocking, res.Blocking); diff != "" {
				t.Errorf("Blocking (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSimulateNotReadyNodeReason: a stall on a NotReady node names the
// node's state, not only the pod's, and ends Blocked (issue 31 §2).
func TestSimulateNotReadyNodeReason(t *testing.T) {
	in := captured(func(ds *appsv1.DaemonSet) { // tolerates every taint, as node agents do
		ds.Spec.Template.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
	})
	in.Nodes[1] = dt.Node("n2", dt.NotReady())
	p := podOn(in, "n2")
	p.Status.Conditions[0].Status = corev1.ConditionFalse
	res := simulate.Run(clusterOf(in), simulate.Config{ReadyDelay: 15 * time.Second})
	want := `node "n2" is NotReady: its pod fluentd-n2 cannot become available`
	if res.Outcome != simulate.OutcomeBlocked || res.Reason != want {
		t.Errorf("%s: %q, want Blocked: %q", res.Outcome, res.Reason, want)
	}
	wantBlocking := []simulate.Blocker{{Node: "n2", Pod: "fluentd-n2", Cause: whatif.CauseNodeNotReady}}
	if diff := cmp.Diff(wantBlocking, res.Blocking); diff != "" {
		t.Errorf("Blocking (-want +got):\n%s", diff)
	}
}

// TestSimulatePausedReason: a paused rollout stalls, and the reason says
// it is paused and how far it got, not what an unpaused plan would do
// (issue 22 §1: "the plan still creates 0 and deletes 2 pods" while the
// paused plan deletes nothing).
func TestSimulatePausedReason(t *testing.T) {
	in := rollingOut()
	c := clusterOf(in)
	c.Rollout = daemon.RolloutPolicy{Paused: true}
	res := simulate.Run(c, simulate.Config{ReadyDelay: 5 * time.Second})
	if res.Outcome != simulate.OutcomeStalled {
		t.Fatalf("Outcome = %s, want Stalled", res.Outcome)
	}
	if !strings.Contains(res.Reason, "paused") || strings.Contains(res.Reason, "deletes") {
		t.Errorf("Reason = %q: want the pause named, and no deletes the paused plan does not make", res.Reason)
	}
}

// TestSimulateScopeBudgetReason: a scoped rollout whose budget is used up
// by unavailable nodes outside the scope stalls with that cause named
// (issue 22 §1), as daemon.RolloutComplete reports it.
func TestSimulateScopeBudgetReason(t *testing.T) {
	in := captured()
	for _, n := range in.Nodes {
		n.Labels["zone"] = "a"
	}
	in.Nodes[2].Labels["zone"] = "b"
	starting(in, "n3", time.Hour, crashLooping(9)) // out of scope, unavailable
	c := clusterOf(in)
	c.Rollout = daemon.RolloutPolicy{Scope: &metav1.LabelSelector{MatchLabels: map[string]string{"zone": "a"}}}
	res := simulate.Run(c, simulate.Config{ReadyDelay: 5 * time.Second,
		Events: []simulate.Event{{Kind: simulate.TemplateChange, Image: "registry.example/fluentd:v2"}}})
	if res.Outcome != simulate.OutcomeBlocked {
		t.Fatalf("Outcome = %s (%s), want Blocked: a crash-looping pod holds the budget", res.Outcome, res.Reason)
	}
	if res.Judgement.Reason.Cause != progressive.CauseBudgetOutsideScope {
		t.Errorf("Judgement.Reason.Cause = %s, want %s", res.Judgement.Reason.Cause, progressive.CauseBudgetOutsideScope)
	}
	if !strings.Contains(res.Reason, "outside the scope") {
		t.Errorf("Reason = %q: want the unavailable nodes outside the scope named as the cause", res.Reason)
	}
}

// BenchmarkSimulateRollout rolls a new image out over SteadyCluster
// fleets with maxUnavailable 10%: a step costs a plan and a pass over the
// pods, whatever the number of pods settled.
func BenchmarkSimulateRollout(b *testing.B) {
	for _, n := range []int{500, 5000} {
		c := dt.SteadyCluster(dt.DaemonSet("agent", dt.WithMaxUnavailable("10%"), dt.WithTemplateGeneration(1)), n)
		cfg := simulate.Config{BindDelay: 2 * time.Second, ReadyDelay: 15 * time.Second, GracePeriod: 5 * time.Second,
			Events: []simulate.Event{{Kind: simulate.TemplateChange, Image: "registry.example/agent:v2"}}}
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if res := simulate.Run(c, cfg); res.Outcome != simulate.OutcomeConverged {
					b.Fatalf("%s: %s", res.Outcome, res.Reason)
				}
			}
		})
	}
}
