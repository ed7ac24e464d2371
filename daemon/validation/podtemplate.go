package validation

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateTemplate checks the pod template's labels and annotations and the
// placement part of its spec, in the API server's order. restart is the
// restart policy after defaulting.
func validateTemplate(t *corev1.PodTemplateSpec, restart corev1.RestartPolicy, p *field.Path) field.ErrorList {
	errs := sortGroup(metavalidation.ValidateLabels(t.Labels, p.Child("labels")))
	errs = append(errs, sortGroup(apimachineryvalidation.ValidateAnnotations(t.Annotations, p.Child("annotations")))...)

	sp := p.Child("spec")
	errs = append(errs, validateWorkload(&t.Spec, sp)...)
	switch restart {
	case corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever:
	default:
		errs = append(errs, field.NotSupported(sp.Child("restartPolicy"), restart, []corev1.RestartPolicy{
			corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever,
		}))
	}
	errs = append(errs, sortGroup(metavalidation.ValidateLabels(t.Spec.NodeSelector, sp.Child("nodeSelector")))...)
	if a := t.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		errs = append(errs, validateNodeAffinity(a.NodeAffinity, sp.Child("affinity", "nodeAffinity"))...)
	}
	errs = append(errs, validateTolerations(t.Spec.Tolerations, sp.Child("tolerations"))...)
	return errs
}

// validateNodeAffinity checks the required node selector (label values must
// be valid) and the preferred terms (weights 1-100, any label value).
func validateNodeAffinity(na *corev1.NodeAffinity, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if ns := na.RequiredDuringSchedulingIgnoredDuringExecution; ns != nil {
		tp := p.Child("requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
		if len(ns.NodeSelectorTerms) == 0 {
			errs = append(errs, field.Required(tp, "must have at least one node selector term"))
		}
		for i := range ns.NodeSelectorTerms {
			errs = append(errs, validateNodeSelectorTerm(&ns.NodeSelectorTerms[i], true, tp.Index(i))...)
		}
	}
	pp := p.Child("preferredDuringSchedulingIgnoredDuringExecution")
	for i := range na.PreferredDuringSchedulingIgnoredDuringExecution {
		term := &na.PreferredDuringSchedulingIgnoredDuringExecution[i]
		if term.Weight <= 0 || term.Weight > 100 {
			errs = append(errs, field.Invalid(pp.Index(i).Child("weight"), term.Weight, "must be in the range 1-100"))
		}
		errs = append(errs, validateNodeSelectorTerm(&term.Preference, false, pp.Index(i).Child("preference"))...)
	}
	return errs
}

// validateNodeSelectorTerm checks a term's label and field requirements;
// checkValues says whether label values must be valid label values.
func validateNodeSelectorTerm(term *corev1.NodeSelectorTerm, checkValues bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for j, req := range term.MatchExpressions {
		errs = append(errs, validateNodeLabelRequirement(req, checkValues, p.Child("matchExpressions").Index(j))...)
	}
	for j, req := range term.MatchFields {
		errs = append(errs, validateNodeFieldRequirement(req, p.Child("matchFields").Index(j))...)
	}
	return errs
}

// validateNodeLabelRequirement checks a matchExpressions entry: the values
// its operator needs, a qualified key, valid values when checkValues.
func validateNodeLabelRequirement(req corev1.NodeSelectorRequirement, checkValues bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch req.Operator {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		if len(req.Values) == 0 {
			errs = append(errs, field.Required(p.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
		}
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		if len(req.Values) > 0 {
			errs = append(errs, field.Forbidden(p.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
		}
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if len(req.Values) != 1 {
			errs = append(errs, field.Required(p.Child("values"), "must be specified single value when `operator` is 'Lt' or 'Gt'"))
		}
	default:
		errs = append(errs, field.Invalid(p.Child("operator"), req.Operator, "not a valid selector operator"))
	}
	errs = append(errs, metavalidation.ValidateLabelName(req.Key, p.Child("key"))...)
	if checkValues {
		for i, v := range req.Values {
			for _, msg := range utilvalidation.IsValidLabelValue(v) {
				errs = append(errs, field.Invalid(p.Child("values").Index(i), v, msg).WithOrigin("format=k8s-label-value"))
			}
		}
	}
	return errs
}

// validateNodeFieldRequirement checks a matchFields entry: the only field
// is metadata.name, with In or NotIn and exactly one value, a valid node
// name.
func validateNodeFieldRequirement(req corev1.NodeSelectorRequirement, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch req.Operator {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		if len(req.Values) != 1 {
			errs = append(errs, field.Required(p.Child("values"),
				"must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
		}
	default:
		errs = append(errs, field.Invalid(p.Child("operator"), req.Operator, "not a valid selector operator"))
	}
	if req.Key != "metadata.name" {
		return append(errs, field.Invalid(p.Child("key"), req.Key, "not a valid field selector key"))
	}
	for i, v := range req.Values {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(v, false) {
			errs = append(errs, field.Invalid(p.Child("values").Index(i), v, msg))
		}
	}
	return errs
}

// validateTolerations checks each toleration: a qualified key, Exists when
// the key is empty, NoExecute when tolerationSeconds is set, a value that
// fits the operator, a known effect. Lt and Gt are refused, as with the
// TaintTolerationComparisonOperators gate off (its default).
func validateTolerations(tols []corev1.Toleration, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, t := range tols {
		ip := p.Index(i)
		if t.Key != "" {
			errs = append(errs, metavalidation.ValidateLabelName(t.Key, ip.Child("key"))...)
		}
		if t.Key == "" && t.Operator != corev1.TolerationOpExists {
			errs = append(errs, field.Invalid(ip.Child("operator"), t.Operator,
				"operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
		}
		if t.TolerationSeconds != nil && t.Effect != corev1.TaintEffectNoExecute {
			errs = append(errs, field.Invalid(ip.Child("effect"), t.Effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
		}
		switch t.Operator {
		case corev1.TolerationOpEqual, "":
			if msgs := utilvalidation.IsValidLabelValue(t.Value); len(msgs) != 0 {
				errs = append(errs, field.Invalid(ip.Child("operator"), t.Value, strings.Join(msgs, ";")))
			}
		case corev1.TolerationOpExists:
			if t.Value != "" {
				errs = append(errs, field.Invalid(ip.Child("operator"), t.Value, "value must be empty when `operator` is 'Exists'"))
			}
		case corev1.TolerationOpLt, corev1.TolerationOpGt:
			errs = append(errs, field.NotSupported(ip.Child("operator"), t.Operator, []corev1.TolerationOperator{
				corev1.TolerationOpEqual, corev1.TolerationOpExists, corev1.TolerationOpLt, corev1.TolerationOpGt,
			}))
		default:
			errs = append(errs, field.NotSupported(ip.Child("operator"), t.Operator, []corev1.TolerationOperator{
				corev1.TolerationOpEqual, corev1.TolerationOpExists,
			}))
		}
		switch t.Effect {
		case "", corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		default:
			errs = append(errs, field.NotSupported(ip.Child("effect"), t.Effect, []corev1.TaintEffect{
				corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute,
			}))
		}
	}
	return errs
}
