package daemon

import (
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ErrInvalidInput is what every error of invalid input matches with
// errors.Is, so that a caller needs one test: an input Compute cannot plan
// from (a nil DaemonSet, nil entries, missing identity fields, duplicate
// names), an invalid selector, an invalid Options.Rollout, an invalid
// maxSurge or maxUnavailable, and the errors of the rollout annotations
// (package daemon/progressive). Such input stays invalid until it changes:
// planning it again cannot help. An *Error says which DaemonSet and which
// stage; its cause names the field.
var ErrInvalidInput = errors.New("invalid input")

// Stage is the part of a sync an Error comes from. It is printed in the
// error's text, between the DaemonSet and the cause.
type Stage string

// The stages of a sync, in the order Compute runs them.
const (
	// StageInput: the input cannot describe a cluster (a nil DaemonSet,
	// nil entries, empty names, a missing namespace or UID, duplicate
	// names), or the DaemonSet's selector does not parse (a
	// *selector.Error). Invalid input.
	StageInput Stage = "invalid input"
	// StagePolicy: Options.Rollout is invalid (see RolloutPolicy.Validate).
	// Invalid input.
	StagePolicy Stage = "rollout policy"
	// StageHistory: the revision history failed; a revision name collision
	// (a *rollout.CollisionError) and a template skew (a
	// *rollout.TemplateSkewError: the cluster is newer than this build) are
	// the cluster's state, not invalid input.
	StageHistory Stage = "revision history"
	// StageRollingUpdate: the rolling-update step failed: an invalid
	// maxSurge or maxUnavailable (a *field.Error, invalid input), or a
	// surge step over an old pod on a missing node (a
	// *rollout.MissingNodeError, the cluster's state).
	StageRollingUpdate Stage = "rolling update"
)

// Error is an error of the plan of one DaemonSet, in the spirit of
// *os.PathError: the DaemonSet, named once, the stage of the sync, and the
// cause. Every error Compute and Planner.Compute return is an *Error (and
// so is Standing.PausedErr); the packages around the planner
// (daemon/whatif) return them too (see NewError).
//
// The cause names the field or the fact (a *field.Error, several joined, a
// *selector.Error, a *DuplicateNodeError, a *rollout.CollisionError, a
// *rollout.TemplateSkewError, a *rollout.MissingNodeError), never the DaemonSet: the packages the planner
// calls report fields, and the DaemonSet is named here alone. A caller
// that already knows which DaemonSet it is about (an event on the object,
// a log line with its key) prints Message; errors.As recovers the Error,
// and, through Unwrap, the cause.
type Error struct {
	// DaemonSet is the DaemonSet's namespace/name; "" when it was nil.
	DaemonSet string
	// Stage is the part of the sync that failed.
	Stage Stage
	// Err is the cause.
	Err error
}

// NewError returns err, an error of stage of a sync of ds, as an *Error
// naming ds; nil when err is nil. It is how the planner, and the packages
// around it, name a DaemonSet in an error: once, here. A nil ds leaves
// DaemonSet "".
func NewError(ds *appsv1.DaemonSet, stage Stage, err error) error {
	if err == nil {
		return nil
	}
	e := &Error{Stage: stage, Err: err}
	if ds != nil {
		e.DaemonSet = keyOf(ds)
	}
	return e
}

// keyOf returns the namespace/name of a non-nil ds: the one place the
// planner builds a DaemonSet's key.
func keyOf(ds *appsv1.DaemonSet) string {
	return ds.Namespace + "/" + ds.Name
}

// Error formats the error as `daemonset "ns/name": stage: cause`, leaving
// out the DaemonSet when it is "" and the stage when it is "".
func (e *Error) Error() string {
	if e.DaemonSet == "" {
		return e.Message()
	}
	return fmt.Sprintf("daemonset %q: %s", e.DaemonSet, e.Message())
}

// Message is the error's text without the DaemonSet, `stage: cause`, for a
// reader who knows which DaemonSet it is about.
func (e *Error) Message() string {
	cause := "<nil>"
	if e.Err != nil {
		cause = e.Err.Error()
	}
	if e.Stage == "" {
		return cause
	}
	return string(e.Stage) + ": " + cause
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is ErrInvalidInput and the input is at fault:
// the stage is StageInput or StagePolicy, or the cause names a field (a
// *field.Error, alone, joined or in a *selector.Error: the leaves report
// invalid input so, an invalid maxSurge or maxUnavailable among it). A
// revision name collision, or a surge step over a pod on a missing node,
// is the cluster's state and does not match.
func (e *Error) Is(target error) bool {
	if target != ErrInvalidInput {
		return false
	}
	if e.Stage == StageInput || e.Stage == StagePolicy {
		return true
	}
	var fe *field.Error
	return errors.As(e.Err, &fe)
}

// DuplicateNodeError reports two nodes with the same name in Compute's
// input. Upstream's informer cache cannot hold them, so no plan is
// defined.
type DuplicateNodeError struct {
	Name string
	// First and Second are the indices of the two nodes in the input.
	First, Second int
}

// Error names the node and the two input positions.
func (e *DuplicateNodeError) Error() string {
	return fmt.Sprintf("nodes[%d] and nodes[%d] are both named %q", e.First, e.Second, e.Name)
}
