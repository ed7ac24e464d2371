package progressive

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/daemon"
)

var annotationsPath = field.NewPath("metadata", "annotations")

// annotationErrors are the errors of ParseAnnotations, Format and
// Strategy: the text of the aggregated field errors, each *field.Error
// found by errors.As, and daemon.ErrInvalidInput found by errors.Is.
type annotationErrors field.ErrorList

func (e annotationErrors) Error() string { return field.ErrorList(e).ToAggregate().Error() }

// Is reports whether target is daemon.ErrInvalidInput: annotations that do not
// parse are invalid input.
func (e annotationErrors) Is(target error) bool { return target == daemon.ErrInvalidInput }

func (e annotationErrors) Unwrap() []error {
	out := make([]error, len(e))
	for i, fe := range e {
		out[i] = fe
	}
	return out
}
