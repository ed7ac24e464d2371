package livecmd

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// TestJudge judges rollouts of one OnDelete DaemonSet with rollout
// annotations on three nodes, as rollout status does on each change: the
// exit code, whether it stops, and what the message says. (Following a
// cluster is tested on a real control plane by examples/controller/e2e.)
func TestJudge(t *testing.T) {
	now := daemontest.Epoch
	base := func(ann map[string]string, conds ...appsv1.DaemonSetCondition) *appsv1.DaemonSet {
		ds := daemontest.DaemonSet("agent", daemontest.OnDelete(), daemontest.WithImage("agent:v2"))
		ds.Generation = 2
		ds.Annotations = ann
		ds.Status.Conditions = conds
		return ds
	}
	annotated := map[string]string{progressive.AnnotationMaxUnavailable: "1", progressive.AnnotationOrderBy: "zone"}
	nodes := []*corev1.Node{
		daemontest.Node("a-1", daemontest.WithLabel("zone", "a")),
		daemontest.Node("b-1", daemontest.WithLabel("zone", "b")),
		daemontest.Node("b-2", daemontest.WithLabel("zone", "b")),
	}
	updated := func(ds *appsv1.DaemonSet, names ...string) []*corev1.Pod {
		var out []*corev1.Pod
		for _, n := range []string{"a-1", "b-1", "b-2"} {
			var opts []daemontest.PodOption
			switch {
			case len(names) > 0 && names[0] == "pending:"+n:
				// Created recently: not yet past a health gate's ready
				// timeout.
				opts = append(opts, daemontest.WithPhase(corev1.PodPending), daemontest.CreatedAt(now.Add(-30*time.Second)), daemontest.NotReadyPod())
			case !contains(names, n):
				opts = append(opts, daemontest.WithHash("old"))
			}
			out = append(out, daemontest.Pod(ds, "agent-"+n, n, opts...))
		}
		return out
	}
	progressing := func(gen int64) appsv1.DaemonSetCondition {
		return appsv1.DaemonSetCondition{Type: progressive.ConditionProgressing, Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded",
			Message: "zone a: 0/1 updated; stopped at its progress deadline (generation " + string(rune('0'+gen)) + ")"}
	}
	blocked := appsv1.DaemonSetCondition{Type: progressive.ConditionBlocked, Status: corev1.ConditionTrue, Reason: "NewRevisionUnavailable",
		Message: "no node became updated and available for 5m0s: the new revision is not becoming available on a-1"}
	tests := []struct {
		name string
		ds   *appsv1.DaemonSet
		pods func(*appsv1.DaemonSet) []*corev1.Pod
		// revs are the revisions; none when nil.
		revs     func(*appsv1.DaemonSet) []*appsv1.ControllerRevision
		deadline time.Duration
		// started is how long before now rollout status started; resumed,
		// when not zero, how long before now it last saw the rollout
		// paused or held.
		started, resumed time.Duration
		wantDone         bool
		wantCode         int
		// wantResumed is whether the deadline counts from now on (the
		// rollout is paused or held now).
		wantResumed bool
		// want are substrings of the message (done) or of the progress
		// line (not done).
		want []string
	}{
		{name: "complete", ds: base(annotated),
			pods:     func(ds *appsv1.DaemonSet) []*corev1.Pod { return updated(ds, "a-1", "b-1", "b-2") },
			wantDone: true, wantCode: statusComplete, want: []string{"rollout complete: complete (generation 2, 3/3 nodes updated and available"}},
		{name: "under way: the first wave replaced, per wave", ds: base(annotated),
			pods: func(ds *appsv1.DaemonSet) []*corev1.Pod { return updated(ds, "a-1") },
			want: []string{"1/3 nodes updated and available (waves by zone: a 1/1, b 0/2); replacing 1 pod on b-1"}},
		{name: "a scope: the nodes outside it are said apart, as the companion says them (failed before: 1/3)",
			ds:       base(map[string]string{progressive.AnnotationScope: "zone=a"}),
			pods:     func(ds *appsv1.DaemonSet) []*corev1.Pod { return updated(ds, "a-1") },
			wantDone: true, wantCode: statusComplete, want: []string{"1/1 nodes updated and available (2 outside the scope)"}},
		{name: "blocked for this generation", ds: base(annotated, progressing(2), blocked),
			pods:     func(ds *appsv1.DaemonSet) []*corev1.Pod { return updated(ds, "pending:a-1") },
			wantDone: true, wantCode: statusBlocked, want: []string{"RolloutBlocked (NewRevisionUnavailable)", "not becoming available on a-1"}},
		{name: "a RolloutBlocked condition of the previous generation is not this rollout's", ds: base(annotated, progressing(1), blocked),
			pods: func(ds *appsv1.DaemonSet) []*corev1.Pod { return updated(ds, "pending:a-1") },
			want: []string{"0/3 nodes updated and available"}},
		{name: "--progress-deadline passed, measured here", ds: base(annotated),
			pods:     func(ds *appsv1.DaemonSet) []*corev1.Pod { return updated(ds, "pending:a-1") },
			deadline: time.Minute, started: 2 * time.Minute,
			wantDone: true, wantCode: statusDeadline, want: []string{"no node became updated and available for 1m0s", "a-1 (Pending)"}},
		{name: "--progress-deadline not yet passed", ds: base(annotated),
			pods:     func(ds *appsv1.DaemonSet) []*corev1.Pod { return updated(ds, "pending:a-1") },
			deadline: time.Minute, started: 30 * time.Second, want: []string{"0/3 nodes updated and available"}},
		{name: "a node updated and available since the watch started restarts the deadline (minReadySeconds 0)", ds: base(annotated),
			pods: func(ds *appsv1.DaemonSet) []*corev1.Pod {
				return []*corev1.Pod{
					daemontest.Pod(ds, "agent-a-1", "a-1", daemontest.ReadySince(now.Add(-10*time.Second))),
					daemontest.Pod(ds, "agent-b-1", "b-1", daemontest.WithPhase(corev1.PodPending), daemontest.CreatedAt(now.Add(-30*time.Second)), daemontest.NotReadyPod()),
					daemontest.Pod(ds, "agent-b-2", "b-2", daemontest.WithHash("old")),
				}
			},
			deadline: time.Minute, started: 2 * time.Minute, want: []string{"1/3 nodes updated and available"}},
		{name: "a pause lifted since restarts the deadline (failed before: exit 4 at once)", ds: base(annotated),
			pods:     func(ds *appsv1.DaemonSet) []*corev1.Pod { return updated(ds, "pending:a-1") },
			deadline: time.Minute, started: 10 * time.Minute, resumed: 30 * time.Second, want: []string{"0/3 nodes updated and available"}},
		{name: "a pause lifted longer ago than the deadline", ds: base(annotated),
			pods:     func(ds *appsv1.DaemonSet) []*corev1.Pod { return updated(ds, "pending:a-1") },
			deadline: time.Minute, started: 10 * time.Minute, resumed: 2 * time.Minute,
			wantDone: true, wantCode: statusDeadline, want: []string{"no node became updated and available for 1m0s"}},
		{name: "the annotation's deadline applies when no controller reports conditions",
			ds:   base(map[string]string{progressive.AnnotationOrderBy: "zone", progressive.AnnotationProgressDeadline: "1m"}),
			pods: func(ds *appsv1.DaemonSet) []*corev1.Pod { return updated(ds, "pending:a-1") }, started: 2 * time.Minute,
			wantDone: true, wantCode: statusDeadline},
		{name: "a paused rollout is waited for",
			ds:   base(map[string]string{progressive.AnnotationPaused: "true", progressive.AnnotationProgressDeadline: "1m"}),
			pods: func(ds *appsv1.DaemonSet) []*corev1.Pod { return updated(ds, "a-1") }, started: 2 * time.Minute,
			want: []string{"paused: the rolling step would replace"}, wantResumed: true},
		{name: "invalid annotations", ds: base(map[string]string{progressive.AnnotationPartition: "x"}),
			pods:     func(ds *appsv1.DaemonSet) []*corev1.Pod { return updated(ds) },
			wantDone: true, wantCode: statusError, want: []string{"metadata.annotations[rollout.daemonplan.io/partition]"}},
		{name: "a template skew: the newest revision holds a field this build does not know", ds: base(annotated),
			pods: func(ds *appsv1.DaemonSet) []*corev1.Pod { return updated(ds) },
			revs: func(ds *appsv1.DaemonSet) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{daemontest.NewerRevision(ds, 2, "futureField", "x")}
			},
			wantDone: true, wantCode: statusSkew, want: []string{"this build does not know fields of this DaemonSet's template (spec.template.spec.futureField", "upgrade daemonplan"}},
		// The issue's finding 2: a rolled-back change exited 0 "rollout
		// complete", the old image back.
		{name: "rolled back by on-failure, the restored revision complete: a failed change naming both revisions",
			ds: withOutcome(base(annotated), progressive.Outcome{Reason: progressive.OutcomeRolledBack, From: "bad1", By: progressive.RolledBackOnFailure,
				Why: "health gate failed: CrashLoopBackOff on pod agent-x"}),
			pods:     func(ds *appsv1.DaemonSet) []*corev1.Pod { return updated(ds, "a-1", "b-1", "b-2") },
			wantDone: true, wantCode: statusRolledBack,
			want: []string{"rolled back from revision bad1 to revision ", "by on-failure: rollback (health gate failed: CrashLoopBackOff on pod agent-x)",
				"the restored revision: 3/3 nodes updated and available", "kubectl dsplan rollout resume default/agent (acknowledges it)"}},
		{name: "rolled back by rollout undo, under way: exits at once",
			ds:       withOutcome(base(annotated), progressive.Outcome{Reason: progressive.OutcomeRolledBack, From: "bad1", By: progressive.RolledBackByUndo}),
			pods:     func(ds *appsv1.DaemonSet) []*corev1.Pod { return updated(ds, "a-1") },
			wantDone: true, wantCode: statusRolledBack, want: []string{"by rollout undo; the restored revision: 1/3 nodes updated"}},
		{name: "a rollback acknowledged (paused changed since): judged as any rollout",
			ds: func() *appsv1.DaemonSet {
				ds := withOutcome(base(annotated), progressive.Outcome{Reason: progressive.OutcomeRolledBack, From: "bad1", By: progressive.RolledBackByUndo})
				ds.Annotations[progressive.AnnotationPaused] = "false"
				return ds
			}(),
			pods:     func(ds *appsv1.DaemonSet) []*corev1.Pod { return updated(ds, "a-1", "b-1", "b-2") },
			wantDone: true, wantCode: statusComplete},
		{name: "a rollback to another template than the current one is over",
			ds: func() *appsv1.DaemonSet {
				ds := withOutcome(base(annotated), progressive.Outcome{Reason: progressive.OutcomeRolledBack, From: "bad1", By: progressive.RolledBackByUndo})
				o, _ := progressive.ParseOutcome(ds.Annotations[progressive.AnnotationOutcome])
				o.Revision = "other"
				ds.Annotations[progressive.AnnotationOutcome] = o.Format()
				return ds
			}(),
			pods:     func(ds *appsv1.DaemonSet) []*corev1.Pod { return updated(ds, "a-1", "b-1", "b-2") },
			wantDone: true, wantCode: statusComplete},
		{name: "being deleted", ds: func() *appsv1.DaemonSet {
			ds := base(annotated)
			ds.DeletionTimestamp = &metav1.Time{Time: now}
			return ds
		}(), pods: func(ds *appsv1.DaemonSet) []*corev1.Pod { return updated(ds) }, wantDone: true, wantCode: statusError, want: []string{"being deleted"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			w := &statusWatch{ns: "default", name: "agent", deadline: tt.deadline, out: &out, program: "kubectl dsplan", clock: func() time.Time { return now }}
			w.start = now.Add(-tt.started)
			if tt.resumed != 0 {
				w.resumed = now.Add(-tt.resumed)
			}
			before := tt.ds.DeepCopy()
			var revs []*appsv1.ControllerRevision
			if tt.revs != nil {
				revs = tt.revs(tt.ds)
			}
			code, msg, done := w.judge(tt.ds, nodes, tt.pods(tt.ds), revs)
			if done != tt.wantDone || (done && code != tt.wantCode) {
				t.Fatalf("judge() = %d, %q, done %v; want %d, done %v\nprinted: %s", code, msg, done, tt.wantCode, tt.wantDone, out.String())
			}
			got := msg
			if !done {
				got = out.String()
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q does not say %q", got, w)
				}
			}
			if got := w.resumed.Equal(now); got != tt.wantResumed {
				t.Errorf("the deadline counts from now: %v, want %v", got, tt.wantResumed)
			}
			if tt.ds.Spec.UpdateStrategy.Type != before.Spec.UpdateStrategy.Type || len(tt.ds.Annotations) != len(before.Annotations) {
				t.Errorf("judge modified the DaemonSet")
			}
		})
	}
}

// withOutcome returns ds with the outcome annotation o, o.Revision the
// hash of ds's template (the restored one).
func withOutcome(ds *appsv1.DaemonSet, o progressive.Outcome) *appsv1.DaemonSet {
	o.Revision = daemontest.Hash(ds)
	ann := map[string]string{}
	for k, v := range ds.Annotations {
		ann[k] = v
	}
	ann[progressive.AnnotationOutcome] = o.Format()
	ds.Annotations = ann
	return ds
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
