package progressive

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/internal/nearest"
	"github.com/daemonplan/daemonplan/rollout"
)

// ParseAnnotations reads the rollout annotations, the keys under
// AnnotationPrefix, of a DaemonSet's metadata.annotations.
//
// A DaemonSet with no key under the prefix has not opted in: the result is
// nil and the error nil, and its rollouts are upstream's (a controller
// beside kube-controller-manager leaves it alone). With at least one key
// the result is non-nil, even when every key says what the default says.
//
// Every value is checked on its own and against the keys it needs
// (order-values, wave-bake: order-by; domain and domain-max-unavailable:
// each other; pause-after: canary for "canary", order-by for
// "every-wave" without a canary and for a value), so that a parsed Policy
// always passes daemon.RolloutPolicy.Validate. A pause-after value a
// letter or two from "canary" or "every-wave" ("every_wave", "Canary") is
// an error that says which was meant, unless order-values lists it.
//
// Defaults: once a DaemonSet opts in, the health gates are on
// (Gates.Health: On, DefaultMaxRestarts, DefaultReadyTimeout) unless
// health-gates is "false", and OnFailure is OnFailurePause. A canary
// (Policy.Canary) is spread across the domain label when domain is set,
// else across the order-by label, else not at all. An integer is written in decimal without sign or
// leading zeros, a percentage as such an integer and "%"; durations are Go
// durations; booleans are "true" or "false" exactly. A key under the prefix
// that is not one of the Annotation* keys is an error (naming the key it
// probably misspells, if any), as is a key that
// misspells the prefix of one (a typo must not mean "no policy"); so is
// max-surge (see Annotations). Errors are *field.Error at
// metadata.annotations[<key>], one per bad key, in key order; errors.As
// finds each, errors.Is finds daemon.ErrInvalidInput, and the text is their
// aggregate. On error the result is nil.
//
// It modifies nothing.
func ParseAnnotations(annotations map[string]string) (*Annotations, error) {
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
	a := defaultAnnotations()
	for _, k := range keys {
		if err := a.set(k, annotations[k]); err != nil {
			errs = append(errs, err)
		}
	}
	if c := a.Policy.Canary; c != nil {
		c.Spread = spreadOf(&a.Policy)
	}
	a.Gates.Refs = ReferencesOf(&a.Policy)
	errs = append(errs, a.needs(annotations)...)
	if len(errs) > 0 {
		slices.SortStableFunc(errs, func(x, y *field.Error) int { return strings.Compare(x.Field, y.Field) })
		return nil, annotationErrors(errs)
	}
	return a, nil
}

// set parses the value v of key k into a.
func (a *Annotations) set(k, v string) *field.Error {
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
		d, err := parseDuration(v, 0, MaxWaveBake, `"0s" (no bake) or `, `"10m"`, "")
		if err != "" {
			return invalid(err)
		}
		p.Waves = &rollout.WaveBarrier{Bake: d}
		a.Gates.Bake = d
	case AnnotationProgressDeadline:
		d, err := parseDuration(v, MinDuration, MaxProgressDeadline, "", `"15m"`, " (remove the key for no deadline)")
		if err != "" {
			return invalid(err)
		}
		a.ProgressDeadline = d
	case AnnotationPrefix + "max-surge":
		return invalid("maxSurge is not supported: beside kube-controller-manager an OnDelete DaemonSet cannot surge " +
			"(it deletes a node's second pod at once), and a RollingUpdate DaemonSet takes maxSurge from spec.updateStrategy.rollingUpdate")
	default:
		if err, ok := a.setGate(k, v); ok {
			return err
		}
		names := make([]string, len(rolloutKeys))
		for i, key := range rolloutKeys {
			names[i] = strings.TrimPrefix(key, AnnotationPrefix)
		}
		detail := "unknown rollout key"
		if want, ok := nearest.Closest(strings.TrimPrefix(k, AnnotationPrefix), names, keySlack); ok {
			detail += ": did you mean " + AnnotationPrefix + want + "?"
		}
		return invalid(detail + "; the keys under " + AnnotationPrefix + " are " + strings.Join(names, ", "))
	}
	return nil
}

// needs reports the keys present without the keys they need.
func (a *Annotations) needs(annotations map[string]string) field.ErrorList {
	var errs field.ErrorList
	has := func(k string) bool { _, ok := annotations[k]; return ok }
	if has(AnnotationOrderValues) && !has(AnnotationOrderBy) {
		errs = append(errs, field.Required(annotationsPath.Key(AnnotationOrderBy), "needed by "+AnnotationOrderValues))
	}
	// Waves are the order label's values, or a canary and the rest.
	if has(AnnotationWaveBake) && !has(AnnotationOrderBy) && !has(AnnotationCanary) {
		errs = append(errs, field.Required(annotationsPath.Key(AnnotationOrderBy), "needed by "+AnnotationWaveBake+" (or "+AnnotationCanary+")"))
	}
	if has(AnnotationDomain) && !has(AnnotationDomainMaxUnavailable) {
		errs = append(errs, field.Required(annotationsPath.Key(AnnotationDomainMaxUnavailable), "needed by "+AnnotationDomain))
	}
	if has(AnnotationDomainMaxUnavailable) && !has(AnnotationDomain) {
		errs = append(errs, field.Required(annotationsPath.Key(AnnotationDomain), "needed by "+AnnotationDomainMaxUnavailable))
	}
	return append(errs, a.gateNeeds(annotations)...)
}

func orNew(d *daemon.DomainBudget) *daemon.DomainBudget {
	if d == nil {
		return &daemon.DomainBudget{}
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
// least%), an integer at most MaxCount, a percentage at most 100%. It
// returns the reason when v is not one.
func parseIntOrPercent(v string, least int) (*intstr.IntOrString, string) {
	want := fmt.Sprintf("must be an integer from %d to %d or a percentage from %d%% to 100%%, without sign or leading zeros", least, MaxCount, least)
	if pct, ok := strings.CutSuffix(v, "%"); ok {
		n, ok := parseDecimal(pct)
		if !ok || n < least || n > 100 {
			return nil, want
		}
		s := intstr.FromString(v)
		return &s, ""
	}
	n, ok := parseDecimal(v)
	if !ok || n < least || n > MaxCount {
		return nil, want
	}
	i := intstr.FromInt32(int32(n))
	return &i, ""
}

// parseDuration parses a Go duration from least to most, or 0 when least
// is 0: a value below 1s other than 0 is refused too (MinDuration). zero
// says what 0 means (`"0s" (no bake) or `), example is a valid value, and
// hint ends the reason, which it returns when v is not one.
func parseDuration(v string, least, most time.Duration, zero, example, hint string) (time.Duration, string) {
	want := fmt.Sprintf("must be %sa Go duration from %s to %s%s, such as %s%s", zero, MinDuration, hours(most), days(most), example, hint)
	d, err := time.ParseDuration(v)
	switch {
	case err != nil:
		return 0, want
	case d == 0 && least == 0:
		return 0, ""
	case d < max(least, MinDuration) || d > most:
		return 0, want
	}
	return d, ""
}

// hours writes d as Go does, whole hours as "168h".
func hours(d time.Duration) string {
	if d >= time.Hour && d%time.Hour == 0 {
		return fmt.Sprintf("%dh", d/time.Hour)
	}
	return d.String()
}

// days writes d, whole days, as " (N days)" (" (1 day)"), "" when it is
// not.
func days(d time.Duration) string {
	const day = 24 * time.Hour
	switch {
	case d < day || d%day != 0:
		return ""
	case d == day:
		return " (1 day)"
	}
	return fmt.Sprintf(" (%d days)", d/day)
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
// matchExpressions in the parser's order (by key). "" (or spaces) is an
// error: it would select every node, a restriction switched off by a
// missing value (remove the key for no scope). "k>n" and "k<n" have no
// LabelSelector form and are errors.
func parseScope(v string) (*metav1.LabelSelector, string) {
	if strings.TrimSpace(v) == "" {
		return nil, "must not be empty: an empty selector selects every node (remove the key for no scope)"
	}
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
