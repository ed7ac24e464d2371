package rollout

import (
	"cmp"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Policy narrows a rolling-update step beyond upstream's: which nodes it
// may update, in what order, how many, and how budgets are spent. The zero
// value is upstream's step exactly. Slices, when non-nil, hold one entry
// per node given to the step, index for index.
type Policy struct {
	// Hold marks nodes the step must not update: their old pods stay,
	// available or not (an out-of-scope node). A held node still counts in
	// the budgets as upstream counts it.
	Hold []bool
	// Rank orders the nodes for update, ascending, ties broken by node
	// name; nil means by name. Unavailable old pods are still replaced
	// before available ones, each kind in this order.
	Rank []int
	// Partition is the number of desired nodes that are not held whose
	// old pods the step keeps: it starts replacements only while more than
	// Partition such nodes run only old pods. Since nodes are replaced in
	// order, the last ones in the order are kept. 0 keeps none.
	Partition int
	// Domain, when non-nil, names each node's failure domain; with
	// DomainMaxUnavailable (maxSurge 0) or DomainMaxSurge (surge) set, no
	// domain gets more unavailable, or surging, nodes than that budget
	// scaled against the domain's desired nodes (rounded up, at least 1),
	// on top of the global budget. Nodes with the empty domain form one
	// domain of their own.
	Domain                               []string
	DomainMaxUnavailable, DomainMaxSurge *intstr.IntOrString
	// Strict makes old pods that are already unavailable wait for the
	// budget like available ones (before them) instead of being replaced
	// at once: they count against maxUnavailable, or maxSurge, when
	// replaced, and the partition and domain budgets apply to them too.
	Strict bool
}

// IsZero reports whether p is the zero policy, upstream's step.
func (p *Policy) IsZero() bool {
	return p.Hold == nil && p.Rank == nil && p.Partition == 0 && p.Domain == nil &&
		p.DomainMaxUnavailable == nil && p.DomainMaxSurge == nil && !p.Strict
}

// StepPolicy is what a step under a non-zero Policy counted for it.
type StepPolicy struct {
	// Partition is Policy.Partition.
	Partition int
	// Remaining is the number of desired nodes, not held, that ran only
	// old pods before the step; the rollout under the policy is done when
	// it is at most Partition and nothing else is in flight.
	Remaining int
	// Held is the number of desired nodes the policy held.
	Held int
}

// checkPolicy rejects slices of the wrong length and negative partitions.
func checkPolicy(p *Policy, n int) error {
	for _, s := range []struct {
		name string
		len  int
		set  bool
	}{{"hold", len(p.Hold), p.Hold != nil}, {"rank", len(p.Rank), p.Rank != nil}, {"domain", len(p.Domain), p.Domain != nil}} {
		if s.set && s.len != n {
			return field.Invalid(field.NewPath("policy", s.name), s.len, fmt.Sprintf("must have one entry per node (%d)", n))
		}
	}
	if p.Partition < 0 {
		return field.Invalid(field.NewPath("policy", "partition"), p.Partition, "must be non-negative")
	}
	return nil
}

// orderByRank re-sorts order (node indices in name order) by p.Rank,
// keeping name order among equal ranks.
func orderByRank(order []int, p *Policy) {
	if p.Rank == nil {
		return
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(p.Rank[a], p.Rank[b]) })
}

// held reports whether the policy holds node i.
func (p *Policy) held(i int) bool { return p.Hold != nil && p.Hold[i] }

// domains counts, per domain, the nodes a budget charges, against a
// per-domain limit scaled from the domain's desired nodes. A nil *domains
// (no per-domain budget) admits everything.
type domains struct {
	used, limit map[string]int
}

// newDomains scales budget against each domain's desired nodes; nil when
// the policy sets no per-domain budget.
func newDomains(p *Policy, budget *intstr.IntOrString, nodes []Node) (*domains, error) {
	if p.Domain == nil || budget == nil {
		return nil, nil
	}
	d := &domains{used: map[string]int{}, limit: map[string]int{}}
	desired := map[string]int{}
	for i := range nodes {
		if !nodes[i].Missing && nodes[i].ShouldRun {
			desired[p.Domain[i]]++
		}
	}
	for dom, n := range desired {
		v, err := intstr.GetScaledValueFromIntOrPercent(budget, n, true)
		if err != nil || v < 0 {
			return nil, field.Invalid(field.NewPath("policy", "domainBudget"), budget.String(), "must be a non-negative integer or percentage")
		}
		d.limit[dom] = max(v, 1)
	}
	return d, nil
}

func (d *domains) charge(p *Policy, i int) {
	if d != nil {
		d.used[p.Domain[i]]++
	}
}

func (d *domains) admits(p *Policy, i int) bool {
	if d == nil {
		return true
	}
	dom := p.Domain[i]
	lim, ok := d.limit[dom]
	if !ok {
		lim = 1 // a domain without desired nodes
	}
	return d.used[dom] < lim
}
