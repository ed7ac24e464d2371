package rollout

import (
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Policy narrows a rolling-update step beyond upstream's: how many nodes
// it may update, and how budgets are spent. Which nodes it may update, in
// what order and in which failure domain are facts of each node (Node.Frozen,
// Node.Rank, Node.Domain). The zero value, over nodes without those facts,
// is upstream's step exactly.
type Policy struct {
	// Partition is the number of desired nodes that are not held whose
	// old pods the step keeps: it starts replacements only while more than
	// Partition such nodes run only old pods. Since nodes are replaced in
	// order, the last ones in the order are kept. 0 keeps none.
	Partition int
	// DomainMaxUnavailable (maxSurge 0) and DomainMaxSurge (surge), when
	// set, give each domain (Node.Domain) no more unavailable, or surging,
	// nodes than that budget scaled against the domain's desired nodes
	// (rounded up, at least 1), on top of the global budget.
	DomainMaxUnavailable, DomainMaxSurge *intstr.IntOrString
	// Strict makes old pods that are already unavailable wait for the
	// budget like available ones (before them) instead of being replaced
	// at once: they count against maxUnavailable, or maxSurge, when
	// replaced, and the partition and domain budgets apply to them too.
	// With maxSurge 0, one left as it is (its domain's budget spent) is
	// still an unavailable node and takes its slot of maxUnavailable all
	// the same, before any available pod is replaced.
	Strict bool
	// Waves, when set, puts a barrier between the waves of nodes
	// (Node.Wave); see WaveBarrier.
	Waves *WaveBarrier
}

// IsZero reports whether p sets nothing.
func (p *Policy) IsZero() bool {
	return p.Partition == 0 && p.DomainMaxUnavailable == nil && p.DomainMaxSurge == nil && !p.Strict && p.Waves == nil
}

// StepPolicy is what a step under a Policy counted for it.
type StepPolicy struct {
	// Partition is Policy.Partition.
	Partition int
	// Remaining is the number of desired nodes, not held, that ran only
	// old pods before the step; the rollout under the policy is done when
	// it is at most Partition and nothing else is in flight.
	Remaining int
	// Held is the number of desired nodes the policy held (Node.Frozen).
	Held int
	// Wave is where the waves stand under Policy.Waves; nil without a
	// barrier, or without nodes.
	Wave *WaveProgress
}

// checkPolicy rejects a negative partition.
func checkPolicy(p *Policy) error {
	if p.Partition < 0 {
		return field.Invalid(field.NewPath("policy", "partition"), p.Partition, "must be non-negative")
	}
	return nil
}

// domains counts, per domain, the nodes a budget charges, against a
// per-domain limit scaled from the domain's desired nodes. A nil *domains
// (no per-domain budget) admits everything.
type domains struct {
	used, limit map[int32]int
}

// newDomains scales budget against each domain's desired nodes; nil when
// budget is nil.
func newDomains(budget *intstr.IntOrString, nodes []Node) (*domains, error) {
	if budget == nil {
		return nil, nil
	}
	d := &domains{used: map[int32]int{}, limit: map[int32]int{}}
	desired := map[int32]int{}
	for i := range nodes {
		if !nodes[i].Missing && nodes[i].ShouldRun {
			desired[nodes[i].Domain]++
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

func (d *domains) charge(n *Node) {
	if d != nil {
		d.used[n.Domain]++
	}
}

func (d *domains) admits(n *Node) bool {
	if d == nil {
		return true
	}
	lim, ok := d.limit[n.Domain]
	if !ok {
		lim = 1 // a domain without desired nodes
	}
	return d.used[n.Domain] < lim
}
