package companion

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/daemon/progressive/window"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// judged is a rolloutSync of a DaemonSet of generation 4 with a progress
// deadline of 10m, one of four nodes updated, changed by mutate.
func judged(t *testing.T, mutate func(r *rolloutSync)) *rolloutSync {
	t.Helper()
	ds := companionDS(map[string]string{progressive.AnnotationMaxUnavailable: "1", progressive.AnnotationProgressDeadline: "10m"},
		func(ds *appsv1.DaemonSet) { ds.Generation = 4 })
	ro, err := progressive.ForDaemonSet(ds)
	if err != nil {
		t.Fatal(err)
	}
	r := &rolloutSync{key: "ns/ds", ds: ds, ro: ro, now: t0, plan: daemon.Plan{Hash: "h2"},
		judgement: progressive.Judgement{Total: progressive.Tally{Desired: 4, Updated: 1}}}
	if mutate != nil {
		mutate(r)
	}
	return r
}

// conds builds the wanted conditions: RolloutProgressing, RolloutPaused,
// RolloutBlocked, Reconciling, Stalled, in that order.
func conds(progressing, paused, blocked, reconciling, stalled appsv1.DaemonSetCondition) []appsv1.DaemonSetCondition {
	reconciling.Type, stalled.Type = ConditionReconciling, ConditionStalled
	progressing.Type, paused.Type, blocked.Type = ConditionProgressing, ConditionPaused, ConditionBlocked
	return []appsv1.DaemonSetCondition{progressing, paused, blocked, reconciling, stalled}
}

// is is a condition of no type yet (conds gives it one).
func is(status bool, reason, message string) appsv1.DaemonSetCondition {
	return condition("", status, reason, message)
}

func TestWantConditions(t *testing.T) {
	notPaused := is(false, ReasonNotPaused, messageNotPaused)
	notBlocked := is(false, ReasonNotBlocked, messageNotBlocked)
	crash := []progressive.PodSignal{
		{Pod: "ds-a", Node: "n1", Signal: progressive.SignalCrashLoop, Container: "agent", Detail: "back-off 40s"},
		{Pod: "ds-b", Node: "n2", Signal: progressive.SignalRestarts, Container: "agent", Detail: "5 restarts"},
	}
	// The library says a hold (Hold.String), as every program does.
	crashMsg := progressive.Hold{Cause: progressive.HoldHealthGate, Signals: crash}.String()
	healthLatch := progressive.Outcome{Reason: progressive.OutcomeHealthGateFailed, Revision: "h2"}
	hint := "a new template, or kubectl dsplan rollout resume ns/ds (a change of the rollout.daemonplan.io/paused annotation), ends it"
	healthPaused := "paused itself: a health gate failed on revision h2; " + hint
	firstOnly := progressive.Hold{Cause: progressive.HoldHealthGate, Signals: crash[:1]}.String()
	rolledBackMsg := "rolled back from revision h1 to revision h2 by on-failure: rollback (" + crashMsg + "); 1/4 nodes updated; " + hint + " (generation 4)"
	failingMsg := "the rollout to revision h2 completed, and pods of it now fail (reported, not stopped: no rollout is under way): " + crashMsg + "; 1/4 nodes updated (generation 4)"
	until := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		mutate func(r *rolloutSync)
		want   []appsv1.DaemonSetCondition
	}{{
		name: "updating",
		want: conds(is(true, ReasonUpdating, "1/4 nodes updated (generation 4)"), notPaused, notBlocked,
			is(true, ReasonUpdating, "1/4 nodes updated (generation 4)"), notBlocked),
	}, {
		name: "complete: not reconciling",
		mutate: func(r *rolloutSync) {
			r.judgement = progressive.Judgement{Complete: true, Total: progressive.Tally{Desired: 4, Updated: 4}}
		},
		want: conds(is(true, ReasonComplete, "4/4 nodes updated (generation 4)"), notPaused, notBlocked,
			is(false, ReasonComplete, "4/4 nodes updated (generation 4)"), notBlocked),
	}, {
		name:   "paused by the annotation: not reconciling",
		mutate: func(r *rolloutSync) { r.ro.Policy.Paused = true },
		want: conds(is(false, ReasonPaused, "1/4 nodes updated (generation 4)"), is(true, ReasonPausedByAnnotation, "paused by the rollout.daemonplan.io/paused annotation"), notBlocked,
			is(false, ReasonPaused, "1/4 nodes updated (generation 4)"), notBlocked),
	}, {
		name: "waiting for approval: reconciling, not paused",
		mutate: func(r *rolloutSync) {
			r.hold = progressive.Hold{Cause: progressive.HoldApproval, Wave: "topology.kubernetes.io/zone=zone-a"}
		},
		want: conds(
			is(true, ReasonWaitingForApproval, "1/4 nodes updated; waiting for approval after wave topology.kubernetes.io/zone=zone-a (kubectl dsplan rollout approve ns/ds) (generation 4)"),
			notPaused, notBlocked,
			is(true, ReasonWaitingForApproval, "1/4 nodes updated; waiting for approval after wave topology.kubernetes.io/zone=zone-a (kubectl dsplan rollout approve ns/ds) (generation 4)"),
			notBlocked),
	}, {
		name:   "waiting for approval of the canary",
		mutate: func(r *rolloutSync) { r.hold = progressive.Hold{Cause: progressive.HoldApproval, Wave: "canary"} },
		want: conds(
			is(true, ReasonWaitingForApproval, "1/4 nodes updated; waiting for approval after wave canary (kubectl dsplan rollout approve ns/ds) (generation 4)"),
			notPaused, notBlocked,
			is(true, ReasonWaitingForApproval, "1/4 nodes updated; waiting for approval after wave canary (kubectl dsplan rollout approve ns/ds) (generation 4)"),
			notBlocked),
	}, {
		name: "outside the windows: reconciling, not paused",
		mutate: func(r *rolloutSync) {
			ws, err := window.Parse("Mon-Fri 08:00-17:00 Europe/Amsterdam")
			if err != nil {
				t.Fatal(err)
			}
			r.ro.Annotations.Gates.Windows = ws
			r.hold = progressive.Hold{Cause: progressive.HoldWindow, Until: until, Next: until}
		},
		want: conds(
			is(true, ReasonOutsideWindow, "1/4 nodes updated; outside the maintenance windows until 2026-11-30T08:00:00Z (Mon-Fri 08:00-17:00 Europe/Amsterdam) (generation 4)"),
			notPaused, notBlocked,
			is(true, ReasonOutsideWindow, "1/4 nodes updated; outside the maintenance windows until 2026-11-30T08:00:00Z (Mon-Fri 08:00-17:00 Europe/Amsterdam) (generation 4)"),
			notBlocked),
	}, {
		name: "a health gate fails now: paused, blocked naming pods and nodes, stalled",
		mutate: func(r *rolloutSync) {
			r.hold = progressive.Hold{Cause: progressive.HoldHealthGate, Signals: crash}
			r.latched, r.fresh, r.l = true, true, healthLatch
		},
		want: conds(is(false, ReasonHealthGateFailed, "1/4 nodes updated; stopped by a health gate (generation 4)"),
			is(true, ReasonHealthGateFailed, healthPaused),
			is(true, ReasonHealthGateFailed, crashMsg),
			is(false, ReasonHealthGateFailed, "1/4 nodes updated; stopped by a health gate (generation 4)"),
			is(true, ReasonHealthGateFailed, crashMsg)),
	}, {
		name: "latched by a health gate: RolloutBlocked keeps what it said, RolloutPaused says what rollback did",
		mutate: func(r *rolloutSync) {
			r.ds.Status.Conditions = []appsv1.DaemonSetCondition{condition(ConditionBlocked, true, ReasonHealthGateFailed, crashMsg)}
			r.latched, r.l = true, healthLatch
			r.rollback = "on-failure rollback: no revision to roll back to: the DaemonSet has no earlier revision"
		},
		want: conds(is(false, ReasonHealthGateFailed, "1/4 nodes updated; stopped by a health gate (generation 4)"),
			is(true, ReasonHealthGateFailed, "paused itself: a health gate failed on revision h2; on-failure rollback: no revision to roll back to: the DaemonSet has no earlier revision; "+hint),
			is(true, ReasonHealthGateFailed, crashMsg),
			is(false, ReasonHealthGateFailed, "1/4 nodes updated; stopped by a health gate (generation 4)"),
			is(true, ReasonHealthGateFailed, crashMsg)),
	}, {
		// The finding 7: the condition named one of two failing
		// pods, those that failed when the rollout stopped.
		name: "latched by a health gate, a second pod fails later: RolloutBlocked names both",
		mutate: func(r *rolloutSync) {
			r.ds.Status.Conditions = []appsv1.DaemonSetCondition{condition(ConditionBlocked, true, ReasonHealthGateFailed, firstOnly)}
			r.latched, r.l = true, healthLatch
			r.failing = progressive.Hold{Cause: progressive.HoldHealthGate, Signals: crash}
		},
		want: conds(is(false, ReasonHealthGateFailed, "1/4 nodes updated; stopped by a health gate (generation 4)"),
			is(true, ReasonHealthGateFailed, healthPaused),
			is(true, ReasonHealthGateFailed, crashMsg),
			is(false, ReasonHealthGateFailed, "1/4 nodes updated; stopped by a health gate (generation 4)"),
			is(true, ReasonHealthGateFailed, crashMsg)),
	}, {
		// The finding 8: no RolloutBlocked, no RolloutPaused, but a
		// failed change (finding 2).
		name: "rolled back: not paused, not blocked, stalled RolledBack naming both revisions",
		mutate: func(r *rolloutSync) {
			r.rolledBack = &progressive.Outcome{Reason: progressive.OutcomeRolledBack, Revision: "h2", From: "h1", By: progressive.RolledBackOnFailure, Why: crashMsg}
		},
		want: conds(is(false, ReasonRolledBack, rolledBackMsg), notPaused, notBlocked,
			is(false, ReasonRolledBack, rolledBackMsg), is(true, ReasonRolledBack, rolledBackMsg)),
	}, {
		name: "rolled back by hand",
		mutate: func(r *rolloutSync) {
			r.rolledBack = &progressive.Outcome{Reason: progressive.OutcomeRolledBack, Revision: "h2", From: "h1", By: progressive.RolledBackByUndo}
		},
		want: conds(is(false, ReasonRolledBack, "rolled back from revision h1 to revision h2 by kubectl dsplan rollout undo; 1/4 nodes updated; "+hint+" (generation 4)"), notPaused, notBlocked,
			is(false, ReasonRolledBack, "rolled back from revision h1 to revision h2 by kubectl dsplan rollout undo; 1/4 nodes updated; "+hint+" (generation 4)"),
			is(true, ReasonRolledBack, "rolled back from revision h1 to revision h2 by kubectl dsplan rollout undo; 1/4 nodes updated; "+hint+" (generation 4)")),
	}, {
		// The finding 8: a steady DaemonSet was paused and
		// blocked (Stalled, kstatus Failed) with no rollout under way.
		name: "a completed rollout's pods fail: reported, not paused, not stalled",
		mutate: func(r *rolloutSync) {
			r.failing = progressive.Hold{Cause: progressive.HoldHealthGate, Signals: crash}
		},
		want: conds(is(true, ReasonPodsFailing, failingMsg), notPaused, notBlocked,
			is(false, ReasonPodsFailing, failingMsg), notBlocked),
	}, {
		name: "latched at the deadline, its RolloutBlocked lost",
		mutate: func(r *rolloutSync) {
			r.latched, r.l = true, progressive.Outcome{Reason: progressive.OutcomeProgressDeadlineExceeded, Revision: "h2"}
		},
		want: conds(is(false, ReasonProgressDeadlineExceeded, "1/4 nodes updated; stopped at its progress deadline (generation 4)"),
			is(true, ReasonProgressDeadlineExceeded, "paused itself: no node became updated and available on revision h2 for 10m0s; "+hint),
			is(true, ReasonNoProgress, "stopped at its progress deadline"),
			is(false, ReasonProgressDeadlineExceeded, "1/4 nodes updated; stopped at its progress deadline (generation 4)"),
			is(true, ReasonNoProgress, "stopped at its progress deadline")),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := wantConditions(judged(t, tt.mutate))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("wantConditions (-want +got):\n%s", diff)
			}
		})
	}
}

// TestKstatus: cli-utils' kstatus, which Flux, kpt and Config Sync use,
// reads the companion's Reconciling and Stalled conditions as meant:
// InProgress while a rollout is under way (waiting for an approval or a
// window included), Failed when it is blocked or its annotations are
// refused, and, once complete, whatever its DaemonSet rules say (Current
// for a DaemonSet whose pods are all updated and available).
func TestKstatus(t *testing.T) {
	settled := appsv1.DaemonSetStatus{ObservedGeneration: 4, DesiredNumberScheduled: 4, CurrentNumberScheduled: 4,
		UpdatedNumberScheduled: 4, NumberAvailable: 4, NumberReady: 4}
	tests := []struct {
		name   string
		mutate func(r *rolloutSync)
		want   status.Status
	}{
		{name: "updating", want: status.InProgressStatus},
		// The finding 2: a rolled-back change read as a success.
		{name: "rolled back", want: status.FailedStatus, mutate: func(r *rolloutSync) {
			r.rolledBack = &progressive.Outcome{Reason: progressive.OutcomeRolledBack, Revision: "h2", From: "h1", By: progressive.RolledBackOnFailure}
		}},
		{name: "rolled back, the restored revision complete", want: status.FailedStatus, mutate: func(r *rolloutSync) {
			r.judgement = progressive.Judgement{Complete: true, Total: progressive.Tally{Desired: 4, Updated: 4}}
			r.rolledBack = &progressive.Outcome{Reason: progressive.OutcomeRolledBack, Revision: "h2", From: "h1", By: progressive.RolledBackOnFailure}
		}},
		// The finding 8: kstatus went Failed for a steady DaemonSet.
		{name: "a completed rollout's pod fails", want: status.CurrentStatus, mutate: func(r *rolloutSync) {
			r.failing = progressive.Hold{Cause: progressive.HoldHealthGate, Signals: []progressive.PodSignal{{Pod: "p", Node: "n", Signal: progressive.SignalCrashLoop}}}
		}},
		{name: "waiting for approval", want: status.InProgressStatus, mutate: func(r *rolloutSync) {
			r.hold = progressive.Hold{Cause: progressive.HoldApproval, Wave: "canary"}
		}},
		{name: "outside the windows", want: status.InProgressStatus, mutate: func(r *rolloutSync) {
			r.hold = progressive.Hold{Cause: progressive.HoldWindow}
		}},
		{name: "blocked by a health gate", want: status.FailedStatus, mutate: func(r *rolloutSync) {
			r.hold = progressive.Hold{Cause: progressive.HoldHealthGate, Signals: []progressive.PodSignal{{Pod: "p", Node: "n", Signal: progressive.SignalImagePull}}}
			r.latched, r.fresh, r.l = true, true, progressive.Outcome{Reason: progressive.OutcomeHealthGateFailed, Revision: "h"}
		}},
		{name: "blocked at the deadline", want: status.FailedStatus, mutate: func(r *rolloutSync) {
			r.latched, r.l = true, progressive.Outcome{Reason: progressive.OutcomeProgressDeadlineExceeded, Revision: "h"}
		}},
		{name: "complete", want: status.CurrentStatus, mutate: func(r *rolloutSync) {
			r.judgement = progressive.Judgement{Complete: true, Total: progressive.Tally{Desired: 4, Updated: 4}}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := judged(t, tt.mutate)
			ds := r.ds.DeepCopy()
			ds.Status = settled
			ds.Status.Conditions = wantConditions(r)
			if got := kstatusOf(t, ds); got != tt.want {
				t.Errorf("kstatus %s, want %s", got, tt.want)
			}
		})
	}
	// Refused annotations: only RolloutProgressing, and the kstatus pair.
	ds := companionDS(nil, func(ds *appsv1.DaemonSet) { ds.Generation = 4 })
	ds.Status = settled
	ds.Status.Conditions = withKstatus([]appsv1.DaemonSetCondition{
		condition(ConditionProgressing, false, syncer.ReasonInvalidAnnotations, "no pod is replaced: x (generation 4)")})
	if got := kstatusOf(t, ds); got != status.FailedStatus {
		t.Errorf("refused annotations: kstatus %s, want %s", got, status.FailedStatus)
	}
}

// kstatusOf is kstatus' status of ds.
func kstatusOf(t *testing.T, ds *appsv1.DaemonSet) status.Status {
	t.Helper()
	ds = ds.DeepCopy()
	ds.APIVersion, ds.Kind = "apps/v1", "DaemonSet"
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ds)
	if err != nil {
		t.Fatal(err)
	}
	res, err := status.Compute(&unstructured.Unstructured{Object: obj})
	if err != nil {
		t.Fatal(err)
	}
	return res.Status
}
