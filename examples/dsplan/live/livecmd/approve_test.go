package livecmd

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// rolloutAt is an assessment of a rollout by zone with a canary, waves
// canary, zone=a, zone=b, zone=c, at revision "v2", held by hold, with
// the gates' pause-after and approval.
func rolloutAt(hold progressive.Hold, approved *progressive.Approval, pauseAfter ...string) assessment {
	var a assessment
	a.rollout.Policy.Order.Label = "zone"
	a.plan.Hash = "v2"
	a.judged.Reason = progressive.Reason{Cause: progressive.CauseWaveWaiting, Wave: "zone=b", Count: 0, Of: 2, Nodes: []string{"b-1", "b-2"}}
	for _, w := range []string{daemon.CanaryWave, "zone=a", "zone=b", "zone=c"} {
		a.judged.Waves = append(a.judged.Waves, progressive.Tally{Wave: w, Desired: 2})
	}
	a.hold = hold
	a.gates = progressive.Gates{PauseAfter: pauseAfter, Approved: approved}
	return a
}

func TestDecideApproval(t *testing.T) {
	waiting := func(wave string) progressive.Hold {
		return progressive.Hold{Cause: progressive.HoldApproval, Wave: wave}
	}
	complete := rolloutAt(progressive.Hold{}, nil, "every-wave")
	complete.judged.Complete, complete.judged.Reason = true, progressive.Reason{Cause: progressive.CauseComplete}
	noHash := rolloutAt(waiting("zone=a"), nil, "every-wave")
	noHash.plan.Hash = ""
	tests := []struct {
		name string
		a    assessment
		wave string
		want progressive.Approval
		// wantErr is the error's text; wantSays what an approval says.
		wantErr, wantSays string
	}{
		{name: "the point it waits at", a: rolloutAt(waiting("canary"), nil, "canary"),
			want: progressive.Approval{Hash: "v2", Wave: "canary"}, wantSays: "the rollout goes on after wave canary of revision v2"},
		{name: "an approval of the previous point does not cover this one",
			a:    rolloutAt(waiting("zone=a"), &progressive.Approval{Hash: "v2", Wave: "canary"}, "every-wave"),
			want: progressive.Approval{Hash: "v2", Wave: "zone=a"}, wantSays: "the rollout goes on after wave zone=a of revision v2"},
		{name: "not waiting: says what the rollout does", a: rolloutAt(progressive.Hold{}, nil, "canary"),
			wantErr: "nothing to approve: daemonset kube-system/agent does not wait for approval: wave zone=b: 0/2 updated and available; waiting for b-1, b-2"},
		{name: "held by a health gate: says so",
			a:       rolloutAt(progressive.Hold{Cause: progressive.HoldHealthGate, Signals: []progressive.PodSignal{{Pod: "agent-x", Node: "a-1", Signal: progressive.SignalCrashLoop, Container: "agent"}}}, nil, "canary"),
			wantErr: "nothing to approve: daemonset kube-system/agent does not wait for approval: health gate failed: CrashLoopBackOff on pod agent-x (node a-1, container agent)"},
		{name: "outside the windows: says until when",
			a:       rolloutAt(progressive.Hold{Cause: progressive.HoldWindow, Until: time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)}, nil, "canary"),
			wantErr: "nothing to approve: daemonset kube-system/agent does not wait for approval: outside the maintenance windows until 2026-11-30T08:00:00Z"},
		{name: "complete", a: complete, wave: "zone=b",
			wantErr: "nothing to approve: the rollout of daemonset kube-system/agent is complete (complete)"},
		{name: "no revision yet", a: noHash,
			wantErr: "nothing to approve: daemonset kube-system/agent has no current revision to approve yet (wave zone=b: 0/2 updated and available; waiting for b-1, b-2)"},
		{name: "--wave ahead of time, by wave name", a: rolloutAt(waiting("canary"), nil, "every-wave"), wave: "zone=b",
			want:     progressive.Approval{Hash: "v2", Wave: "zone=b"},
			wantSays: "approved ahead of time: the approval points of revision v2 up to wave zone=b will not hold the rollout"},
		{name: "--wave by order value", a: rolloutAt(progressive.Hold{}, nil, "b"), wave: "b",
			want:     progressive.Approval{Hash: "v2", Wave: "zone=b"},
			wantSays: "approved ahead of time: the approval points of revision v2 up to wave zone=b will not hold the rollout"},
		{name: "--wave naming the point it waits at", a: rolloutAt(waiting("zone=a"), nil, "a", "b"), wave: "a",
			want: progressive.Approval{Hash: "v2", Wave: "zone=a"}, wantSays: "the rollout goes on after wave zone=a of revision v2"},
		{name: "--wave naming no point: the points are named", a: rolloutAt(waiting("canary"), nil, "canary", "b"), wave: "zone-b",
			wantErr: `--wave "zone-b": not an approval point of daemonset kube-system/agent; its approval points are canary, zone=b`},
		{name: "--wave without pause-after", a: rolloutAt(progressive.Hold{}, nil), wave: "canary",
			wantErr: `--wave "canary": not an approval point of daemonset kube-system/agent; it has none (rollout.daemonplan.io/pause-after names none of its waves)`},
		{name: "the last wave is no point", a: rolloutAt(progressive.Hold{}, nil, "every-wave"), wave: "c",
			wantErr: `--wave "c": not an approval point of daemonset kube-system/agent; its approval points are canary, zone=a, zone=b`},
		{name: "--wave before the point it waits at", a: rolloutAt(waiting("zone=b"), nil, "every-wave"), wave: "canary",
			wantErr: `--wave "canary": wave canary comes before wave zone=b, where the rollout of daemonset kube-system/agent waits: approve that one or a later one`},
		{name: "--wave approved already", a: rolloutAt(progressive.Hold{}, &progressive.Approval{Hash: "v2", Wave: "zone=b"}, "every-wave"), wave: "a",
			wantErr: "nothing to approve: daemonset kube-system/agent has revision v2 approved through wave zone=b already (rollout.daemonplan.io/approved=v2/zone=b)"},
		{name: "an approval of another revision does not count", a: rolloutAt(progressive.Hold{}, &progressive.Approval{Hash: "v1", Wave: "zone=b"}, "every-wave"), wave: "a",
			want:     progressive.Approval{Hash: "v2", Wave: "zone=a"},
			wantSays: "approved ahead of time: the approval points of revision v2 up to wave zone=a will not hold the rollout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := decideApproval(tt.a, "kube-system/agent", tt.wave)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if diff := cmp.Diff(tt.wantErr, gotErr); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, d.approval); diff != "" {
				t.Errorf("approval (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantSays, d.says); diff != "" {
				t.Errorf("says (-want +got):\n%s", diff)
			}
		})
	}
}
