package cli

import (
	"fmt"
	"time"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// explainGateJSON is the gate that holds a DaemonSet's rollout beyond its
// plan (progressive.Gates.Hold, at the input's clock), as it concerns one
// node.
type explainGateJSON struct {
	// Cause is the hold's cause: HealthGateFailed, WaitingForApproval or
	// OutsideWindow.
	Cause string `json:"cause"`
	// Signal is, under HealthGateFailed, the failing signal of the node's
	// own new-revision pod; absent when the failing pods are on other
	// nodes.
	Signal *explainSignalJSON `json:"signal,omitempty"`
	// Wave is, under WaitingForApproval, the wave after which the rollout
	// waits.
	Wave string `json:"wave,omitempty"`
	// Until is, under OutsideWindow, when the next maintenance window
	// opens.
	Until *time.Time `json:"until,omitempty"`
	// Message says it in words, as kubectl dsplan rollout status does.
	Message string `json:"message"`
}

// explainSignalJSON is a new-revision pod's failing health signal
// (progressive.PodSignal).
type explainSignalJSON struct {
	// Pod is the pod's name.
	Pod string `json:"pod"`
	// Signal is the signal: CrashLoopBackOff, OOMKilled, ImagePullError,
	// CreateContainerError, TooManyRestarts, RestartedDuringBake or
	// ReadyTimeout.
	Signal string `json:"signal"`
	// Container is the container it concerns; absent for the pod.
	Container string `json:"container,omitempty"`
	// Detail says it for people ("5 restarts").
	Detail string `json:"detail,omitempty"`
}

// assessOf judges r's plan, computed already, and asks the gates of its
// annotations (progressive.Annotations.Gates, none without them) at now,
// as a controller does (progressive.Assess). An error of the gates (a
// window's unknown time zone) is at progressive.AssessGates, with the
// judgement in the Assessment.
func assessOf(r result, now time.Time) (progressive.Assessment, error) {
	var gates *progressive.Gates
	if r.rollout.parsed != nil {
		gates = &r.rollout.parsed.Gates
	}
	return progressive.Assess(progressive.AssessInput{
		DaemonSet: r.rollout.ds, Plan: &r.plan, Gates: gates,
		Options: daemon.Options{Now: now}, Zones: time.LoadLocation,
	})
}

// gateOn is hold h of the DaemonSet key as it concerns node: a health
// gate names the node's own failing pod when it has one.
func gateOn(h progressive.Hold, node, program, key string) *explainGateJSON {
	if !h.Held() {
		return nil
	}
	out := &explainGateJSON{Cause: string(h.Cause), Message: HoldText(h, program, key)}
	switch h.Cause {
	case progressive.HoldApproval:
		out.Wave = h.Wave
	case progressive.HoldWindow:
		until := h.Until.UTC()
		out.Until = &until
	case progressive.HoldHealthGate:
		for _, s := range h.Signals {
			if s.Node == node {
				out.Signal = &explainSignalJSON{Pod: s.Pod, Signal: string(s.Signal), Container: s.Container, Detail: s.Detail}
				out.Message = "health gate failed here: " + s.String()
				if others := len(h.Signals) - 1; others > 0 {
					out.Message += fmt.Sprintf("; and %d more elsewhere", others)
				}
				break
			}
		}
	}
	return out
}

// heldByGate says a delete the gate holds back: a controller deletes no
// old pod for the rollout while a gate holds it (the create/delete pass
// acts as ever).
func heldByGate(d daemon.Delete) bool {
	return d.Reason == daemon.ReasonRollingUpdate || d.Reason == daemon.ReasonReplaceUnavailable
}
