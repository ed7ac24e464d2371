package progressive

import (
	"errors"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/progressive/window"
)

// MinHoldRequeue is the least wait before looking again at a hold that
// changes with the clock (Assessment.Requeue): Hold.Next is exact, and a
// sync a moment early finds the hold unchanged.
const MinHoldRequeue = 100 * time.Millisecond

// PlanFunc computes a plan: daemon.Compute, or the Compute method of a
// program's daemon.Planner (or a wrapper of it that times the call).
type PlanFunc func(ds *appsv1.DaemonSet, nodes []*corev1.Node, pods []*corev1.Pod, opts daemon.Options) (daemon.Plan, error)

// AssessInput is what Assess needs of a DaemonSet at one moment: what a
// controller has at a sync.
type AssessInput struct {
	// DaemonSet is the DaemonSet to plan and judge: Rollout.DaemonSet of
	// ForDaemonSet (an OnDelete one planned as RollingUpdate).
	DaemonSet *appsv1.DaemonSet
	// Nodes and Pods are the cluster's, as daemon.Compute takes them;
	// unused when Plan is set.
	Nodes []*corev1.Node
	Pods  []*corev1.Pod
	// Options are the planner's options, used as they are: set them with
	// Rollout.Options, which asks for the standing the judge reads.
	// Options.Now is also the clock of the gates.
	Options daemon.Options
	// Plan is the plan when the caller computed it already (with Options):
	// Assess then computes none and copies it into the Assessment.
	Plan *daemon.Plan
	// Compute computes the plan when Plan is nil; nil means
	// daemon.Compute. A program that keeps a daemon.Planner passes its
	// Compute method.
	Compute PlanFunc
	// Gates are the gates to ask (Rollout.Gates: the annotated ones);
	// nil asks none, and the Hold is zero.
	Gates *Gates
	// Zones resolve the maintenance windows' time zones (time.LoadLocation
	// in a program).
	Zones window.Zones
}

// Assessment is where a rollout stands at one moment: its plan, the
// judgement of that plan and what holds it beyond the plan.
type Assessment struct {
	// Plan is the plan (AssessInput.Plan's copy when one was given).
	Plan daemon.Plan
	// Judgement is Judge's of Plan.
	Judgement Judgement
	// Hold is Gates.Hold's of Plan and Judgement at Options.Now.
	Hold Hold
	// Requeue is when to look again because the clock alone changes the
	// hold: Hold.Next less Options.Now, at least MinHoldRequeue; zero when
	// Hold.Next is zero.
	Requeue time.Duration
}

// AssessStep is what Assess was doing when it failed (AssessError).
type AssessStep string

// The steps of Assess, in order.
const (
	// AssessPlan: the plan's computation (AssessInput.Compute) failed.
	AssessPlan AssessStep = "plan"
	// AssessJudge: Judge refused the plan (no standing, or the paused
	// step's error).
	AssessJudge AssessStep = "judge"
	// AssessGates: Gates.Hold failed (a window's time zone that Zones do
	// not know: a *field.Error through errors.As).
	AssessGates AssessStep = "gates"
)

// AssessError is an error of Assess at Step. Its message is Err's, and
// errors.As and errors.Is see through it.
type AssessError struct {
	Step AssessStep
	Err  error
}

// Error returns Err's message.
func (e *AssessError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *AssessError) Unwrap() error { return e.Err }

// StepOf returns the step at which Assess failed with err, "" when err
// is not an error of Assess.
func StepOf(err error) AssessStep {
	var ae *AssessError
	if errors.As(err, &ae) {
		return ae.Step
	}
	return ""
}

// Assess is the rollout product's one entry: it plans the DaemonSet (or
// takes the plan given), judges the plan (Judge) and asks the gates what
// holds it beyond the plan (Gates.Hold), as a controller does at every
// sync and a program that reports a rollout does once.
//
// A caller that computes its plan on its own (with a daemon.Planner, or
// with a recovery around it) passes it in AssessInput.Plan, or its
// planner in AssessInput.Compute; the plan is computed once either way.
// A controller that finds the rollout held (Hold.Held) deletes no old pod:
// it carries out the plan of the paused rollout instead.
//
// On an error, the Assessment holds what was decided before it (the plan
// from AssessPlan on, the judgement from AssessGates on), and the error
// is an *AssessError naming the step. It modifies nothing it is given.
func Assess(in AssessInput) (Assessment, error) {
	var a Assessment
	if in.DaemonSet == nil {
		return a, &AssessError{Step: AssessPlan, Err: fmt.Errorf("%w: Assess needs a DaemonSet", daemon.ErrInvalidInput)}
	}
	switch {
	case in.Plan != nil:
		a.Plan = *in.Plan
	default:
		compute := in.Compute
		if compute == nil {
			compute = daemon.Compute
		}
		plan, err := compute(in.DaemonSet, in.Nodes, in.Pods, in.Options)
		a.Plan = plan
		if err != nil {
			return a, &AssessError{Step: AssessPlan, Err: err}
		}
	}
	j, err := Judge(in.DaemonSet, &a.Plan)
	if err != nil {
		return a, &AssessError{Step: AssessJudge, Err: err}
	}
	a.Judgement = j
	now := in.Options.Now
	h, err := in.Gates.Hold(in.DaemonSet, &a.Plan, j, now, in.Zones)
	if err != nil {
		return a, &AssessError{Step: AssessGates, Err: err}
	}
	a.Hold = h
	if !h.Next.IsZero() {
		a.Requeue = max(h.Next.Sub(now), MinHoldRequeue)
	}
	return a, nil
}

// Gates returns the annotated gates of r, nil without annotations.
func (r Rollout) Gates() *Gates {
	if r.Annotations == nil {
		return nil
	}
	return &r.Annotations.Gates
}
