package progressive

import (
	"bytes"
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
)

// OutcomeReason names what a rollout came to that holds until a person
// acts (Outcome).
type OutcomeReason string

// The outcomes a controller records in AnnotationOutcome.
const (
	// OutcomeProgressDeadlineExceeded: no node became updated and
	// available for the progress deadline; the controller paused the
	// rollout itself.
	OutcomeProgressDeadlineExceeded OutcomeReason = "ProgressDeadlineExceeded"
	// OutcomeHealthGateFailed: a new-revision pod failed a health gate;
	// the controller paused the rollout itself (on-failure: pause, or
	// rollback with no revision to go back to).
	OutcomeHealthGateFailed OutcomeReason = "HealthGateFailed"
	// OutcomeRolledBack: the template was written back to an earlier
	// revision (Outcome.From to Outcome.Revision), by on-failure: rollback
	// (RolledBackOnFailure) or by hand (RolledBackByUndo). The restored
	// revision is rolled out; the change it undid has failed.
	OutcomeRolledBack OutcomeReason = "RolledBack"
)

// Who rolled back (Outcome.By).
const (
	// RolledBackOnFailure: a controller, for on-failure: rollback.
	RolledBackOnFailure = "on-failure"
	// RolledBackByUndo: a person, with "kubectl dsplan rollout undo".
	RolledBackByUndo = "undo"
)

// Outcome is what a rollout came to that holds until a person acts: a
// controller's own pause (at the progress deadline, at a health gate) or a
// rollback. A controller keeps it in the DaemonSet's AnnotationOutcome
// (Format, ParseOutcome; Annotations.Outcome), not in a condition's
// message, so that it survives a restart of the controller and people
// read plain messages.
//
// It holds (Holds) while the template is still at Revision and the
// paused annotation still has the value it had when recorded: a new
// template, or a change of the paused annotation ("kubectl dsplan rollout
// resume" makes one: the acknowledgement), ends it. While it holds:
//   - OutcomeProgressDeadlineExceeded and OutcomeHealthGateFailed hold
//     the rollout (no old pod is deleted), ConditionPaused and
//     ConditionBlocked are True, ConditionStalled True;
//   - OutcomeRolledBack does not hold the rollout of the restored
//     revision, but the change failed: ConditionProgressing False and
//     ConditionStalled True with ReasonRolledBack (kstatus: Failed),
//     "rollout status" exits non-zero naming both revisions.
type Outcome struct {
	// Reason is what the rollout came to.
	Reason OutcomeReason `json:"reason"`
	// Revision is the revision hash (pod-template-hash) it holds at: the
	// one the rollout stopped at, or the one a rollback restored.
	Revision string `json:"revision"`
	// Paused is the paused annotation's value when it was recorded; nil
	// when the annotation was absent.
	Paused *string `json:"paused"`
	// From is the revision hash rolled back from (OutcomeRolledBack).
	From string `json:"from,omitempty"`
	// By is who rolled back (OutcomeRolledBack): RolledBackOnFailure or
	// RolledBackByUndo.
	By string `json:"by,omitempty"`
	// Why says, for people, why it came to this: the health gate that
	// failed, the deadline that passed; "" when not known.
	Why string `json:"why,omitempty"`
}

// NewOutcome returns the Outcome reason at revision hash of ds: Paused is
// ds's paused annotation now. It modifies nothing.
func NewOutcome(ds *appsv1.DaemonSet, reason OutcomeReason, hash string) Outcome {
	return Outcome{Reason: reason, Revision: hash, Paused: pausedAnnotation(ds)}
}

// pausedAnnotation returns ds's paused annotation, nil when absent.
func pausedAnnotation(ds *appsv1.DaemonSet) *string {
	if ds == nil {
		return nil
	}
	if v, ok := ds.Annotations[AnnotationPaused]; ok {
		return &v
	}
	return nil
}

// Holds reports whether o still holds for ds at revision hash (the plan's
// hash): the template is at o.Revision and the paused annotation has the
// value o recorded. A nil o holds nothing.
func (o *Outcome) Holds(ds *appsv1.DaemonSet, hash string) bool {
	if o == nil || ds == nil || o.Revision != hash {
		return false
	}
	now := pausedAnnotation(ds)
	if (now == nil) != (o.Paused == nil) {
		return false
	}
	return now == nil || *now == *o.Paused
}

// Stops reports whether o holds the rollout itself (no old pod deleted):
// a controller's own pause, not a rollback.
func (o *Outcome) Stops() bool {
	return o != nil && (o.Reason == OutcomeProgressDeadlineExceeded || o.Reason == OutcomeHealthGateFailed)
}

// Format returns o as AnnotationOutcome's value: compact JSON, fields in
// a fixed order.
func (o Outcome) Format() string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(o) // a struct of strings always encodes
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// ParseOutcome reads AnnotationOutcome's value: JSON as Format writes it,
// with a known Reason and a Revision that is a revision hash; unknown
// fields are an error. It says what is wrong in words (ParseAnnotations
// puts it at the key).
func ParseOutcome(v string) (Outcome, error) {
	dec := json.NewDecoder(bytes.NewReader([]byte(v)))
	dec.DisallowUnknownFields()
	var o Outcome
	if err := dec.Decode(&o); err != nil {
		return Outcome{}, fmt.Errorf("must be the JSON a controller writes (%v)", err)
	}
	if dec.More() {
		return Outcome{}, fmt.Errorf("must be one JSON object")
	}
	switch o.Reason {
	case OutcomeProgressDeadlineExceeded, OutcomeHealthGateFailed:
	case OutcomeRolledBack:
		if msg := hashError(o.From); msg != "" {
			return Outcome{}, fmt.Errorf("from: %s", msg)
		}
		if o.By != RolledBackOnFailure && o.By != RolledBackByUndo {
			return Outcome{}, fmt.Errorf("by: must be %q or %q", RolledBackOnFailure, RolledBackByUndo)
		}
	default:
		return Outcome{}, fmt.Errorf("reason: must be %s, %s or %s", OutcomeProgressDeadlineExceeded, OutcomeHealthGateFailed, OutcomeRolledBack)
	}
	if msg := hashError(o.Revision); msg != "" {
		return Outcome{}, fmt.Errorf("revision: %s", msg)
	}
	return o, nil
}
