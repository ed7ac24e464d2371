package progressive

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/daemonplan/daemonplan/daemon"
)

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
// ParseAnnotations. Keys are written only for what differs from
// ParseAnnotations' defaults (a false Paused or Strict, a nil budget, a
// zero deadline, health gates on with the default thresholds, OnFailure
// OnFailurePause or "" are left out); when that leaves nothing,
// health-gates "true" is written, so that the result still opts the
// DaemonSet in. The zero HealthGates, off, which ParseAnnotations never
// returns, is written as health-gates "false" alone. For every a that
// ParseAnnotations returned, parsing Format's result gives a back.
//
// It fails when a holds what no annotation can say: Order.Compare,
// DomainBudget.MaxSurge, a Canary.Spread other than the label
// ParseAnnotations derives (domain, else order-by), a scope operator or
// value kubectl's -l syntax cannot carry, or a value ParseAnnotations
// would reject (the error is then the one it returns). Every error matches daemon.ErrInvalidInput. It
// modifies nothing.
func (a Annotations) Format() (map[string]string, error) {
	p := &a.Policy
	switch {
	case p.Order.Compare != nil:
		return nil, fmt.Errorf("%w: rollout annotations: Order.Compare has no annotation", daemon.ErrInvalidInput)
	case p.DomainBudget != nil && p.DomainBudget.MaxSurge != nil:
		return nil, fmt.Errorf("%w: rollout annotations: DomainBudget.MaxSurge has no annotation", daemon.ErrInvalidInput)
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
			return nil, fmt.Errorf("%w: rollout annotations: Scope (scope): %w", daemon.ErrInvalidInput, err)
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
				return nil, fmt.Errorf("%w: rollout annotations: Order.Values (order-values): %q is not a non-empty label value", daemon.ErrInvalidInput, v)
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
	if err := a.formatGates(out); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		out[AnnotationHealthGates] = "true"
	}
	if _, err := ParseAnnotations(out); err != nil {
		return nil, err
	}
	return out, nil
}

// formatGates writes the canary, the gates, on-failure and
// rolled-back-from of a into out.
func (a Annotations) formatGates(out map[string]string) error {
	if c := a.Policy.Canary; c != nil {
		if want := spreadOf(&a.Policy); c.Spread != want {
			return fmt.Errorf("%w: rollout annotations: Canary.Spread (canary): %q has no annotation: a canary spreads across the domain label, else the order-by label (here %q)",
				daemon.ErrInvalidInput, c.Spread, want)
		}
		out[AnnotationCanary] = c.Count.String()
	}
	g := a.Gates
	if g.PauseAfter != nil {
		out[AnnotationPauseAfter] = strings.Join(g.PauseAfter, ",")
	}
	if g.Approved != nil {
		out[AnnotationApproved] = g.Approved.String()
	}
	if len(g.Windows) > 0 {
		out[AnnotationWindow] = g.Windows.String()
	}
	h := g.Health
	if h == (HealthGates{}) {
		out[AnnotationHealthGates] = "false"
	} else {
		if !h.On {
			out[AnnotationHealthGates] = "false"
		}
		if h.MaxRestarts != DefaultMaxRestarts {
			out[AnnotationMaxRestarts] = strconv.FormatInt(int64(h.MaxRestarts), 10)
		}
		if h.ReadyTimeout != DefaultReadyTimeout {
			out[AnnotationReadyTimeout] = h.ReadyTimeout.String()
		}
	}
	if a.OnFailure != "" && a.OnFailure != OnFailurePause {
		out[AnnotationOnFailure] = string(a.OnFailure)
	}
	if a.RolledBackFrom != "" {
		out[AnnotationRolledBackFrom] = a.RolledBackFrom
	}
	if a.Outcome != nil {
		out[AnnotationOutcome] = a.Outcome.Format()
	}
	return nil
}
