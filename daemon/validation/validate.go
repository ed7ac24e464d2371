package validation

import (
	"cmp"
	"slices"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Validate returns what the API server (v1.37, feature gates at their
// defaults) answers when ds is created: the field errors of its DaemonSet
// validation, in the order it reports them, each with the API server's path
// and message. An empty list means the API server would accept ds as far as
// the rules below go. A nil ds gives one Required error at "daemonSet".
//
// Validate first applies, to copies, the defaults the API server applies
// before it validates: updateStrategy.type RollingUpdate when empty;
// rollingUpdate, maxUnavailable 1 and maxSurge 0 when nil under
// RollingUpdate; template restartPolicy Always when empty. It checks:
//  1. metadata: name (a DNS subdomain), namespace (a DNS label), labels,
//     annotations, owner references, finalizers;
//  2. spec.selector: valid labels and requirements, not empty ({}), and
//     matching the template labels (reported at
//     spec.template.metadata.labels);
//  3. the pod template's labels and annotations, and the parts of its spec
//     that decide placement: nodeSelector, node affinity (required and
//     preferred terms; matchFields only metadata.name with In or NotIn and
//     exactly one value, a valid node name), tolerations (the Lt and Gt
//     operators are refused, as with the TaintTolerationComparisonOperators
//     gate off); restartPolicy Always; no activeDeadlineSeconds; and what
//     runs: volume names, containers and init containers (names, images,
//     ports, host ports, env names, volume mounts, resource quantities,
//     pull and termination-message policies; see validateWorkload);
//  4. minReadySeconds, revisionHistoryLimit and the deprecated
//     deprecated.daemonset.template.generation annotation (which the API
//     server reads as spec.templateGeneration) not negative; an annotation
//     that is not a base-10 integer is the only error reported, since the
//     API server then fails to decode the object and validates nothing
//     (its message is the parse error);
//  5. updateStrategy: type RollingUpdate or OnDelete; maxUnavailable and
//     maxSurge each a non-negative integer or a percentage ("0%" to
//     "100%"); exactly one of them non-zero.
//
// Volume sources, probes, lifecycle hooks, security contexts and the rest
// of the pod spec are not checked. Where the API server ranges over a map (labels,
// annotations), Validate sorts that group's errors by field, then text.
//
// When to call it: daemon.Compute stays faithful to the controller and does
// not validate, so a DaemonSet the API server would refuse (maxUnavailable
// "150%", a negative budget, a selector that misses the template) gives the
// plan the controller would make of it, often a surprising one. Call
// Validate on DaemonSets built in code or taken from a custom resource
// before planning with them. Note that Compute does not apply defaults: a
// nil maxUnavailable under rollingUpdate passes Validate (the API server
// sets 1) but is an error for Compute.
//
// Validate modifies nothing and never panics.
func Validate(ds *appsv1.DaemonSet) field.ErrorList {
	if ds == nil {
		return field.ErrorList{field.Required(field.NewPath("daemonSet"), "a DaemonSet is required")}
	}
	objectMeta := &ds.ObjectMeta
	var templateGeneration int64
	if v, ok := ds.Annotations[appsv1.DeprecatedTemplateGeneration]; ok {
		gen, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			// The API server fails to decode such an object and validates
			// nothing; its answer is the parse error alone.
			path := field.NewPath("metadata", "annotations").Key(appsv1.DeprecatedTemplateGeneration)
			return field.ErrorList{field.Invalid(path, v, err.Error())}
		}
		// Decoding moves the annotation to spec.templateGeneration.
		templateGeneration = gen
		objectMeta = objectMeta.DeepCopy()
		delete(objectMeta.Annotations, appsv1.DeprecatedTemplateGeneration)
	}
	meta := apimachineryvalidation.ValidateObjectMeta(objectMeta, true,
		apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	errs := sortGroup(meta)
	return append(errs, validateSpec(&ds.Spec, templateGeneration, field.NewPath("spec"))...)
}

// validateSpec checks a DaemonSet spec in the API server's order;
// templateGeneration is the value of the deprecated template-generation
// annotation (0 without it).
func validateSpec(spec *appsv1.DaemonSetSpec, templateGeneration int64, p *field.Path) field.ErrorList {
	errs := metavalidation.ValidateLabelSelector(spec.Selector, metavalidation.LabelSelectorValidationOptions{}, p.Child("selector"))
	if sel, err := metav1.LabelSelectorAsSelector(spec.Selector); err == nil && !sel.Matches(labels.Set(spec.Template.Labels)) {
		errs = append(errs, field.Invalid(p.Child("template", "metadata", "labels"), spec.Template.Labels,
			"`selector` does not match template `labels`"))
	}
	if spec.Selector != nil && len(spec.Selector.MatchLabels)+len(spec.Selector.MatchExpressions) == 0 {
		errs = append(errs, field.Invalid(p.Child("selector"), spec.Selector, "empty selector is invalid for daemonset"))
	}

	restart := spec.Template.Spec.RestartPolicy
	if restart == "" {
		restart = corev1.RestartPolicyAlways
	}
	errs = append(errs, validateTemplate(&spec.Template, restart, p.Child("template"))...)
	if restart != corev1.RestartPolicyAlways {
		errs = append(errs, field.NotSupported(p.Child("template", "spec", "restartPolicy"), restart,
			[]string{string(corev1.RestartPolicyAlways)}))
	}
	if spec.Template.Spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, field.Forbidden(p.Child("template", "spec", "activeDeadlineSeconds"),
			"activeDeadlineSeconds in DaemonSet is not Supported"))
	}
	errs = append(errs, apimachineryvalidation.ValidateNonnegativeField(int64(spec.MinReadySeconds), p.Child("minReadySeconds"))...)
	errs = append(errs, apimachineryvalidation.ValidateNonnegativeField(templateGeneration, p.Child("templateGeneration"))...)
	errs = append(errs, validateStrategy(&spec.UpdateStrategy, p.Child("updateStrategy"))...)
	if spec.RevisionHistoryLimit != nil {
		errs = append(errs, apimachineryvalidation.ValidateNonnegativeField(int64(*spec.RevisionHistoryLimit), p.Child("revisionHistoryLimit"))...)
	}
	return errs
}

// strategyValue and rollingValue have the shape the API server prints an
// unsupported update strategy in (its internal type, which has no JSON
// tags and value budgets).
type strategyValue struct {
	Type          appsv1.DaemonSetUpdateStrategyType
	RollingUpdate *rollingValue
}

type rollingValue struct {
	MaxUnavailable intstr.IntOrString
	MaxSurge       intstr.IntOrString
}

// validateStrategy checks the update strategy after the API server's
// defaults.
func validateStrategy(s *appsv1.DaemonSetUpdateStrategy, p *field.Path) field.ErrorList {
	typ := s.Type
	if typ == "" {
		typ = appsv1.RollingUpdateDaemonSetStrategyType
	}
	var ru *rollingValue
	switch {
	case typ == appsv1.RollingUpdateDaemonSetStrategyType:
		ru = &rollingValue{MaxUnavailable: intstr.FromInt32(1), MaxSurge: intstr.FromInt32(0)}
		if r := s.RollingUpdate; r != nil && r.MaxUnavailable != nil {
			ru.MaxUnavailable = *r.MaxUnavailable
		}
		if r := s.RollingUpdate; r != nil && r.MaxSurge != nil {
			ru.MaxSurge = *r.MaxSurge
		}
	case s.RollingUpdate != nil:
		// Not defaulted; a nil budget converts to the zero value.
		ru = &rollingValue{}
		if s.RollingUpdate.MaxUnavailable != nil {
			ru.MaxUnavailable = *s.RollingUpdate.MaxUnavailable
		}
		if s.RollingUpdate.MaxSurge != nil {
			ru.MaxSurge = *s.RollingUpdate.MaxSurge
		}
	}
	switch typ {
	case appsv1.OnDeleteDaemonSetStrategyType:
		return nil
	case appsv1.RollingUpdateDaemonSetStrategyType:
		return validateRollingUpdate(ru, p.Child("rollingUpdate"))
	default:
		return field.ErrorList{field.NotSupported(p, &strategyValue{Type: typ, RollingUpdate: ru}, []string{
			string(appsv1.RollingUpdateDaemonSetStrategyType), string(appsv1.OnDeleteDaemonSetStrategyType),
		})}
	}
}

// validateRollingUpdate checks the two budgets: each an integer or a
// percentage, neither negative nor above 100%, exactly one non-zero.
func validateRollingUpdate(ru *rollingValue, p *field.Path) field.ErrorList {
	unavailablePath, surgePath := p.Child("maxUnavailable"), p.Child("maxSurge")
	var errs field.ErrorList
	errs = append(errs, validateIntOrPercent(ru.MaxUnavailable, unavailablePath)...)
	errs = append(errs, validateIntOrPercent(ru.MaxSurge, surgePath)...)
	errs = append(errs, notAbove100Percent(ru.MaxUnavailable, unavailablePath)...)
	errs = append(errs, notAbove100Percent(ru.MaxSurge, surgePath)...)
	hasUnavailable, hasSurge := budgetValue(ru.MaxUnavailable) != 0, budgetValue(ru.MaxSurge) != 0
	switch {
	case hasUnavailable && hasSurge:
		errs = append(errs, field.Invalid(surgePath, ru.MaxSurge, "may not be set when maxUnavailable is non-zero"))
	case !hasUnavailable && !hasSurge:
		errs = append(errs, field.Required(unavailablePath, "cannot be 0 when maxSurge is 0"))
	}
	return errs
}

// validateIntOrPercent accepts a non-negative integer or a string of digits
// followed by "%".
func validateIntOrPercent(v intstr.IntOrString, p *field.Path) field.ErrorList {
	switch v.Type {
	case intstr.String:
		var errs field.ErrorList
		for _, msg := range utilvalidation.IsValidPercent(v.StrVal) {
			errs = append(errs, field.Invalid(p, v, msg))
		}
		return errs
	case intstr.Int:
		return apimachineryvalidation.ValidateNonnegativeField(int64(v.IntValue()), p)
	default:
		// The API server's text, doubled percent sign included.
		return field.ErrorList{field.Invalid(p, v, "must be an integer or percentage (e.g '5%%')")}
	}
}

// percentValue returns the number of a well-formed percentage.
func percentValue(v intstr.IntOrString) (int, bool) {
	if v.Type != intstr.String || len(utilvalidation.IsValidPercent(v.StrVal)) != 0 {
		return 0, false
	}
	n, _ := strconv.Atoi(v.StrVal[:len(v.StrVal)-1]) // out of range: clamped, as the API server reads it
	return n, true
}

// budgetValue is the number the API server compares with zero: a
// percentage's number, an integer, or a string read as an integer (0 when
// it is not one).
func budgetValue(v intstr.IntOrString) int {
	if n, ok := percentValue(v); ok {
		return n
	}
	return v.IntValue()
}

// notAbove100Percent refuses a percentage above 100%.
func notAbove100Percent(v intstr.IntOrString, p *field.Path) field.ErrorList {
	if n, ok := percentValue(v); !ok || n <= 100 {
		return nil
	}
	return field.ErrorList{field.Invalid(p, v, "must not be greater than 100%")}
}

// sortGroup sorts errors the API server finds ranging over a map, whose
// order it leaves to chance: by field, then by text. It sorts in place and
// returns errs.
func sortGroup(errs field.ErrorList) field.ErrorList {
	slices.SortStableFunc(errs, func(a, b *field.Error) int {
		return cmp.Or(cmp.Compare(a.Field, b.Field), cmp.Compare(a.Error(), b.Error()))
	})
	return errs
}
