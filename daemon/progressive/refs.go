package progressive

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/internal/nearest"
)

// References are the names in a rollout's policy annotations that name
// something in the cluster: the order label (order-by) and its values
// (order-values), the domain label (domain) and the scope. With the
// gates' own names (PauseAfter, Approved) Gates.Hold resolves them against
// the plan's standing at every sync (Gates.Unresolved), and holds the
// rollout when one names nothing. ParseAnnotations sets them from the
// policy (ReferencesOf), as it sets Bake; the zero References name
// nothing and so resolve.
type References struct {
	// OrderBy is the order label, Policy.Order.Label; OrderValues are its
	// values, Policy.Order.Values.
	OrderBy     string
	OrderValues []string
	// Domain is the domain label, Policy.DomainBudget.Label.
	Domain string
	// Scope is Policy.Scope; nil when there is none.
	Scope *metav1.LabelSelector
}

// ReferencesOf returns the references of p (see References): what
// ParseAnnotations sets as Gates.Refs. A program that plans with a policy
// of its own (flags over the annotations) sets Gates.Refs to this, so that
// its names are resolved as the annotations' are. The result shares p's
// slices and selector; it modifies nothing.
func ReferencesOf(p *daemon.RolloutPolicy) References {
	r := References{OrderBy: p.Order.Label, OrderValues: p.Order.Values, Scope: p.Scope}
	if p.DomainBudget != nil {
		r.Domain = p.DomainBudget.Label
	}
	return r
}

// Unresolved is one value of a rollout annotation that names nothing the
// plan's standing has (Gates.Unresolved): while one is there, Gates.Hold
// holds the rollout (HoldUnresolved).
type Unresolved struct {
	// Key is the annotation key (AnnotationPauseAfter, …).
	Key string
	// Value is the name that resolves to nothing: one value of
	// pause-after or order-values, the wave of approved, the label key of
	// order-by or domain, or the scope as kubectl -l writes it.
	Value string
	// What is what Value should name: "wave", "node label key", "value
	// of <label>", "desired node".
	What string
	// Of is what Exist lists ("waves", "node label keys", "values of
	// <label>"), and Exist the names there are: the waves in the
	// rollout's order, other names sorted, at most MaxListed; More counts
	// the others. Empty when there is nothing to list.
	Of    string
	Exist []string
	More  int
	// Near is the name Value probably misspells, "" when none is close.
	Near string
}

// MaxListed is the most names an Unresolved lists.
const MaxListed = 10

// String says u for people: `pause-after "zone-z" names no wave; did you
// mean zone-a? waves: canary, zone-a, zone-b, zone-c`.
func (u Unresolved) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %q names no %s", strings.TrimPrefix(u.Key, AnnotationPrefix), u.Value, u.What)
	if u.Near != "" {
		fmt.Fprintf(&b, "; did you mean %s?", u.Near)
	}
	sep := ";"
	if u.Near != "" {
		sep = ""
	}
	switch {
	case len(u.Exist) > 0:
		fmt.Fprintf(&b, "%s %s: %s", sep, u.Of, strings.Join(u.Exist, ", "))
		if u.More > 0 {
			fmt.Fprintf(&b, " and %d more", u.More)
		}
	case u.Of != "":
		fmt.Fprintf(&b, "%s %s: none", sep, u.Of)
	}
	return b.String()
}

// Unresolved lists the names of g that resolve to nothing in plan's
// standing (plan computed with Options.ReportStanding; j its judgement), in key
// order (rolloutKeys), the values of a key in its order. Each must name
// something of the plan's desired nodes (nodes that should run the pod):
//   - pause-after: each value but "every-wave" names a wave of
//     Judgement.Waves: "canary" the canary wave, a value v a wave
//     "<order label>=v" (a wave of nodes all outside the scope counts: it
//     is a wave, held by the scope);
//   - approved, when it names plan.Hash: its wave is a wave of
//     Judgement.Waves (an approval of another revision covers nothing and
//     is not read);
//   - order-by and domain (Refs): some desired node carries the label;
//   - order-values: some desired node has each value for the order label
//     (not read when no node carries the label: order-by says it);
//   - scope: some desired node is in scope. Its Unresolved names the first
//     requirement no desired node meets (a label key, or the values of
//     one), or, when each is met by some node, says so with no names.
//
// A plan with no desired node (an empty cluster, a node selector that
// matches nothing yet) has nothing to resolve against and no old pod to
// replace: nothing is read until a desired node appears. A plan without
// a standing, or a nil g, gives nil. It modifies nothing.
func (g *Gates) Unresolved(plan *daemon.Plan, j Judgement) []Unresolved {
	if g == nil || plan == nil || plan.Standing == nil {
		return nil
	}
	var desired []*daemon.NodeStanding
	for i := range plan.Standing.Nodes {
		if n := &plan.Standing.Nodes[i]; n.ShouldRun && n.Node != nil {
			desired = append(desired, n)
		}
	}
	if len(desired) == 0 {
		return nil
	}
	var out []Unresolved
	r := &g.Refs
	if r.Scope != nil && !slices.ContainsFunc(desired, func(n *daemon.NodeStanding) bool { return n.Held != daemon.HeldScope }) {
		out = append(out, scopeUnresolved(r.Scope, desired))
	}
	hasOrderLabel := true
	for _, lk := range []struct{ key, label string }{{AnnotationOrderBy, r.OrderBy}, {AnnotationDomain, r.Domain}} {
		if lk.label == "" {
			continue
		}
		if u, ok := labelUnresolved(lk.key, lk.label, desired); !ok {
			out = append(out, u)
			hasOrderLabel = hasOrderLabel && lk.key != AnnotationOrderBy
		}
	}
	if r.OrderBy != "" && hasOrderLabel {
		have := valuesOf(r.OrderBy, desired)
		for _, v := range r.OrderValues {
			if !slices.Contains(have, v) {
				out = append(out, listed(Unresolved{Key: AnnotationOrderValues, Value: v, What: "value of " + r.OrderBy, Of: "values of " + r.OrderBy}, have))
			}
		}
	}
	waves := make([]string, len(j.Waves))
	for i, t := range j.Waves {
		waves[i] = t.Wave
	}
	out = append(out, g.pointsUnresolved(waves)...)
	if a := g.Approved; a != nil && a.Hash == plan.Hash && plan.Hash != "" && !slices.Contains(waves, a.Wave) {
		out = append(out, listed(Unresolved{Key: AnnotationApproved, Value: a.Wave, What: "wave", Of: "waves"}, waves))
	}
	slices.SortStableFunc(out, func(a, b Unresolved) int { return slices.Index(rolloutKeys, a.Key) - slices.Index(rolloutKeys, b.Key) })
	return out
}

// pointsUnresolved returns the pause-after values that name no wave of
// waves; the names listed are those a value can name: "canary" and the
// order label's values, in the rollout's order.
func (g *Gates) pointsUnresolved(waves []string) []Unresolved {
	var names []string
	for _, w := range waves {
		if w == pointCanary {
			names = append(names, w)
		} else if _, v, ok := strings.Cut(w, "="); ok {
			names = append(names, v)
		}
	}
	var out []Unresolved
	for _, p := range g.PauseAfter {
		if p == pointEveryWave || slices.Contains(names, p) {
			continue
		}
		out = append(out, listed(Unresolved{Key: AnnotationPauseAfter, Value: p, What: "wave", Of: "waves"}, names))
	}
	return out
}

// labelUnresolved reports whether some desired node carries label, and
// the Unresolved of key when none does.
func labelUnresolved(key, label string, desired []*daemon.NodeStanding) (Unresolved, bool) {
	keys := map[string]bool{}
	for _, n := range desired {
		if _, ok := n.Node.Labels[label]; ok {
			return Unresolved{}, true
		}
		for k := range n.Node.Labels {
			keys[k] = true
		}
	}
	return listed(Unresolved{Key: key, Value: label, What: "node label key", Of: "node label keys"}, slices.Sorted(maps.Keys(keys))), false
}

// valuesOf returns the values of label on the desired nodes, sorted.
func valuesOf(label string, desired []*daemon.NodeStanding) []string {
	seen := map[string]bool{}
	for _, n := range desired {
		if v, ok := n.Node.Labels[label]; ok {
			seen[v] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// scopeUnresolved is the Unresolved of a scope no desired node is in: it
// lists what the first requirement no desired node meets names, the label
// keys the nodes carry when none carries its key (a typo of the key), or
// the values of the key (a typo of a value).
func scopeUnresolved(s *metav1.LabelSelector, desired []*daemon.NodeStanding) Unresolved {
	text, err := formatScope(s)
	if err != nil {
		text = metav1.FormatLabelSelector(s)
	}
	u := Unresolved{Key: AnnotationScope, Value: text, What: "desired node"}
	for _, e := range scopeRequirements(s) {
		one, err := metav1.LabelSelectorAsSelector(&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{e}})
		if err != nil {
			return u
		}
		if slices.ContainsFunc(desired, func(n *daemon.NodeStanding) bool { return one.Matches(labels.Set(n.Node.Labels)) }) {
			continue
		}
		if e.Operator != metav1.LabelSelectorOpIn && e.Operator != metav1.LabelSelectorOpExists {
			return u
		}
		if k, ok := labelUnresolved(AnnotationScope, e.Key, desired); !ok {
			k.Value, k.What = text, u.What
			if k.Near != "" {
				k.Near = strings.Replace(text, e.Key, k.Near, 1)
			}
			return k
		}
		have := valuesOf(e.Key, desired)
		v := listed(Unresolved{Key: AnnotationScope, Value: text, What: u.What, Of: "values of " + e.Key}, have)
		v.Near = ""
		for _, want := range e.Values {
			if n := near(want, have); n != "" {
				v.Near = e.Key + "=" + n
				break
			}
		}
		return v
	}
	return u
}

// scopeRequirements are s's requirements, matchLabels as In of one value
// first.
func scopeRequirements(s *metav1.LabelSelector) []metav1.LabelSelectorRequirement {
	var out []metav1.LabelSelectorRequirement
	for _, k := range slices.Sorted(maps.Keys(s.MatchLabels)) {
		out = append(out, metav1.LabelSelectorRequirement{Key: k, Operator: metav1.LabelSelectorOpIn, Values: []string{s.MatchLabels[k]}})
	}
	return append(out, s.MatchExpressions...)
}

// listed returns u listing have (at most MaxListed, More the rest) and the
// name of have u.Value probably misspells.
func listed(u Unresolved, have []string) Unresolved {
	u.Near = near(u.Value, have)
	if len(have) > MaxListed {
		u.More = len(have) - MaxListed
		have = have[:MaxListed]
	}
	u.Exist = slices.Clone(have)
	return u
}

// near returns the name of have that w probably misspells: within one
// edit of a name of three bytes, two of a longer one ("zoen", "zone-z"),
// none of a shorter one (any other short name would be as near); "" when
// none is.
func near(w string, have []string) string {
	slack := 2
	switch {
	case len(w) < 3:
		return ""
	case len(w) == 3:
		slack = 1
	}
	if got, ok := nearest.Closest(w, have, slack); ok && got != w {
		return got
	}
	return ""
}

// IsZero reports whether r names nothing.
func (r References) IsZero() bool {
	return r.OrderBy == "" && r.OrderValues == nil && r.Domain == "" && r.Scope == nil
}
