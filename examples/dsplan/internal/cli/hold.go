package cli

import (
	"fmt"
	"strings"
	"time"
	// A program may run where there is no zoneinfo (a distroless image);
	// the maintenance windows' time zones come from the binary then.
	_ "time/tzdata"

	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// HoldText says what holds the rollout of the DaemonSet key beyond its
// plan (progressive.Gates.Hold), "" when nothing does: the failing pods of
// a health gate, the wave an approval point waits after and the command
// that approves it (program is "kubectl dsplan" or "dsplan"), or when the
// next maintenance window opens. rollout status, rollout approve and
// explain say a hold in these words.
func HoldText(h progressive.Hold, program, key string) string {
	switch h.Cause {
	case progressive.HoldNone:
		return ""
	case progressive.HoldApproval:
		return fmt.Sprintf("waiting for approval after wave %s (%s rollout approve %s)", h.Wave, program, key)
	case progressive.HoldWindow:
		return "outside the maintenance windows until " + h.Until.UTC().Format(time.RFC3339)
	case progressive.HoldHealthGate:
		return "health gate failed: " + SignalsText(h.Signals)
	}
	return string(h.Cause)
}

// maxSignals is the most failing pods a line names.
const maxSignals = 5

// SignalsText names failing pods: "pod agent-x on node a-1:
// CrashLoopBackOff (container agent: back-off 5m0s)", the first five and
// how many more.
func SignalsText(signals []progressive.PodSignal) string {
	parts := make([]string, 0, min(len(signals), maxSignals)+1)
	for i, s := range signals {
		if i == maxSignals {
			parts = append(parts, fmt.Sprintf("and %d more", len(signals)-maxSignals))
			break
		}
		parts = append(parts, fmt.Sprintf("pod %s on node %s: %s", s.Pod, s.Node, signalWords(s)))
	}
	if len(parts) == 0 {
		return "no pod named"
	}
	return strings.Join(parts, "; ")
}

// signalWords is a pod's signal with its container and detail:
// "CrashLoopBackOff (container agent: back-off 5m0s)".
func signalWords(s progressive.PodSignal) string {
	out := string(s.Signal)
	var detail []string
	if s.Container != "" {
		detail = append(detail, "container "+s.Container)
	}
	if s.Detail != "" {
		detail = append(detail, s.Detail)
	}
	if len(detail) > 0 {
		out += " (" + strings.Join(detail, ": ") + ")"
	}
	return out
}
