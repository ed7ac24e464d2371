package daemon

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// AnnotationPrefix is the prefix of the rollout annotations, the one schema
// through which a DaemonSet asks for a RolloutPolicy without Go code (see
// ParseRolloutAnnotations).
const AnnotationPrefix = "rollout.daemonplan.io/"

// The rollout annotation keys. Every key under AnnotationPrefix is one of
// these; any other is an error.
const (
	// AnnotationMaxUnavailable is the rollout budget of an OnDelete
	// DaemonSet (RolloutAnnotations.MaxUnavailable): an integer or a
	// percentage, at least 1 or 1%, at most 100%.
	AnnotationMaxUnavailable = AnnotationPrefix + "max-unavailable"
	// AnnotationPartition is RolloutPolicy.Partition: an integer or a
	// percentage between 0% and 100%.
	AnnotationPartition = AnnotationPrefix + "partition"
	// AnnotationScope is RolloutPolicy.Scope, a node label selector in
	// kubectl's -l syntax ("zone in (a,b),!spot").
	AnnotationScope = AnnotationPrefix + "scope"
	// AnnotationPaused is RolloutPolicy.Paused: "true" or "false".
	AnnotationPaused = AnnotationPrefix + "paused"
	// AnnotationOrderBy is RolloutPolicy.Order.Label, a node label key.
	AnnotationOrderBy = AnnotationPrefix + "order-by"
	// AnnotationOrderValues is RolloutPolicy.Order.Values, comma-separated
	// label values; it needs AnnotationOrderBy.
	AnnotationOrderValues = AnnotationPrefix + "order-values"
	// AnnotationDomain is RolloutPolicy.DomainBudget.Label, a node label
	// key; it needs AnnotationDomainMaxUnavailable.
	AnnotationDomain = AnnotationPrefix + "domain"
	// AnnotationDomainMaxUnavailable is
	// RolloutPolicy.DomainBudget.MaxUnavailable: an integer or a
	// percentage, at least 1 or 1%, at most 100%; it needs
	// AnnotationDomain.
	AnnotationDomainMaxUnavailable = AnnotationPrefix + "domain-max-unavailable"
	// AnnotationStrict is RolloutPolicy.Strict: "true" or "false".
	AnnotationStrict = AnnotationPrefix + "strict"
	// AnnotationWaveBake turns on RolloutPolicy.Waves with this Bake, a Go
	// duration ("10m", "0s"), not negative; it needs AnnotationOrderBy.
	AnnotationWaveBake = AnnotationPrefix + "wave-bake"
	// AnnotationProgressDeadline is RolloutAnnotations.ProgressDeadline, a
	// positive Go duration.
	AnnotationProgressDeadline = AnnotationPrefix + "progress-deadline"
)

// rolloutKeys are the keys, in the order errors and Format list them.
var rolloutKeys = []string{
	AnnotationMaxUnavailable, AnnotationPartition, AnnotationScope, AnnotationPaused,
	AnnotationOrderBy, AnnotationOrderValues, AnnotationDomain, AnnotationDomainMaxUnavailable,
	AnnotationStrict, AnnotationWaveBake, AnnotationProgressDeadline,
}

// RolloutAnnotations is what a DaemonSet's rollout annotations ask for (see
// ParseRolloutAnnotations): the budget, the policy and the progress
// deadline of its rollouts. One schema serves a controller beside
// kube-controller-manager (which can only delete old pods of an OnDelete
// DaemonSet) and one that replaces it (which plans everything, surge
// included).
//
// The budget. An OnDelete DaemonSet with rollout annotations is rolled as
// if its strategy were RollingUpdate with maxUnavailable MaxUnavailable
// (1, upstream's default, when nil) and maxSurge 0 (see Strategy). A
// RollingUpdate DaemonSet keeps its own spec.updateStrategy.rollingUpdate,
// surge included; MaxUnavailable must then be nil, since one rollout has
// one budget.
//
// Why no surge beside kube-controller-manager: a surging rollout runs an
// old and a new pod on one node until the new one is available, but
// kube-controller-manager, under OnDelete, deletes every pod of a node but
// one (the excess-pod rule) as soon as it sees a second, so the controller
// beside it can only delete old pods and let kube-controller-manager
// recreate them at the current revision. There is therefore no max-surge
// key: under it, ParseRolloutAnnotations says so.
type RolloutAnnotations struct {
	// MaxUnavailable is max-unavailable, the budget of an OnDelete
	// DaemonSet; nil when absent.
	MaxUnavailable *intstr.IntOrString
	// Policy is what the other keys ask for: partition, scope, paused,
	// order-by and order-values (Order), domain and domain-max-unavailable
	// (DomainBudget), strict, wave-bake (Waves). Order.Compare and
	// DomainBudget.MaxSurge have no key and are never set.
	Policy RolloutPolicy
	// ProgressDeadline is progress-deadline: how long a rollout may go
	// without a node becoming updated and available before its controller
	// reports it blocked and pauses it; 0 when absent (no deadline). It
	// takes no part in a plan; the controller keeps the clock.
	ProgressDeadline time.Duration
}

var annotationsPath = field.NewPath("metadata", "annotations")

// annotationErrors are the errors of ParseRolloutAnnotations, Format and
// Strategy: the text of the aggregated field errors, each *field.Error
// found by errors.As, and ErrInvalidInput found by errors.Is.
type annotationErrors field.ErrorList

func (e annotationErrors) Error() string { return field.ErrorList(e).ToAggregate().Error() }

// Is reports whether target is ErrInvalidInput: annotations that do not
// parse are invalid input.
func (e annotationErrors) Is(target error) bool { return target == ErrInvalidInput }

func (e annotationErrors) Unwrap() []error {
	out := make([]error, len(e))
	for i, fe := range e {
		out[i] = fe
	}
	return out
}

// ParseRolloutAnnotations reads the rollout annotations, the keys under
// AnnotationPrefix, of a DaemonSet's metadata.annotations.
//
// A DaemonSet with no key under the prefix has not opted in: the result is
// nil and the error nil, and its rollouts are upstream's (a controller
// beside kube-controller-manager leaves it alone). With at least one key
// the result is non-nil, even when every key says what the default says.
//
// Every value is checked on its own and against the keys it needs
// (order-values, wave-bake: order-by; domain and domain-max-unavailable:
// each other), so that a parsed Policy always passes
// RolloutPolicy.Validate. An integer is written in decimal without sign or
// leading zeros, a percentage as such an integer and "%"; durations are Go
// durations; booleans are "true" or "false" exactly. A key under the prefix
// that is not one of the Annotation* keys is an error, as is a key that
// misspells the prefix of one (a typo must not mean "no policy"); so is
// max-surge (see RolloutAnnotations). Errors are *field.Error at
// metadata.annotations[<key>], one per bad key, in key order; errors.As
// finds each, errors.Is finds ErrInvalidInput, and the text is their
// aggregate. On error the result is nil.
//
// It modifies nothing.
func ParseRolloutAnnotations(annotations map[string]string) (*RolloutAnnotations, error) {
	keys := make([]string, 0, 4)
	var errs field.ErrorList
	for k := range annotations {
		if strings.HasPrefix(k, AnnotationPrefix) {
			keys = append(keys, k)
		} else if misspelt(k) {
			errs = append(errs, field.Invalid(annotationsPath.Key(k), annotations[k],
				fmt.Sprintf("not a rollout annotation: did you mean %s?", AnnotationPrefix+k[strings.IndexByte(k, '/')+1:])))
		}
	}
	if len(keys) == 0 && len(errs) == 0 {
		return nil, nil
	}
	slices.Sort(keys)
	a := &RolloutAnnotations{}
	for _, k := range keys {
		if err := a.set(k, annotations[k]); err != nil {
			errs = append(errs, err)
		}
	}
	errs = append(errs, a.needs(annotations)...)
	if len(errs) > 0 {
		slices.SortStableFunc(errs, func(x, y *field.Error) int { return strings.Compare(x.Field, y.Field) })
		return nil, annotationErrors(errs)
	}
	return a, nil
}

// misspelt reports whether k, not under AnnotationPrefix, has the name of a
// rollout key under a prefix of the daemonplan.io domain: a typo of the
// prefix.
func misspelt(k string) bool {
	i := strings.IndexByte(k, '/')
	if i < 0 || !strings.Contains(k[:i], "daemonplan") {
		return false
	}
	return slices.Contains(rolloutKeys, AnnotationPrefix+k[i+1:]) || k[i+1:] == "max-surge"
}

// set parses the value v of key k into a.
func (a *RolloutAnnotations) set(k, v string) *field.Error {
	path := annotationsPath.Key(k)
	invalid := func(detail string) *field.Error { return field.Invalid(path, v, detail) }
	p := &a.Policy
	switch k {
	case AnnotationMaxUnavailable:
		n, err := parseIntOrPercent(v, 1)
		if err != "" {
			return invalid(err)
		}
		a.MaxUnavailable = n
	case AnnotationPartition:
		n, err := parseIntOrPercent(v, 0)
		if err != "" {
			return invalid(err)
		}
		p.Partition = n
	case AnnotationScope:
		sel, err := parseScope(v)
		if err != "" {
			return invalid(err)
		}
		p.Scope = sel
	case AnnotationPaused, AnnotationStrict:
		b, ok := parseBool(v)
		if !ok {
			return invalid(`must be "true" or "false"`)
		}
		if k == AnnotationPaused {
			p.Paused = b
		} else {
			p.Strict = b
		}
	case AnnotationOrderBy, AnnotationDomain:
		if msgs := validation.IsQualifiedName(v); len(msgs) > 0 {
			return invalid("must be a node label key: " + strings.Join(msgs, "; "))
		}
		if k == AnnotationOrderBy {
			p.Order.Label = v
		} else {
			p.DomainBudget = orNew(p.DomainBudget)
			p.DomainBudget.Label = v
		}
	case AnnotationOrderValues:
		vals, err := parseValues(v)
		if err != "" {
			return invalid(err)
		}
		p.Order.Values = vals
	case AnnotationDomainMaxUnavailable:
		n, err := parseIntOrPercent(v, 1)
		if err != "" {
			return invalid(err)
		}
		p.DomainBudget = orNew(p.DomainBudget)
		p.DomainBudget.MaxUnavailable = n
	case AnnotationWaveBake:
		d, err := time.ParseDuration(v)
		switch {
		case err != nil:
			return invalid(`must be a Go duration such as "10m" or "0s"`)
		case d < 0:
			return invalid("must not be negative")
		}
		p.Waves = &WaveBarrier{Bake: d}
	case AnnotationProgressDeadline:
		d, err := time.ParseDuration(v)
		switch {
		case err != nil:
			return invalid(`must be a Go duration such as "15m"`)
		case d <= 0:
			return invalid("must be positive (remove the key for no deadline)")
		}
		a.ProgressDeadline = d
	case AnnotationPrefix + "max-surge":
		return invalid("maxSurge is not supported: beside kube-controller-manager an OnDelete DaemonSet cannot surge " +
			"(it deletes a node's second pod at once), and a RollingUpdate DaemonSet takes maxSurge from spec.updateStrategy.rollingUpdate")
	default:
		names := make([]string, len(rolloutKeys))
		for i, key := range rolloutKeys {
			names[i] = strings.TrimPrefix(key, AnnotationPrefix)
		}
		return invalid("unknown rollout key; the keys under " + AnnotationPrefix + " are " + strings.Join(names, ", "))
	}
	return nil
}

// needs reports the keys present without the keys they need.
func (a *RolloutAnnotations) needs(annotations map[string]string) field.ErrorList {
	var errs field.ErrorList
	has := func(k string) bool { _, ok := annotations[k]; return ok }
	for _, k := range []string{AnnotationOrderValues, AnnotationWaveBake} {
		if has(k) && !has(AnnotationOrderBy) {
			errs = append(errs, field.Required(annotationsPath.Key(AnnotationOrderBy), "needed by "+k))
		}
	}
	if has(AnnotationDomain) && !has(AnnotationDomainMaxUnavailable) {
		errs = append(errs, field.Required(annotationsPath.Key(AnnotationDomainMaxUnavailable), "needed by "+AnnotationDomain))
	}
	if has(AnnotationDomainMaxUnavailable) && !has(AnnotationDomain) {
		errs = append(errs, field.Required(annotationsPath.Key(AnnotationDomain), "needed by "+AnnotationDomainMaxUnavailable))
	}
	return errs
}

func orNew(d *DomainBudget) *DomainBudget {
	if d == nil {
		return &DomainBudget{}
	}
	return d
}

func parseBool(v string) (bool, bool) {
	switch v {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// parseDecimal parses a decimal without sign or leading zeros, at most
// math.MaxInt32.
func parseDecimal(s string) (int, bool) {
	if s == "" || len(s) > 10 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n > math.MaxInt32 {
		return 0, false
	}
	return n, true
}

// parseIntOrPercent parses an integer or a percentage, at least least (and
// least%), a percentage at most 100%. It returns the reason when v is not
// one.
func parseIntOrPercent(v string, least int) (*intstr.IntOrString, string) {
	want := fmt.Sprintf("must be an integer of at least %d or a percentage between %d%% and 100%%, without sign or leading zeros", least, least)
	if pct, ok := strings.CutSuffix(v, "%"); ok {
		n, ok := parseDecimal(pct)
		if !ok || n < least || n > 100 {
			return nil, want
		}
		s := intstr.FromString(v)
		return &s, ""
	}
	n, ok := parseDecimal(v)
	if !ok || n < least {
		return nil, want
	}
	i := intstr.FromInt32(int32(n))
	return &i, ""
}

// parseValues splits comma-separated label values; spaces around a value
// are dropped; empty and repeated values are errors.
func parseValues(v string) ([]string, string) {
	parts := strings.Split(v, ",")
	out := make([]string, 0, len(parts))
	for i, p := range parts {
		p = strings.TrimSpace(p)
		switch {
		case p == "":
			return nil, fmt.Sprintf("value %d is empty: must be comma-separated node label values", i+1)
		case slices.Contains(out, p):
			return nil, fmt.Sprintf("value %q is repeated", p)
		}
		if msgs := validation.IsValidLabelValue(p); len(msgs) > 0 {
			return nil, fmt.Sprintf("value %q is not a label value: %s", p, strings.Join(msgs, "; "))
		}
		out = append(out, p)
	}
	return out, ""
}

// parseScope parses a label selector in kubectl's -l syntax into the
// equivalent metav1.LabelSelector: "k=v" and "k==v" become In [v], "k!=v"
// NotIn [v] (both match nodes without the label, as in kubectl), "k in
// (…)" In, "k notin (…)" NotIn, "k" Exists and "!k" DoesNotExist, all as
// matchExpressions in the parser's order (by key). "" selects every node.
// "k>n" and "k<n" have no LabelSelector form and are errors.
func parseScope(v string) (*metav1.LabelSelector, string) {
	sel, err := labels.Parse(v)
	if err != nil {
		return nil, "must be a label selector as kubectl -l takes it: " + err.Error()
	}
	reqs, _ := sel.Requirements()
	out := &metav1.LabelSelector{}
	for _, r := range reqs {
		var op metav1.LabelSelectorOperator
		switch r.Operator() {
		case selection.Equals, selection.DoubleEquals, selection.In:
			op = metav1.LabelSelectorOpIn
		case selection.NotEquals, selection.NotIn:
			op = metav1.LabelSelectorOpNotIn
		case selection.Exists:
			op = metav1.LabelSelectorOpExists
		case selection.DoesNotExist:
			op = metav1.LabelSelectorOpDoesNotExist
		default:
			return nil, fmt.Sprintf("the operator %q of %q has no label selector form (use in, notin, =, !=, key or !key)", r.Operator(), r.String())
		}
		var vals []string
		if op == metav1.LabelSelectorOpIn || op == metav1.LabelSelectorOpNotIn {
			vals = slices.Sorted(slices.Values(r.ValuesUnsorted()))
		}
		out.MatchExpressions = append(out.MatchExpressions, metav1.LabelSelectorRequirement{Key: r.Key(), Operator: op, Values: vals})
	}
	if _, err := metav1.LabelSelectorAsSelector(out); err != nil {
		return nil, "must be a label selector: " + err.Error()
	}
	return out, ""
}

// formatScope writes s in kubectl's -l syntax: matchLabels as k=v, then
// matchExpressions in order, In and NotIn with one value as k=v and k!=v.
// It fails on an operator or a value list that syntax cannot carry.
func formatScope(s *metav1.LabelSelector) (string, error) {
	if _, err := metav1.LabelSelectorAsSelector(s); err != nil {
		return "", err
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(s.MatchLabels)) {
		parts = append(parts, k+"="+s.MatchLabels[k])
	}
	for _, e := range s.MatchExpressions {
		vals := slices.Sorted(slices.Values(e.Values))
		switch {
		case e.Operator == metav1.LabelSelectorOpIn && len(vals) == 1:
			parts = append(parts, e.Key+"="+vals[0])
		case e.Operator == metav1.LabelSelectorOpNotIn && len(vals) == 1:
			parts = append(parts, e.Key+"!="+vals[0])
		case e.Operator == metav1.LabelSelectorOpIn && len(vals) > 1:
			parts = append(parts, e.Key+" in ("+strings.Join(vals, ",")+")")
		case e.Operator == metav1.LabelSelectorOpNotIn && len(vals) > 1:
			parts = append(parts, e.Key+" notin ("+strings.Join(vals, ",")+")")
		case e.Operator == metav1.LabelSelectorOpExists && len(vals) == 0:
			parts = append(parts, e.Key)
		case e.Operator == metav1.LabelSelectorOpDoesNotExist && len(vals) == 0:
			parts = append(parts, "!"+e.Key)
		default:
			return "", fmt.Errorf("the requirement %s %s %v has no kubectl -l form", e.Key, e.Operator, e.Values)
		}
	}
	return strings.Join(parts, ","), nil
}

// Format returns the annotations that ask for a: the inverse of
// ParseRolloutAnnotations. Keys are written only for what differs from
// the default (a false Paused or Strict, a nil budget, a zero deadline are
// left out), except that the zero RolloutAnnotations gives max-unavailable
// "1", so that the result still opts the DaemonSet in. For every a that
// ParseRolloutAnnotations returned, parsing Format's result gives a back.
//
// It fails when a holds what no annotation can say: Order.Compare,
// DomainBudget.MaxSurge, a scope operator or value kubectl's -l syntax
// cannot carry, or a value ParseRolloutAnnotations would reject (the error
// is then the one it returns). Every error matches ErrInvalidInput. It
// modifies nothing.
func (a RolloutAnnotations) Format() (map[string]string, error) {
	p := &a.Policy
	switch {
	case p.Order.Compare != nil:
		return nil, fmt.Errorf("%w: rollout annotations: Order.Compare has no annotation", ErrInvalidInput)
	case p.DomainBudget != nil && p.DomainBudget.MaxSurge != nil:
		return nil, fmt.Errorf("%w: rollout annotations: DomainBudget.MaxSurge has no annotation", ErrInvalidInput)
	}
	out := map[string]string{}
	if a.MaxUnavailable != nil {
		out[AnnotationMaxUnavailable] = a.MaxUnavailable.String()
	}
	if p.Partition != nil {
		out[AnnotationPartition] = p.Partition.String()
	}
	if p.Scope != nil {
		s, err := formatScope(p.Scope)
		if err != nil {
			return nil, fmt.Errorf("%w: rollout annotations: Scope (scope): %w", ErrInvalidInput, err)
		}
		out[AnnotationScope] = s
	}
	if p.Paused {
		out[AnnotationPaused] = "true"
	}
	if p.Strict {
		out[AnnotationStrict] = "true"
	}
	if p.Order.Label != "" {
		out[AnnotationOrderBy] = p.Order.Label
	}
	if p.Order.Values != nil {
		for _, v := range p.Order.Values {
			if msgs := validation.IsValidLabelValue(v); len(msgs) > 0 || v == "" {
				return nil, fmt.Errorf("%w: rollout annotations: Order.Values (order-values): %q is not a non-empty label value", ErrInvalidInput, v)
			}
		}
		out[AnnotationOrderValues] = strings.Join(p.Order.Values, ",")
	}
	if d := p.DomainBudget; d != nil {
		out[AnnotationDomain] = d.Label
		if d.MaxUnavailable != nil {
			out[AnnotationDomainMaxUnavailable] = d.MaxUnavailable.String()
		}
	}
	if p.Waves != nil {
		out[AnnotationWaveBake] = p.Waves.Bake.String()
	}
	if a.ProgressDeadline != 0 {
		out[AnnotationProgressDeadline] = a.ProgressDeadline.String()
	}
	if len(out) == 0 {
		out[AnnotationMaxUnavailable] = "1"
	}
	if _, err := ParseRolloutAnnotations(out); err != nil {
		return nil, err
	}
	return out, nil
}

// Strategy returns the update strategy to plan ds's rollouts with under a
// (nil a: ds's own): for an OnDelete DaemonSet, RollingUpdate with
// maxUnavailable a.MaxUnavailable (1 when nil) and maxSurge 0; for any
// other, ds's own strategy. Plan with a shallow copy of ds given this
// strategy (the revision hash covers the template only, so the plan's hash
// is the one kube-controller-manager writes).
//
// It fails with a *field.Error (found by errors.As; errors.Is finds
// ErrInvalidInput) when a is non-nil and the two budgets conflict: an OnDelete DaemonSet whose spec.updateStrategy.rollingUpdate
// asks for a non-zero maxSurge (it cannot surge, see RolloutAnnotations),
// or a RollingUpdate DaemonSet with max-unavailable (its budget is its
// spec's). It modifies nothing; a nil ds gives the zero strategy.
func (a *RolloutAnnotations) Strategy(ds *appsv1.DaemonSet) (appsv1.DaemonSetUpdateStrategy, error) {
	if ds == nil {
		return appsv1.DaemonSetUpdateStrategy{}, nil
	}
	own := ds.Spec.UpdateStrategy
	if a == nil {
		return own, nil
	}
	if own.Type != appsv1.OnDeleteDaemonSetStrategyType {
		if a.MaxUnavailable != nil {
			return own, annotationErrors{field.Invalid(annotationsPath.Key(AnnotationMaxUnavailable), a.MaxUnavailable.String(),
				fmt.Sprintf("the budget of a %s DaemonSet is spec.updateStrategy.rollingUpdate; this key is for OnDelete DaemonSets", own.Type))}
		}
		return own, nil
	}
	if ru := own.RollingUpdate; ru != nil && ru.MaxSurge != nil {
		if n, err := intstr.GetScaledValueFromIntOrPercent(ru.MaxSurge, 100, true); err != nil || n != 0 {
			return own, annotationErrors{field.Invalid(field.NewPath("spec", "updateStrategy", "rollingUpdate", "maxSurge"), ru.MaxSurge.String(),
				"an OnDelete DaemonSet cannot surge: kube-controller-manager deletes a node's second pod at once; set it to 0 or remove it")}
		}
	}
	budget := intstr.FromInt32(1)
	if a.MaxUnavailable != nil {
		budget = *a.MaxUnavailable
	}
	surge := intstr.FromInt32(0)
	return appsv1.DaemonSetUpdateStrategy{
		Type:          appsv1.RollingUpdateDaemonSetStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &budget, MaxSurge: &surge},
	}, nil
}
