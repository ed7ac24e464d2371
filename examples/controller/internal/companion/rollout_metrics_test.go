package companion

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/daemonplan/daemonplan/daemon/progressive"
)

func TestRolloutMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	clk := clocktesting.NewFakeClock(t0)
	m := newRolloutMetrics(reg, clk)
	m.set("ns/a", rolloutGauges{namespace: "ns", name: "a", desired: 24, updated: 9, waves: 3, wavesDone: 1})
	m.set("ns/b", rolloutGauges{namespace: "ns", name: "b", desired: 6, updated: 1, blockedSince: t0.Add(-90 * time.Second), blockedReason: ReasonHealthGateFailed})
	m.set("ns/c", rolloutGauges{namespace: "ns", name: "c", desired: 2, updated: 1, held: ReasonWaitingForApproval})
	m.set("ns/gone", rolloutGauges{namespace: "ns", name: "gone", desired: 1})
	// Two pods crash-looping and one OOMKilled: one failure of each
	// signal; a DaemonSet gone takes its series along.
	m.healthGateFailed("ns", "b", []progressive.PodSignal{
		{Pod: "p1", Node: "n1", Signal: progressive.SignalCrashLoop},
		{Pod: "p2", Node: "n2", Signal: progressive.SignalCrashLoop},
		{Pod: "p3", Node: "n3", Signal: progressive.SignalOOMKilled},
	})
	m.healthGateFailed("ns", "b", []progressive.PodSignal{{Pod: "p1", Node: "n1", Signal: progressive.SignalCrashLoop}})
	m.healthGateFailed("ns", "gone", []progressive.PodSignal{{Pod: "p1", Node: "n1", Signal: progressive.SignalImagePull}})
	m.forget("ns/gone")
	want := `
# HELP daemonplan_controller_rollout_blocked_seconds Seconds since the rollout stopped itself at its progress deadline or on a failed health gate (RolloutBlocked, whose reason is the reason label); 0 when it is not blocked.
# TYPE daemonplan_controller_rollout_blocked_seconds gauge
daemonplan_controller_rollout_blocked_seconds{daemonset="a",namespace="ns",reason=""} 0
daemonplan_controller_rollout_blocked_seconds{daemonset="b",namespace="ns",reason="HealthGateFailed"} 90
daemonplan_controller_rollout_blocked_seconds{daemonset="c",namespace="ns",reason=""} 0
# HELP daemonplan_controller_rollout_health_gate_failures_total Rollouts a health gate stopped (RolloutBlocked HealthGateFailed), once per signal of the new revision's pods when it stopped.
# TYPE daemonplan_controller_rollout_health_gate_failures_total counter
daemonplan_controller_rollout_health_gate_failures_total{daemonset="b",namespace="ns",signal="CrashLoopBackOff"} 2
daemonplan_controller_rollout_health_gate_failures_total{daemonset="b",namespace="ns",signal="OOMKilled"} 1
# HELP daemonplan_controller_rollout_held 1 while the rollout waits for an approval (reason WaitingForApproval) or a maintenance window (OutsideWindow), 0 otherwise.
# TYPE daemonplan_controller_rollout_held gauge
daemonplan_controller_rollout_held{daemonset="a",namespace="ns",reason=""} 0
daemonplan_controller_rollout_held{daemonset="b",namespace="ns",reason=""} 0
daemonplan_controller_rollout_held{daemonset="c",namespace="ns",reason="WaitingForApproval"} 1
# HELP daemonplan_controller_rollout_nodes_updated Desired nodes in scope running an updated, available pod and no old one.
# TYPE daemonplan_controller_rollout_nodes_updated gauge
daemonplan_controller_rollout_nodes_updated{daemonset="a",namespace="ns"} 9
daemonplan_controller_rollout_nodes_updated{daemonset="b",namespace="ns"} 1
daemonplan_controller_rollout_nodes_updated{daemonset="c",namespace="ns"} 1
# HELP daemonplan_controller_rollout_waves_completed Waves whose desired nodes all run an updated, available pod.
# TYPE daemonplan_controller_rollout_waves_completed gauge
daemonplan_controller_rollout_waves_completed{daemonset="a",namespace="ns"} 1
daemonplan_controller_rollout_waves_completed{daemonset="b",namespace="ns"} 0
daemonplan_controller_rollout_waves_completed{daemonset="c",namespace="ns"} 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want),
		"daemonplan_controller_rollout_blocked_seconds", "daemonplan_controller_rollout_health_gate_failures_total", "daemonplan_controller_rollout_held", "daemonplan_controller_rollout_nodes_updated", "daemonplan_controller_rollout_waves_completed"); err != nil {
		t.Error(err)
	}
}
