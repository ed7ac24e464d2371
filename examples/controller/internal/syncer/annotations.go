package syncer

import (
	"errors"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// Reasons of the warnings (both modes) and of the companion's
// RolloutProgressing condition when a DaemonSet's rollout annotations
// cannot be planned (progressive.ForDaemonSet fails).
const (
	// ReasonInvalidAnnotations: an annotation does not parse, or
	// contradicts another or the spec.
	ReasonInvalidAnnotations = progressive.ReasonInvalidAnnotations
	// ReasonSurgeUnsupported: an OnDelete DaemonSet asks for surge.
	ReasonSurgeUnsupported = progressive.ReasonSurgeUnsupported
)

// AnnotationsReason is the reason of an error of progressive.ForDaemonSet:
// ReasonSurgeUnsupported when an OnDelete DaemonSet asks for surge (the
// error names spec.updateStrategy.rollingUpdate.maxSurge),
// ReasonInvalidAnnotations otherwise.
func AnnotationsReason(err error) string {
	var fe *field.Error
	if errors.As(err, &fe) && strings.HasSuffix(fe.Field, "maxSurge") {
		return ReasonSurgeUnsupported
	}
	return ReasonInvalidAnnotations
}
