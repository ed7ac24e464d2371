package cli

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/daemon/progressive"
)

func TestHoldText(t *testing.T) {
	many := make([]progressive.PodSignal, 7)
	for i := range many {
		many[i] = progressive.PodSignal{Pod: "agent-" + string(rune('a'+i)), Node: "n-" + string(rune('a'+i)), Signal: progressive.SignalRestarts, Detail: "5 restarts"}
	}
	tests := []struct {
		name string
		hold progressive.Hold
		want string
	}{
		{name: "none", hold: progressive.Hold{}, want: ""},
		{name: "approval", hold: progressive.Hold{Cause: progressive.HoldApproval, Wave: "zone=a"},
			want: "waiting for approval after wave zone=a (kubectl dsplan rollout approve kube-system/agent)"},
		{name: "window", hold: progressive.Hold{Cause: progressive.HoldWindow, Until: time.Date(2026, 3, 29, 8, 0, 0, 0, time.FixedZone("CEST", 7200))},
			want: "outside the maintenance windows until 2026-03-29T06:00:00Z"},
		{name: "health gate, pod-level signal", hold: progressive.Hold{Cause: progressive.HoldHealthGate,
			Signals: []progressive.PodSignal{{Pod: "agent-x", Node: "a-1", Signal: progressive.SignalReadyTimeout, Detail: "not Ready after 10m0s"}}},
			want: "health gate failed: pod agent-x on node a-1: ReadyTimeout (not Ready after 10m0s)"},
		{name: "health gate, the first five pods named", hold: progressive.Hold{Cause: progressive.HoldHealthGate, Signals: many},
			want: "health gate failed: pod agent-a on node n-a: TooManyRestarts (5 restarts); pod agent-b on node n-b: TooManyRestarts (5 restarts); " +
				"pod agent-c on node n-c: TooManyRestarts (5 restarts); pod agent-d on node n-d: TooManyRestarts (5 restarts); " +
				"pod agent-e on node n-e: TooManyRestarts (5 restarts); and 2 more"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, HoldText(tt.hold, "kubectl dsplan", "kube-system/agent")); diff != "" {
				t.Errorf("holdText (-want +got):\n%s", diff)
			}
		})
	}
}
