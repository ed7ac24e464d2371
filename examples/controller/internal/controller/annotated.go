package controller

import (
	"strings"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// ReasonRollbackUnsupported is the reason of the Warning event of a
// DaemonSet whose on-failure annotation asks for rollback: replace mode
// does not roll back (the companion does), it holds the rollout while a
// health gate fails.
const ReasonRollbackUnsupported = "RollbackUnsupported"

// messageRollbackUnsupported is the ReasonRollbackUnsupported event's
// message.
const messageRollbackUnsupported = "on-failure: rollback is carried out by companion mode only; replace mode pauses: " +
	"no old pod is replaced while a health gate fails, and nothing is rolled back"

// annotatedRollout returns ds's rollout as its rollout annotations ask
// (progressive.ForDaemonSet, the one reading of them every program
// shares): without any, ds itself under the zero policy (upstream's
// rollout); with valid ones, ds planned with the annotated strategy under
// the annotated policy, and the annotations (their gates: gatedOptions).
// Invalid annotations, or a budget they contradict, get one Warning event
// per spec and annotations, and a paused rollout without annotations:
// pods are still created where missing and failed ones replaced, but no
// old pod is replaced until they are fixed (a typo must not mean "no
// policy"). on-failure: rollback, which replace mode does not carry out,
// gets one Warning event per spec and annotations
// (ReasonRollbackUnsupported).
func (c *Controller) annotatedRollout(key string, ds *appsv1.DaemonSet) progressive.Rollout {
	r, err := progressive.ForDaemonSet(ds)
	if len(r.Warnings) > 0 {
		c.Warn(key, ds, "RolloutAnnotationMisspelt", strings.Join(r.Warnings, "; "))
	}
	if err != nil {
		c.Warn(key, ds, syncer.AnnotationsReason(err), "no old pod is replaced until this is fixed: "+err.Error())
	}
	if r.Annotations != nil && r.Annotations.OnFailure == progressive.OnFailureRollback {
		c.Warn(key, ds, ReasonRollbackUnsupported, messageRollbackUnsupported)
	}
	return r
}
