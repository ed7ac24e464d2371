package selector

import (
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ForDaemonSet returns the label selector of ds.Spec.Selector. It fails with
//  1. a field.Required error at spec.selector when ds or the selector is nil;
//  2. an error wrapping ErrSelectsAll when the selector is exactly {} (no
//     matchLabels and no matchExpressions, both nil, as upstream's
//     reflect.DeepEqual check);
//  3. a field error under spec.selector when it does not parse (for
//     example an In requirement with no values).
//
// A selector whose matchLabels or matchExpressions is empty but non-nil is
// not rule 2: like upstream, it parses to a selector that matches
// everything. It modifies nothing.
//
// Every error is a *Error (test with errors.As); its Fields hold the
// *field.Error values, also reachable with errors.As. Rule 3 reports every
// problem, not only the first: a bad matchLabels key at
// spec.selector.matchLabels, a bad matchLabels value at
// spec.selector.matchLabels[key], and for the i-th expression a bad key at
// spec.selector.matchExpressions[i].key, an unknown operator (NotSupported)
// at .operator, a wrong number of values at .values and a bad value at
// .values[j]. ForDaemonSet accepts exactly the selectors
// metav1.LabelSelectorAsSelector accepts (apart from rules 1 and 2) and
// returns an equivalent selector that shares no slice with ds.
//
// It costs O(k log k) for k requirements, with the matchLabels keys sorted
// so that the result does not depend on map order.
func ForDaemonSet(ds *appsv1.DaemonSet) (labels.Selector, error) {
	path := field.NewPath("spec", "selector")
	if ds == nil {
		return nil, &Error{Fields: field.ErrorList{field.Required(path, "nil DaemonSet")}}
	}
	ps := ds.Spec.Selector
	if ps == nil {
		return nil, &Error{Fields: field.ErrorList{field.Required(path, "a daemonset needs a label selector")}}
	}
	if ps.MatchLabels == nil && ps.MatchExpressions == nil {
		return nil, &Error{
			SelectsAll: true,
			Fields:     field.ErrorList{field.Invalid(path, "{}", "the empty selector would select every pod; set matchLabels or matchExpressions")},
		}
	}
	reqs, errs := requirements(ps, path)
	if len(errs) > 0 {
		return nil, &Error{Fields: errs}
	}
	if len(reqs) == 0 {
		// A non-nil but empty matchLabels or matchExpressions: upstream
		// returns the shared selector that matches every label set.
		return labels.Everything(), nil
	}
	return labels.NewSelector().Add(reqs...), nil
}

// MatchesTemplate returns a field.Invalid error at
// spec.template.metadata.labels when ds's selector
// does not select its own pod template's labels, and the error of
// ForDaemonSet when the selector is invalid. The API server rejects such
// objects; upstream's controller does not check and still creates pods, so
// the planner does not call this.
//
// The mismatch error is a *Error like those of ForDaemonSet; its field
// error's value is the template labels in labels.Set's sorted string form.
// A nil ds gives ForDaemonSet's error. It modifies nothing.
func MatchesTemplate(ds *appsv1.DaemonSet) error {
	sel, err := ForDaemonSet(ds)
	if err != nil {
		return err
	}
	set := labels.Set(ds.Spec.Template.Labels)
	if sel.Matches(set) {
		return nil
	}
	return &Error{
		Fields: field.ErrorList{field.Invalid(
			field.NewPath("spec", "template", "metadata", "labels"),
			set.String(),
			"the selector "+quoteSelector(sel)+" does not match the pod template's labels",
		)},
	}
}

// quoteSelector renders sel for a message.
func quoteSelector(sel labels.Selector) string {
	return "\"" + sel.String() + "\""
}
