package livecmd

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// TestJudgeGates judges rollouts held by their gates, as rollout status
// does on each change: an approval point exits 6 at once, a health gate 3
// (when no controller reports conditions), closed windows are waited for.
// Zone a (a-1) runs the new revision, zone b (b-1, b-2) the old one; the
// clock is a Sunday noon UTC.
func TestJudgeGates(t *testing.T) {
	now := daemontest.Epoch
	nodes := []*corev1.Node{
		daemontest.Node("a-1", daemontest.WithLabel("zone", "a")),
		daemontest.Node("b-1", daemontest.WithLabel("zone", "b")),
		daemontest.Node("b-2", daemontest.WithLabel("zone", "b")),
	}
	agent := func(ann map[string]string, conds ...appsv1.DaemonSetCondition) *appsv1.DaemonSet {
		ds := daemontest.DaemonSet("agent", daemontest.OnDelete(), daemontest.WithImage("agent:v2"))
		ds.Generation = 2
		ds.Annotations = map[string]string{progressive.AnnotationOrderBy: "zone", progressive.AnnotationWaveBake: "0s"}
		for k, v := range ann {
			ds.Annotations[k] = v
		}
		ds.Status.Conditions = conds
		return ds
	}
	hash := daemontest.Hash(agent(nil))
	crashLooping := func(p *corev1.Pod) {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "agent", RestartCount: 4,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}}}
	}
	pods := func(ds *appsv1.DaemonSet, a1 ...daemontest.PodOption) []*corev1.Pod {
		return []*corev1.Pod{
			daemontest.Pod(ds, "agent-a-1", "a-1", a1...),
			daemontest.Pod(ds, "agent-b-1", "b-1", daemontest.WithHash("old")),
			daemontest.Pod(ds, "agent-b-2", "b-2", daemontest.WithHash("old")),
		}
	}
	reporting := appsv1.DaemonSetCondition{Type: progressive.ConditionProgressing, Status: corev1.ConditionTrue, Reason: "Updating", Message: "zone a: 1/1 (generation 2)"}
	tests := []struct {
		name string
		ds   *appsv1.DaemonSet
		a1   []daemontest.PodOption
		// deadline is --progress-deadline; rollout status started an hour
		// ago.
		deadline    time.Duration
		wantDone    bool
		wantCode    int
		want        string
		wantResumed bool
	}{
		{name: "an approval point: exit 6 at once, naming the wave and the command",
			ds:       agent(map[string]string{progressive.AnnotationPauseAfter: "a"}),
			wantDone: true, wantCode: statusWaiting,
			want: "daemonset default/agent: waiting for approval after wave zone=a (kubectl dsplan rollout approve default/agent)"},
		{name: "approved: goes on",
			ds:   agent(map[string]string{progressive.AnnotationPauseAfter: "a", progressive.AnnotationApproved: hash + "/zone=a"}),
			want: "[1h0m0s] 1/3 nodes updated and available (waves by zone: a 1/1, b 0/2); replacing 1 pod on b-1\n"},
		{name: "an approval of another revision does not carry over",
			ds:       agent(map[string]string{progressive.AnnotationPauseAfter: "a", progressive.AnnotationApproved: "0ld/zone=a"}),
			wantDone: true, wantCode: statusWaiting,
			want: "daemonset default/agent: waiting for approval after wave zone=a (kubectl dsplan rollout approve default/agent)"},
		{name: "a health gate without a reporting controller: exit 3, naming the pod, node and signal",
			ds: agent(nil), a1: []daemontest.PodOption{crashLooping}, wantDone: true, wantCode: statusBlocked,
			want: "daemonset default/agent: blocked: health gate failed: CrashLoopBackOff on pod agent-a-1 (node a-1, container agent"},
		{name: "a health gate with a reporting controller: its RolloutBlocked condition decides",
			ds: agent(nil, reporting), a1: []daemontest.PodOption{crashLooping}, wantResumed: true,
			want: "0/3 nodes updated and available (waves by zone: a 0/1, b 0/2); health gate failed: CrashLoopBackOff on pod agent-a-1 (node a-1, container agent"},
		{name: "health gates off",
			ds: agent(map[string]string{progressive.AnnotationHealthGates: "false"}), a1: []daemontest.PodOption{crashLooping},
			want: "0/3 nodes updated and available (waves by zone: a 0/1, b 0/2); wave zone=a"},
		{name: "outside the windows: waited for, the deadline not counted",
			ds: agent(map[string]string{progressive.AnnotationWindow: "Mon-Fri 08:00-17:00"}), deadline: time.Minute, wantResumed: true,
			want: "[1h0m0s] 1/3 nodes updated and available (waves by zone: a 1/1, b 0/2); outside the maintenance windows until 2025-06-02T08:00:00Z\n"},
		{name: "inside a window: goes on",
			ds:   agent(map[string]string{progressive.AnnotationWindow: "Sun 11:00-13:00 UTC"}),
			want: "[1h0m0s] 1/3 nodes updated and available (waves by zone: a 1/1, b 0/2); replacing 1 pod on b-1\n"},
		// Before, a pause-after naming no wave was no stop, and status
		// waited for a rollout that went through every node.
		{name: "a pause-after naming no wave: exit 1, naming the key, the value and the waves",
			ds:       agent(map[string]string{progressive.AnnotationPauseAfter: "c"}),
			wantDone: true, wantCode: statusError,
			want: `daemonset default/agent: rollout held, no old pod is replaced: pause-after "c" names no wave; waves: a, b`},
		{name: "an order-by no node carries: exit 1",
			ds:       agent(map[string]string{progressive.AnnotationOrderBy: "zome"}),
			wantDone: true, wantCode: statusError,
			want: `order-by "zome" names no node label key; did you mean zone? node label keys: kubernetes.io/hostname, zone`},
		{name: "an unknown time zone: the window annotation named",
			ds:       agent(map[string]string{progressive.AnnotationWindow: "Mon-Fri 08:00-17:00 Europe/Atlantis"}),
			wantDone: true, wantCode: statusError, want: "Europe/Atlantis"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			w := &statusWatch{ns: "default", name: "agent", deadline: tt.deadline, out: &out, program: "kubectl dsplan", clock: func() time.Time { return now }}
			w.start = now.Add(-time.Hour)
			code, msg, done := w.judge(tt.ds, nodes, pods(tt.ds, tt.a1...), nil)
			if done != tt.wantDone || (done && code != tt.wantCode) {
				t.Fatalf("judge() = %d, %q, done %v; want %d, done %v\nprinted: %s", code, msg, done, tt.wantCode, tt.wantDone, out.String())
			}
			got := msg
			if !done {
				got = out.String()
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("%q does not say %q", got, tt.want)
			}
			if diff := cmp.Diff(tt.wantResumed, w.resumed.Equal(now)); diff != "" {
				t.Errorf("the deadline counts from now (-want +got):\n%s", diff)
			}
		})
	}
}

// TestApprove runs rollout approve on a fake cluster whose rollout waits
// after wave zone=a of zones a, b and c (pause-after a,b): the merge patch it sends (with the
// resourceVersion read), what it prints and what it refuses. That the API
// server honours the resourceVersion is the end-to-end suite's to prove.
func TestApprove(t *testing.T) {
	agent := func(ann map[string]string) *appsv1.DaemonSet {
		ds := daemontest.DaemonSet("agent", daemontest.OnDelete(), daemontest.WithImage("agent:v2"))
		ds.ResourceVersion = "7"
		ds.Annotations = map[string]string{progressive.AnnotationOrderBy: "zone", progressive.AnnotationWaveBake: "0s", progressive.AnnotationPauseAfter: "a,b"}
		for k, v := range ann {
			ds.Annotations[k] = v
		}
		return ds
	}
	hash := daemontest.Hash(agent(nil))
	patch := func(wave string) string {
		return `application/merge-patch+json {"metadata":{"annotations":{"rollout.daemonplan.io/approved":"` + hash + "/" + wave + `"},"resourceVersion":"7"}}`
	}
	tests := []struct {
		name     string
		ds       *appsv1.DaemonSet
		args     []string
		conflict bool
		code     int
		want     string
		// wantPatches are the patches sent.
		wantPatches []string
	}{
		{name: "the point it waits at", ds: agent(nil),
			want:        "daemonset default/agent approved: rollout.daemonplan.io/approved=" + hash + "/zone=a (the rollout goes on after wave zone=a of revision " + hash + ")",
			wantPatches: []string{patch("zone=a")}},
		{name: "--wave ahead of time", ds: agent(nil), args: []string{"--wave", "b"},
			want:        "approved ahead of time: the approval points of revision " + hash + " up to wave zone=b will not hold the rollout",
			wantPatches: []string{patch("zone=b")}},
		{name: "--wave naming no point", ds: agent(nil), args: []string{"--wave", "c"}, code: 1,
			want: `--wave "c": not an approval point of daemonset default/agent; its approval points are zone=a, zone=b`},
		{name: "--wave naming the last wave, never a point", ds: agent(nil), args: []string{"--wave", "zone=c"}, code: 1,
			want: `--wave "zone=c": not an approval point of daemonset default/agent; its approval points are zone=a, zone=b`},
		{name: "approved already: nothing to approve, nothing written", ds: agent(map[string]string{progressive.AnnotationApproved: hash + "/zone=a"}), code: 1,
			want: "nothing to approve: daemonset default/agent does not wait for approval: replacing 1 pod on b-1"},
		{name: "changed meanwhile", ds: agent(nil), conflict: true, code: 1,
			want:        "daemonset default/agent changed while approving (it was at resourceVersion 7); nothing was written: run the command again",
			wantPatches: []string{patch("zone=a")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := []runtime.Object{tt.ds, daemontest.Revision(tt.ds, 2),
				daemontest.Node("a-1", daemontest.WithLabel("zone", "a")),
				daemontest.Node("b-1", daemontest.WithLabel("zone", "b")),
				daemontest.Node("b-2", daemontest.WithLabel("zone", "b")),
				daemontest.Pod(tt.ds, "agent-a-1", "a-1"),
				daemontest.Pod(tt.ds, "agent-b-1", "b-1", daemontest.WithHash("old")),
				daemontest.Pod(tt.ds, "agent-b-2", "b-2", daemontest.WithHash("old")),
				daemontest.Node("c-1", daemontest.WithLabel("zone", "c")),
				daemontest.Pod(tt.ds, "agent-c-1", "c-1", daemontest.WithHash("old")),
			}
			cs, conn := clusterOf(objs...)
			if tt.conflict {
				conflictOnPatch(cs)
			}
			var out bytes.Buffer
			args := append([]string{"rollout", "approve", "default/agent"}, tt.args...)
			code := run(args, strings.NewReader(""), &out, &out, "dsplan", conn)
			if code != tt.code {
				t.Errorf("exit %d, want %d:\n%s", code, tt.code, out.String())
			}
			if !strings.Contains(out.String(), tt.want) {
				t.Errorf("output does not contain %q:\n%s", tt.want, out.String())
			}
			if diff := cmp.Diff(tt.wantPatches, patches(cs)); diff != "" {
				t.Errorf("patches (-want +got):\n%s", diff)
			}
		})
	}
}
