package cli

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/daemon/progressive"
)

func TestGateOn(t *testing.T) {
	opens := time.Date(2026, 10, 26, 7, 0, 0, 0, time.UTC)
	crash := progressive.PodSignal{Pod: "agent-a", Node: "a-1", Signal: progressive.SignalCrashLoop, Container: "agent", Detail: "back-off 40s"}
	pull := progressive.PodSignal{Pod: "agent-b", Node: "b-1", Signal: progressive.SignalImagePull, Container: "agent"}
	tests := []struct {
		name string
		hold progressive.Hold
		node string
		want *explainGateJSON
	}{
		{name: "nothing holds", node: "a-1"},
		{name: "the node's own new pod fails", hold: progressive.Hold{Cause: progressive.HoldHealthGate, Signals: []progressive.PodSignal{crash, pull}}, node: "a-1",
			want: &explainGateJSON{Cause: "HealthGateFailed", Signal: &explainSignalJSON{Pod: "agent-a", Signal: "CrashLoopBackOff", Container: "agent", Detail: "back-off 40s"},
				Message: "health gate failed: its new pod agent-a: CrashLoopBackOff (container agent: back-off 40s) (and 1 more pods on other nodes)"}},
		{name: "the new revision fails elsewhere", hold: progressive.Hold{Cause: progressive.HoldHealthGate, Signals: []progressive.PodSignal{crash, pull}}, node: "c-1",
			want: &explainGateJSON{Cause: "HealthGateFailed",
				Message: "health gate failed: pod agent-a on node a-1: CrashLoopBackOff (container agent: back-off 40s); pod agent-b on node b-1: ImagePullError (container agent)"}},
		{name: "an approval point", hold: progressive.Hold{Cause: progressive.HoldApproval, Wave: "zone=a"}, node: "b-1",
			want: &explainGateJSON{Cause: "WaitingForApproval", Wave: "zone=a", Message: "waiting for approval after wave zone=a (kubectl dsplan rollout approve kube-system/agent)"}},
		{name: "the windows are closed", hold: progressive.Hold{Cause: progressive.HoldWindow, Until: opens.In(time.FixedZone("CET", 3600))}, node: "b-1",
			want: &explainGateJSON{Cause: "OutsideWindow", Until: &opens, Message: "outside the maintenance windows until 2026-10-26T07:00:00Z"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, gateOn(tt.hold, tt.node, "kubectl dsplan", "kube-system/agent")); diff != "" {
				t.Errorf("gateOn (-want +got):\n%s", diff)
			}
		})
	}
}
