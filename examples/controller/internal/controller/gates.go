package controller

import (
	"errors"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/daemon/progressive/window"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// gatedOptions returns opts set to plan r, and whether that plan is to be
// held by r's gates (holds): only a DaemonSet with valid rollout
// annotations, not paused by them, is, and only its plan has a standing
// (progressive.Rollout.Options). Any other is planned under r.Policy as
// it is, at no cost beyond its plan: no standing, no judgement (the
// paused annotation already keeps every old pod).
func gatedOptions(r progressive.Rollout, opts daemon.Options) (daemon.Options, bool) {
	if r.Annotations == nil || r.Policy.Paused {
		opts.Rollout = r.Policy
		return opts, false
	}
	return r.Options(opts), true
}

// holds decides whether anything beyond plan, the plan of r computed with
// gatedOptions, holds the rollout of ds (the DaemonSet of key) at now:
// progressive.Assess of the plan (the judgement, then the health gates,
// an approval point, the windows), the library's one decision. The key is requeued at Hold.Next, and a hold that begins (or
// changes its cause, or the wave it waits after) is said in an event:
// Warning RolloutBlocked for a failed health gate or an annotation naming
// nothing of the cluster (progressive.HoldUnresolved), Normal
// RolloutWaitingForApproval or RolloutOutsideWindow.
//
// Replace mode writes no rollout conditions, so a health gate's hold is
// not latched as the companion's is: it holds while a new-revision pod
// fails, and the rollout goes on once none does.
//
// An error holds the rollout too (no old pod is replaced): an annotation
// Hold refuses (a window's time zone the zone database does not know) gets
// an InvalidAnnotations Warning event once per spec and annotations, as
// the other annotations' errors do, and is not returned; any other is.
func (c *Controller) holds(key string, ds *appsv1.DaemonSet, r progressive.Rollout, plan *daemon.Plan, now time.Time) (bool, error) {
	a, err := progressive.Assess(progressive.AssessInput{
		DaemonSet: r.DaemonSet, Plan: plan, Gates: r.Gates(),
		Options: daemon.Options{Now: now}, Zones: c.zones,
	})
	if err != nil {
		c.state.noteHold(key, progressive.Hold{})
		var fe *field.Error
		if progressive.StepOf(err) == progressive.AssessGates && errors.As(err, &fe) {
			c.Warn(key, ds, syncer.ReasonInvalidAnnotations, "no old pod is replaced until this is fixed: "+err.Error())
			return true, nil
		}
		return true, err
	}
	h := a.Hold
	if a.Requeue > 0 {
		c.Queue.AddAfter(key, a.Requeue)
	}
	if c.state.noteHold(key, h) {
		c.announceHold(key, ds, r.Annotations.Gates.Windows, h)
	}
	return h.Held(), nil
}

// announceHold records the event of hold h beginning for ds, the
// DaemonSet of key, and logs it; nothing when h holds nothing.
func (c *Controller) announceHold(key string, ds *appsv1.DaemonSet, windows window.Windows, h progressive.Hold) {
	msg := syncer.HoldMessage(key, h, windows)
	switch h.Cause {
	case progressive.HoldNone:
		return
	case progressive.HoldHealthGate, progressive.HoldUnresolved:
		c.Recorder.Event(ds, corev1.EventTypeWarning, "RolloutBlocked", string(h.Cause)+": "+msg)
	case progressive.HoldApproval:
		c.Recorder.Event(ds, corev1.EventTypeNormal, "RolloutWaitingForApproval", msg)
	case progressive.HoldWindow:
		c.Recorder.Event(ds, corev1.EventTypeNormal, "RolloutOutsideWindow", msg)
	}
	c.Logger.Info("Rollout held", "daemonset", key, "cause", string(h.Cause), "detail", msg)
}
