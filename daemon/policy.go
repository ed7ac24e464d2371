package daemon

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/rollout"
)

// IsZero reports whether p is the zero policy, upstream's behaviour.
func (p *RolloutPolicy) IsZero() bool {
	return p.Partition == nil && p.Scope == nil && !p.Paused && p.Order.Label == "" &&
		p.Order.Values == nil && p.Order.Compare == nil && p.DomainBudget == nil && !p.Strict &&
		p.Waves == nil && p.Canary == nil
}

// Validate checks p on its own: the partition, the scope selector, the
// order, canary and domain label keys, the canary's count and the budgets.
// Errors are field errors under "rollout", aggregated.
func (p *RolloutPolicy) Validate() error {
	var errs field.ErrorList
	if v := p.Partition; v != nil {
		if _, err := scalePartition(v, 100); err != nil {
			errs = append(errs, err)
		}
	}
	if p.Scope != nil {
		if _, err := metav1.LabelSelectorAsSelector(p.Scope); err != nil {
			errs = append(errs, field.Invalid(policyPath.Child("scope"), p.Scope.String(), err.Error()))
		}
	}
	if k := p.Order.Label; k != "" {
		if msgs := validation.IsQualifiedName(k); len(msgs) > 0 {
			errs = append(errs, field.Invalid(policyPath.Child("order", "label"), k, strings.Join(msgs, "; ")))
		}
	}
	if w := p.Waves; w != nil {
		if p.Order.Label == "" && p.Canary == nil {
			errs = append(errs, field.Required(policyPath.Child("order", "label"), "waves are the values of an order label (or a canary and the rest)"))
		}
		if w.Bake < 0 {
			errs = append(errs, field.Invalid(policyPath.Child("waves", "bake"), w.Bake.String(), "must not be negative"))
		}
	}
	if c := p.Canary; c != nil {
		errs = append(errs, c.validate()...)
	}
	if d := p.DomainBudget; d != nil {
		path := policyPath.Child("domainBudget")
		if d.Label == "" {
			errs = append(errs, field.Required(path.Child("label"), "a node label key names the domains"))
		} else if msgs := validation.IsQualifiedName(d.Label); len(msgs) > 0 {
			errs = append(errs, field.Invalid(path.Child("label"), d.Label, strings.Join(msgs, "; ")))
		}
		for _, b := range []struct {
			name string
			v    *intstr.IntOrString
		}{{"maxUnavailable", d.MaxUnavailable}, {"maxSurge", d.MaxSurge}} {
			if b.v == nil {
				continue
			}
			if n, err := intstr.GetScaledValueFromIntOrPercent(b.v, 100, true); err != nil || n < 0 {
				errs = append(errs, field.Invalid(path.Child(b.name), b.v.String(), "must be a non-negative integer or percentage"))
			}
		}
		if d.MaxUnavailable == nil && d.MaxSurge == nil {
			errs = append(errs, field.Required(path.Child("maxUnavailable"), "maxUnavailable or maxSurge is required"))
		}
	}
	return errs.ToAggregate()
}

// scalePartition scales v against desired nodes, rounding a percentage up.
func scalePartition(v *intstr.IntOrString, desired int) (int, *field.Error) {
	path := policyPath.Child("partition")
	if v.Type == intstr.String {
		s := strings.TrimSuffix(v.StrVal, "%")
		var pct int
		if _, err := fmt.Sscanf(s, "%d", &pct); err != nil || s+"%" != v.StrVal || pct < 0 || pct > 100 || fmt.Sprint(pct) != s {
			return 0, field.Invalid(path, v.StrVal, "must be an integer or a percentage between 0% and 100%")
		}
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(v, desired, true)
	if err != nil || n < 0 {
		return 0, field.Invalid(path, v.String(), "must be a non-negative integer or percentage")
	}
	return n, nil
}

// compile writes what p says of each node of c that the rolling step
// walks (existing nodes that should run the pod or have pods, and missing
// nodes) on its rollout.Node: Frozen from Scope (missing nodes are outside
// any scope), Rank from Order and Canary (its nodes first), Wave from
// Waves and Canary, Domain from DomainBudget. It returns the step's
// policy, and whether the policy shapes the step at all (a scope, an
// order, a canary, waves, a domain budget, Strict or a partition above
// 0): when it does not, the plan runs upstream's step and
// Plan.Rolling.Policy is nil.
func (p *RolloutPolicy) compile(c *cluster) (rp rollout.Policy, shapes bool, err error) {
	rp.Strict = p.Strict
	walked := func(i int) bool { n := &c.nodes[i]; return n.ShouldRun || len(n.Pods) > 0 }
	if p.Scope != nil {
		sel, err := metav1.LabelSelectorAsSelector(p.Scope)
		if err != nil {
			return rp, false, field.Invalid(policyPath.Child("scope"), p.Scope.String(), err.Error())
		}
		for i := range c.nodes {
			if walked(i) {
				c.nodes[i].Frozen = !sel.Matches(labels.Set(c.info[i].node.Labels))
			}
		}
		for i := range c.missing {
			c.missing[i].Frozen = true
		}
	}
	if p.Partition != nil {
		desired := 0
		for i := range c.nodes {
			if n := &c.nodes[i]; n.ShouldRun && !n.Frozen {
				desired++
			}
		}
		n, err := scalePartition(p.Partition, desired)
		if err != nil {
			return rp, false, err
		}
		rp.Partition = n
		if n >= desired && desired > 0 {
			// Everything is kept; a partition of 0 would mean no limit.
			rp.Partition = desired
		}
	}
	if p.Order.Label != "" || p.Order.Compare != nil || p.Canary != nil {
		// Indices of the walked nodes, the missing ones after the existing
		// ones; ranked by the order (the canary's nodes first), then by
		// name.
		var idx []int
		for i := range c.nodes {
			if walked(i) {
				idx = append(idx, i)
			}
		}
		for i := range c.missing {
			idx = append(idx, len(c.nodes)+i)
		}
		node := func(i int) (*rollout.Node, *corev1.Node) {
			if i < len(c.nodes) {
				return &c.nodes[i], c.info[i].node
			}
			return &c.missing[i-len(c.nodes)], nil
		}
		canary := p.canaryOfCluster(c)
		slices.SortStableFunc(idx, func(a, b int) int {
			na, oa := node(a)
			nb, ob := node(b)
			return cmp.Or(cmpBool(!canary(a), !canary(b)), p.CompareNodes(oa, ob), cmp.Compare(na.Name, nb.Name))
		})
		for r, i := range idx {
			n, _ := node(i)
			n.Rank = int32(r)
		}
		if p.barrier() {
			rp.Waves = p.waves(idx, node, canary)
		}
	}
	if d := p.DomainBudget; d != nil {
		// Domains are numbered by label value; the empty value, which nodes
		// without the label and missing nodes share, is 0.
		ids := map[string]int32{"": 0}
		for i := range c.nodes {
			if !walked(i) {
				continue
			}
			v := c.info[i].node.Labels[d.Label]
			id, ok := ids[v]
			if !ok {
				id = int32(len(ids))
				ids[v] = id
			}
			c.nodes[i].Domain = id
		}
		rp.DomainMaxUnavailable, rp.DomainMaxSurge = d.MaxUnavailable, d.MaxSurge
	}
	shapes = p.Scope != nil || p.Order.Label != "" || p.Order.Compare != nil || p.DomainBudget != nil || !rp.IsZero()
	return rp, shapes, nil
}

// rollingStep runs the rolling-update step of one plan under policy:
// upstream's step when policy is zero, or does not shape the step.
func (c *cluster) rollingStep(ds *appsv1.DaemonSet, hash string, opts *Options) (rollout.Step, error) {
	if opts.Rollout.IsZero() {
		return rollout.RollingUpdate(ds, c.rolloutNodes(), hash, opts.Now)
	}
	rp, shapes, err := opts.Rollout.compile(c)
	if err != nil {
		return rollout.Step{}, err
	}
	if !shapes {
		return rollout.RollingUpdate(ds, c.rolloutNodes(), hash, opts.Now)
	}
	return rollout.RollingUpdatePolicy(ds, c.rolloutNodes(), hash, opts.Now, rp)
}
