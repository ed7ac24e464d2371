package daemon

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/rollout"
)

// CanaryWave is the name of the canary wave (RolloutPolicy.Canary) among
// a plan's waves (Standing.Waves, NodeStanding.Wave,
// rollout.WaveProgress.Name).
const CanaryWave = "canary"

// RestWave is the name of the wave of every node after the canary when the
// policy has no Order.Label (RolloutPolicy.WaveOf).
const RestWave = "rest"

var canaryPath = policyPath.Child("canary")

// validate checks the canary's count and spread label.
func (c *CanarySpec) validate() field.ErrorList {
	var errs field.ErrorList
	if _, err := c.size(1); err != nil {
		errs = append(errs, err)
	}
	if k := c.Spread; k != "" {
		if msgs := validation.IsQualifiedName(k); len(msgs) > 0 {
			errs = append(errs, field.Invalid(canaryPath.Child("spread"), k, strings.Join(msgs, "; ")))
		}
	}
	return errs
}

// size scales Count against desired nodes: a percentage rounded up, at
// least 1, at most desired.
func (c *CanarySpec) size(desired int) (int, *field.Error) {
	path := canaryPath.Child("count")
	v := c.Count
	if v.Type == intstr.String {
		s := strings.TrimSuffix(v.StrVal, "%")
		var pct int
		if _, err := fmt.Sscanf(s, "%d", &pct); err != nil || s+"%" != v.StrVal || pct < 1 || pct > 100 || fmt.Sprint(pct) != s {
			return 0, field.Invalid(path, v.StrVal, "must be an integer at least 1 or a percentage from 1% to 100%")
		}
	} else if v.IntVal < 1 {
		return 0, field.Invalid(path, v.IntVal, "must be an integer at least 1 or a percentage from 1% to 100%")
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(&v, desired, true)
	if err != nil {
		return 0, field.Invalid(path, v.String(), err.Error())
	}
	return min(max(n, 1), desired), nil
}

// CanaryNodes returns the names of the nodes of the canary wave of a
// rollout under p (see CanarySpec), in update order (CompareNodes, then name);
// nil without p.Canary. It is the canary a plan computes, for a program
// that shows a rollout's waves before it starts (a plan's Standing says of
// each node whether it is in the canary: NodeStanding.Wave is CanaryWave).
//
// Pass the nodes that should run the pod (placement is the plan's to
// judge; nil entries are skipped), and updated, which returns a node's
// live pod of the current revision (the earliest created if several; see
// rollout.IsPodUpdated), nil when it runs none; updated may be nil when
// no node runs one (before the rollout starts). Nodes outside p.Scope are
// left out. An invalid Count, Spread or Scope gives nil (Validate reports
// them). It modifies nothing, and the result does not depend on the order
// of nodes.
func (p *RolloutPolicy) CanaryNodes(nodes []*corev1.Node, updated func(*corev1.Node) *corev1.Pod) []string {
	if p.Canary == nil || len(p.Canary.validate()) > 0 {
		return nil
	}
	sel := labels.Everything()
	if p.Scope != nil {
		s, err := metav1.LabelSelectorAsSelector(p.Scope)
		if err != nil {
			return nil
		}
		sel = s
	}
	var cands []canaryCandidate
	for _, n := range nodes {
		if n == nil || !sel.Matches(labels.Set(n.Labels)) {
			continue
		}
		c := canaryCandidate{node: n}
		if updated != nil {
			if pod := updated(n); pod != nil {
				c.updated, c.since = true, pod.CreationTimestamp.Time
			}
		}
		cands = append(cands, c)
	}
	in := p.canary(cands)
	var out []*corev1.Node
	for i, c := range cands {
		if in[i] {
			out = append(out, c.node)
		}
	}
	slices.SortFunc(out, func(a, b *corev1.Node) int { return cmp.Or(p.CompareNodes(a, b), cmp.Compare(a.Name, b.Name)) })
	names := make([]string, len(out))
	for i, n := range out {
		names[i] = n.Name
	}
	return names
}

// canaryCandidate is a desired node in scope, whether it runs a live
// updated pod, and since when (the earliest such pod's creation).
type canaryCandidate struct {
	node    *corev1.Node
	updated bool
	since   time.Time
}

// candidate is the canaryCandidate of node with pods judged by states.
func candidate(node *corev1.Node, pods []*corev1.Pod, states []rollout.PodState) canaryCandidate {
	c := canaryCandidate{node: node}
	for k, s := range states {
		if !s.Updated || s.Deleting {
			continue
		}
		if at := pods[k].CreationTimestamp.Time; !c.updated || at.Before(c.since) {
			c.updated, c.since = true, at
		}
	}
	return c
}

// canary picks the canary (see CanarySpec) among cands, the desired nodes in
// scope (non-nil, distinct names): in[i] says whether cands[i] is in it.
// p.Canary must be set and valid.
func (p *RolloutPolicy) canary(cands []canaryCandidate) (in []bool) {
	in = make([]bool, len(cands))
	size, err := p.Canary.size(len(cands))
	if err != nil || size == 0 {
		return in
	}
	// By value of the spread label, then updated first, then update order:
	// each node's turn is its place in its value's group (the round), then
	// the group's.
	idx := make([]int, len(cands))
	spread := make([]spreadKey, len(cands))
	for i := range idx {
		idx[i] = i
		spread[i] = p.spreadKey(cands[i].node)
	}
	slices.SortFunc(idx, func(i, j int) int {
		a, b := &cands[i], &cands[j]
		return cmp.Or(spread[i].compare(spread[j]), cmpBool(!a.updated, !b.updated),
			p.CompareNodes(a.node, b.node), cmp.Compare(a.node.Name, b.node.Name))
	})
	type turn struct{ round, group int }
	turns := make([]turn, len(cands))
	group, first := 0, 0
	for k, i := range idx {
		if k > 0 && spread[idx[k-1]] != spread[i] {
			group, first = group+1, k
		}
		turns[i] = turn{round: k - first, group: group}
	}
	// Nodes running an updated pod before any that does not, the earliest
	// updated first; otherwise in their turns.
	slices.SortFunc(idx, func(i, j int) int {
		a, b := &cands[i], &cands[j]
		if c := cmpBool(!a.updated, !b.updated); c != 0 {
			return c
		}
		if a.updated {
			if c := a.since.Compare(b.since); c != 0 {
				return c
			}
		}
		return cmp.Or(cmp.Compare(turns[i].round, turns[j].round), cmp.Compare(turns[i].group, turns[j].group))
	})
	for _, i := range idx[:size] {
		in[i] = true
	}
	return in
}

// spreadKey is where a node's value of the canary's Spread label goes
// among the values (see CanarySpec): by rank, then value.
type spreadKey struct {
	rank  int
	value string
}

func (k spreadKey) compare(o spreadKey) int {
	return cmp.Or(cmp.Compare(k.rank, o.rank), cmp.Compare(k.value, o.value))
}

// spreadKey returns n's spreadKey: the rank of its value of Order.Label
// when Spread is that label (labelRank); otherwise 0 with the label, 1
// without. Without a Spread, every node has the zero key.
func (p *RolloutPolicy) spreadKey(n *corev1.Node) spreadKey {
	k := p.Canary.Spread
	if k == "" {
		return spreadKey{}
	}
	v, ok := n.Labels[k]
	if k == p.Order.Label {
		return spreadKey{rank: p.labelRank(n), value: v}
	}
	if !ok {
		return spreadKey{rank: 1}
	}
	return spreadKey{value: v}
}

// canaryOfCluster picks the canary among c's desired nodes in scope (after
// compile has set their Frozen from the scope) and reports whether the node
// of index i is in it: i indexes c.nodes, then c.missing (never in it).
// Without a canary nothing is.
func (p *RolloutPolicy) canaryOfCluster(c *cluster) func(i int) bool {
	if p.Canary == nil {
		return func(int) bool { return false }
	}
	var at []int
	var cands []canaryCandidate
	for i := range c.nodes {
		n := &c.nodes[i]
		if !n.ShouldRun || n.Frozen {
			continue
		}
		at = append(at, i)
		cands = append(cands, candidate(c.info[i].node, n.Pods, n.States))
	}
	in := make([]bool, len(c.nodes))
	for k, ok := range p.canary(cands) {
		in[at[k]] = ok
	}
	return func(i int) bool { return i < len(in) && in[i] }
}
