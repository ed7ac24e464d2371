package selector

import (
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/validate/content"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// requirements converts ps into label requirements: one Equals requirement
// per matchLabels entry, in key order, then one per matchExpressions entry,
// in index order. It returns every problem as a field error under path, one
// per offending field (the validators' messages joined with "; ").
//
// labels.NewRequirement has the last word on what is valid, exactly as in
// metav1.LabelSelectorAsSelector; the checks here only find the precise
// path of each problem. Should they ever disagree with NewRequirement, its
// verdict wins: a requirement it accepts is kept, and one it rejects with
// no precise finding gets its error at the entry's path.
func requirements(ps *metav1.LabelSelector, path *field.Path) ([]labels.Requirement, field.ErrorList) {
	reqs := make([]labels.Requirement, 0, len(ps.MatchLabels)+len(ps.MatchExpressions))
	var errs field.ErrorList

	matchLabels := path.Child("matchLabels")
	for _, k := range slices.Sorted(maps.Keys(ps.MatchLabels)) {
		v := ps.MatchLabels[k]
		var found field.ErrorList
		if msgs := content.IsLabelKey(k); len(msgs) > 0 {
			found = append(found, field.Invalid(matchLabels, k, "invalid label key: "+strings.Join(msgs, "; ")))
		}
		if msgs := validation.IsValidLabelValue(v); len(msgs) > 0 {
			found = append(found, field.Invalid(matchLabels.Key(k), v, "invalid label value: "+strings.Join(msgs, "; ")))
		}
		r, err := labels.NewRequirement(k, selection.Equals, []string{v})
		reqs, errs = settle(reqs, errs, r, err, found, matchLabels.Key(k), v)
	}

	matchExpressions := path.Child("matchExpressions")
	for i := range ps.MatchExpressions {
		expr := &ps.MatchExpressions[i]
		p := matchExpressions.Index(i)
		found := checkExpression(expr, p)
		op, ok := operator(expr.Operator)
		if !ok {
			// Upstream fails before building the requirement; found holds
			// the NotSupported error at p.operator.
			errs = append(errs, found...)
			continue
		}
		r, err := labels.NewRequirement(expr.Key, op, slices.Clone(expr.Values))
		reqs, errs = settle(reqs, errs, r, err, found, p, expr.Key)
	}
	return reqs, errs
}

// settle appends the requirement r to reqs when NewRequirement accepted it
// (err == nil), or else the precise findings, or failing those err itself
// reported at p with value bad.
func settle(reqs []labels.Requirement, errs field.ErrorList, r *labels.Requirement, err error, found field.ErrorList, p *field.Path, bad string) ([]labels.Requirement, field.ErrorList) {
	switch {
	case err == nil:
		return append(reqs, *r), errs
	case len(found) > 0:
		return reqs, append(errs, found...)
	default:
		return reqs, append(errs, field.Invalid(p, bad, "invalid requirement: "+err.Error()))
	}
}

// operators are the matchExpressions operators, in the order NotSupported
// errors list them.
func operators() []string {
	return []string{
		string(metav1.LabelSelectorOpIn),
		string(metav1.LabelSelectorOpNotIn),
		string(metav1.LabelSelectorOpExists),
		string(metav1.LabelSelectorOpDoesNotExist),
	}
}

// operator maps a LabelSelector operator to its labels operator; ok is false
// for anything but the four known ones (the match is case-sensitive).
func operator(op metav1.LabelSelectorOperator) (selection.Operator, bool) {
	switch op {
	case metav1.LabelSelectorOpIn:
		return selection.In, true
	case metav1.LabelSelectorOpNotIn:
		return selection.NotIn, true
	case metav1.LabelSelectorOpExists:
		return selection.Exists, true
	case metav1.LabelSelectorOpDoesNotExist:
		return selection.DoesNotExist, true
	default:
		return "", false
	}
}

// checkExpression lists the problems of one matchExpressions entry at
// precise paths under p: the key, the operator, the number of values for the
// operator, and each value; one error per field, its messages joined.
func checkExpression(expr *metav1.LabelSelectorRequirement, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if msgs := content.IsLabelKey(expr.Key); len(msgs) > 0 {
		errs = append(errs, field.Invalid(p.Child("key"), expr.Key, "invalid label key: "+strings.Join(msgs, "; ")))
	}
	values := p.Child("values")
	switch expr.Operator {
	case metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn:
		if len(expr.Values) == 0 {
			errs = append(errs, field.Required(values, "operator "+string(expr.Operator)+" needs at least one value"))
		}
	case metav1.LabelSelectorOpExists, metav1.LabelSelectorOpDoesNotExist:
		if len(expr.Values) != 0 {
			errs = append(errs, field.Invalid(values, slices.Clone(expr.Values), "operator "+string(expr.Operator)+" takes no values"))
		}
	default:
		errs = append(errs, field.NotSupported(p.Child("operator"), string(expr.Operator), operators()))
	}
	for j, v := range expr.Values {
		if msgs := validation.IsValidLabelValue(v); len(msgs) > 0 {
			errs = append(errs, field.Invalid(values.Index(j), v, "invalid label value: "+strings.Join(msgs, "; ")))
		}
	}
	return errs
}
