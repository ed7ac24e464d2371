package cli

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/daemon/progressive"
)

func TestHoldText(t *testing.T) {
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
		{name: "health gate: the library's words", hold: progressive.Hold{Cause: progressive.HoldHealthGate,
			Signals: []progressive.PodSignal{{Pod: "agent-x", Node: "a-1", Signal: progressive.SignalReadyTimeout, Detail: "not Ready within 10m0s"}}},
			want: "health gate failed: ReadyTimeout on pod agent-x (node a-1: not Ready within 10m0s)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, HoldText(tt.hold, "kubectl dsplan", "kube-system/agent")); diff != "" {
				t.Errorf("holdText (-want +got):\n%s", diff)
			}
		})
	}
}
