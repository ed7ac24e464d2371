package selector

import (
	"errors"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ErrSelectsAll is wrapped by the error ForDaemonSet returns for the empty
// selector {}, which would select every pod of the namespace. Upstream's
// controller refuses to act on such a DaemonSet (it emits a SelectingAll
// warning and stops the sync); test for it with errors.Is.
var ErrSelectsAll = errors.New("selector selects all pods")

// Error is the error ForDaemonSet and MatchesTemplate return: one field
// error per problem found. It names the fields, not the DaemonSet, which is
// the caller's (daemon.Compute names it once, in a *daemon.Error).
//
// Unwrap exposes every entry of Fields, and ErrSelectsAll when SelectsAll is
// set, so both errors.As(err, &fe) with fe a *field.Error (it finds the first
// entry) and errors.Is(err, ErrSelectsAll) work on the result.
type Error struct {
	// SelectsAll is true when the selector is exactly {}: the error then
	// wraps ErrSelectsAll.
	SelectsAll bool
	// Fields are the field errors, never empty, with paths rooted at spec
	// (for example spec.selector.matchExpressions[2].values), in the order
	// they were found: matchLabels by key, then matchExpressions by index.
	Fields field.ErrorList
}

// Error formats the error as
//
//	<field error>; <field error>
//
// The text is built here, not when the error is created.
func (e *Error) Error() string {
	var b strings.Builder
	if len(e.Fields) == 0 && e.SelectsAll {
		b.WriteString(ErrSelectsAll.Error())
	}
	for i, fe := range e.Fields {
		if i > 0 {
			b.WriteString("; ")
		}
		if fe == nil {
			b.WriteString("<nil>")
			continue
		}
		b.WriteString(fe.Error())
	}
	return b.String()
}

// Unwrap returns the field errors of e, followed by ErrSelectsAll when
// e.SelectsAll is set. nil entries of Fields are left out.
func (e *Error) Unwrap() []error {
	errs := make([]error, 0, len(e.Fields)+1)
	for _, fe := range e.Fields {
		if fe != nil {
			errs = append(errs, fe)
		}
	}
	if e.SelectsAll {
		errs = append(errs, ErrSelectsAll)
	}
	return errs
}
