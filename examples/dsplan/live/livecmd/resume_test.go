package livecmd

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// pausedAgent is agent with the paused annotation (absent when paused is
// "-") and the RolloutPaused condition of reason, when not "".
func pausedAgent(paused, reason string) *appsv1.DaemonSet {
	ds := agentAt("v2")
	ds.Annotations = map[string]string{progressive.AnnotationMaxUnavailable: "1"}
	if paused != "-" {
		ds.Annotations[progressive.AnnotationPaused] = paused
	}
	if reason != "" {
		ds.Status.Conditions = []appsv1.DaemonSetCondition{{Type: progressive.ConditionPaused, Status: corev1.ConditionTrue, Reason: reason,
			Message: "paused itself: a health gate failed [paused=unset revision=abc]"}}
	}
	return ds
}

func TestResumeChange(t *testing.T) {
	f := "false"
	latched := `the controller's own pause (RolloutPaused HealthGateFailed: paused itself: a health gate failed [paused=unset revision=abc])`
	tests := []struct {
		name     string
		ds       *appsv1.DaemonSet
		wantTo   *string
		wantSays string
		wantErr  string
	}{
		{name: "paused by annotation", ds: pausedAgent("true", "PausedByAnnotation"), wantTo: &f,
			wantSays: `rollout.daemonplan.io/paused set to "false" (was "true"); this lifts the pause the annotation asked for ("true")`},
		{name: "latched by the controller, annotation absent", ds: pausedAgent("-", "HealthGateFailed"), wantTo: &f,
			wantSays: `rollout.daemonplan.io/paused set to "false" (was absent); this lifts ` + latched},
		{name: "latched by the controller, annotation false: removed", ds: pausedAgent("false", "HealthGateFailed"),
			wantSays: `rollout.daemonplan.io/paused removed (was "false"); this lifts ` + latched},
		{name: "both", ds: pausedAgent("true", "ProgressDeadlineExceeded"), wantTo: &f,
			wantSays: `rollout.daemonplan.io/paused set to "false" (was "true"); this lifts the pause the annotation asked for ("true") and ` +
				`the controller's own pause (RolloutPaused ProgressDeadlineExceeded: paused itself: a health gate failed [paused=unset revision=abc])`},
		{name: "an invalid value is a pause", ds: pausedAgent("yes", ""), wantTo: &f,
			wantSays: `rollout.daemonplan.io/paused set to "false" (was "yes"); this lifts the pause the annotation asked for ("yes")`},
		{name: "not paused", ds: pausedAgent("-", ""),
			wantErr: "nothing to resume: daemonset default/agent is not paused (rollout.daemonplan.io/paused is absent and its controller has not paused it itself: no RolloutPaused condition is True with reason ProgressDeadlineExceeded or HealthGateFailed)"},
		{name: "not paused, annotation false", ds: pausedAgent("false", ""),
			wantErr: `nothing to resume: daemonset default/agent is not paused (rollout.daemonplan.io/paused is "false" and its controller has not paused it itself: no RolloutPaused condition is True with reason ProgressDeadlineExceeded or HealthGateFailed)`},
		{name: "a stale PausedByAnnotation condition is not the companion's own pause", ds: pausedAgent("false", "PausedByAnnotation"),
			wantErr: `nothing to resume: daemonset default/agent is not paused (rollout.daemonplan.io/paused is "false" and its controller has not paused it itself: no RolloutPaused condition is True with reason ProgressDeadlineExceeded or HealthGateFailed)`},
		{name: "another reason is not the companion's own pause", ds: pausedAgent("-", "Paused"),
			wantErr: "nothing to resume: daemonset default/agent is not paused (rollout.daemonplan.io/paused is absent and its controller has not paused it itself: no RolloutPaused condition is True with reason ProgressDeadlineExceeded or HealthGateFailed)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch, err := resumeChange(tt.ds)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if diff := cmp.Diff(tt.wantErr, gotErr); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantTo, ch.to); diff != "" {
				t.Errorf("new value (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantSays, ch.says); diff != "" {
				t.Errorf("says (-want +got):\n%s", diff)
			}
		})
	}
}

// TestResume runs rollout resume on a fake cluster: the merge patch it
// sends (with the resourceVersion read) and the annotation after.
func TestResume(t *testing.T) {
	tests := []struct {
		name     string
		ds       *appsv1.DaemonSet
		conflict bool
		code     int
		want     string
		// wantPatch is the merge patch sent; wantPaused the annotation
		// after ("-": absent).
		wantPatch, wantPaused string
	}{
		{name: "true becomes false", ds: pausedAgent("true", ""),
			want:      `daemonset default/agent resumed: rollout.daemonplan.io/paused set to "false" (was "true")`,
			wantPatch: `{"metadata":{"annotations":{"rollout.daemonplan.io/paused":"false"},"resourceVersion":"7"}}`, wantPaused: "false"},
		{name: "false is removed", ds: pausedAgent("false", "HealthGateFailed"),
			want:      `daemonset default/agent resumed: rollout.daemonplan.io/paused removed (was "false")`,
			wantPatch: `{"metadata":{"annotations":{"rollout.daemonplan.io/paused":null},"resourceVersion":"7"}}`, wantPaused: "-"},
		{name: "not paused: nothing written", ds: pausedAgent("-", ""), code: 1, want: "nothing to resume", wantPaused: "-"},
		{name: "changed meanwhile", ds: pausedAgent("true", ""), conflict: true, code: 1,
			want:      "daemonset default/agent changed while resuming (it was at resourceVersion 7); nothing was written",
			wantPatch: `{"metadata":{"annotations":{"rollout.daemonplan.io/paused":"false"},"resourceVersion":"7"}}`, wantPaused: "true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, conn := clusterOf(tt.ds)
			if tt.conflict {
				conflictOnPatch(cs)
			}
			var out bytes.Buffer
			code := run([]string{"rollout", "resume", "default/agent"}, strings.NewReader(""), &out, &out, "dsplan", conn)
			if code != tt.code {
				t.Errorf("exit %d, want %d:\n%s", code, tt.code, out.String())
			}
			if !strings.Contains(out.String(), tt.want) {
				t.Errorf("output does not contain %q:\n%s", tt.want, out.String())
			}
			var wantPatches []string
			if tt.wantPatch != "" {
				wantPatches = []string{"application/merge-patch+json " + tt.wantPatch}
			}
			if diff := cmp.Diff(wantPatches, patches(cs)); diff != "" {
				t.Errorf("patches (-want +got):\n%s", diff)
			}
			got, err := cs.AppsV1().DaemonSets("default").Get(t.Context(), "agent", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			paused, ok := got.Annotations[progressive.AnnotationPaused]
			if !ok {
				paused = "-"
			}
			if diff := cmp.Diff(tt.wantPaused, paused); diff != "" {
				t.Errorf("paused annotation after (-want +got):\n%s", diff)
			}
		})
	}
}
