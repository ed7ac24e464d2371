package selector

import (
	"errors"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// ErrSelectsAll is wrapped by the error ForDaemonSet returns for the empty
// selector {}, which would select every pod of the namespace. Upstream's
// controller refuses to act on such a DaemonSet (it emits a SelectingAll
// warning and stops the sync); test for it with errors.Is.
var ErrSelectsAll = errors.New("selector selects all pods")

// ForDaemonSet returns the label selector of ds.Spec.Selector. It fails with
//  1. a field.Required error at spec.selector when ds or the selector is nil;
//  2. an error wrapping ErrSelectsAll when the selector is exactly {} (no
//     matchLabels and no matchExpressions, both nil, as upstream's
//     reflect.DeepEqual check), naming the DaemonSet;
//  3. a field error under spec.selector when it does not parse (for
//     example an In requirement with no values), naming the DaemonSet.
//
// A selector whose matchLabels or matchExpressions is empty but non-nil is
// not rule 2: like upstream, it parses to a selector that matches
// everything. It modifies nothing.
func ForDaemonSet(ds *appsv1.DaemonSet) (labels.Selector, error) {
	panic("unimplemented")
}

// MatchesTemplate returns a field.Invalid error at
// spec.template.metadata.labels, naming the DaemonSet, when ds's selector
// does not select its own pod template's labels, and the error of
// ForDaemonSet when the selector is invalid. The API server rejects such
// objects; upstream's controller does not check and still creates pods, so
// the planner does not call this.
func MatchesTemplate(ds *appsv1.DaemonSet) error {
	panic("unimplemented")
}
