package selector_test

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/daemonplan/daemonplan/selector"
)

// checkAgainstUpstream compares ForDaemonSet's result for ps (ours, err)
// with metav1.LabelSelectorAsSelector, the conversion upstream's controller
// uses: the same verdict, the same requirements, the same String() when no
// key repeats (upstream's order for a repeated key follows map iteration),
// and the same Matches on label sets drawn with rng from the selector's own
// keys and values plus strangers.
func checkAgainstUpstream(t *testing.T, rng *rand.Rand, ps *metav1.LabelSelector, ours labels.Selector, err error) {
	t.Helper()
	if ps == nil {
		// Rule 1: upstream would return labels.Nothing(); we refuse.
		if err == nil {
			t.Errorf("nil selector: ForDaemonSet() gave %q, want an error", ours)
		}
		return
	}
	if ps.MatchLabels == nil && ps.MatchExpressions == nil {
		// Rule 2: upstream's sync stops before converting.
		if !errors.Is(err, selector.ErrSelectsAll) {
			t.Errorf("exactly {}: ForDaemonSet() error = %v, want ErrSelectsAll", err)
		}
		return
	}
	up, upErr := metav1.LabelSelectorAsSelector(ps)
	if (err == nil) != (upErr == nil) {
		t.Fatalf("verdicts differ for %+v: ForDaemonSet() error = %v, LabelSelectorAsSelector error = %v", ps, err, upErr)
	}
	if err != nil {
		return
	}
	if diff := cmp.Diff(requirementStrings(up), requirementStrings(ours)); diff != "" {
		t.Errorf("requirements differ for %+v (-upstream +ours):\n%s", ps, diff)
	}
	if !repeatsKey(ps) {
		if diff := cmp.Diff(up.String(), ours.String()); diff != "" {
			t.Errorf("String() differs for %+v (-upstream +ours):\n%s", ps, diff)
		}
	}
	if up.Empty() != ours.Empty() {
		t.Errorf("Empty() = %v, upstream %v", ours.Empty(), up.Empty())
	}
	for _, set := range labelSets(rng, ps, 64) {
		if got, want := ours.Matches(set), up.Matches(set); got != want {
			t.Errorf("Matches(%v) = %v, upstream %v, for %+v", set, got, want, ps)
		}
	}
}

// requirementStrings lists the requirements of sel as sorted strings.
func requirementStrings(sel labels.Selector) []string {
	reqs, _ := sel.Requirements()
	out := make([]string, 0, len(reqs))
	for _, r := range reqs {
		out = append(out, r.String())
	}
	slices.Sort(out)
	return out
}

func repeatsKey(ps *metav1.LabelSelector) bool {
	seen := map[string]bool{}
	for k := range ps.MatchLabels {
		seen[k] = true
	}
	for _, e := range ps.MatchExpressions {
		if seen[e.Key] {
			return true
		}
		seen[e.Key] = true
	}
	return false
}

// labelSets draws n label sets over the keys and values ps mentions, a
// stranger key and value, and the empty value. The first set is the one
// matchLabels describes, the second is empty.
func labelSets(rng *rand.Rand, ps *metav1.LabelSelector, n int) []labels.Set {
	keys := []string{"stranger"}
	values := []string{"", "stranger"}
	for k, v := range ps.MatchLabels {
		keys = append(keys, k)
		values = append(values, v)
	}
	for _, e := range ps.MatchExpressions {
		keys = append(keys, e.Key)
		values = append(values, e.Values...)
	}
	slices.Sort(keys) // map order must not reach rng's draws
	slices.Sort(values)
	sets := []labels.Set{labels.Set(ps.MatchLabels), {}}
	for len(sets) < n {
		set := labels.Set{}
		for range rng.IntN(len(keys) + 1) {
			set[keys[rng.IntN(len(keys))]] = values[rng.IntN(len(values))]
		}
		sets = append(sets, set)
	}
	return sets
}

// TestForDaemonSetMatchesUpstreamOnRandomSelectors draws selectors from a
// small alphabet of keys, values and operators, valid and not, and compares
// each with LabelSelectorAsSelector.
func TestForDaemonSetMatchesUpstreamOnRandomSelectors(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for range 2000 {
		ps := randomLabelSelector(rng)
		ds := newDaemonSet(ps, nil)
		got, err := selector.ForDaemonSet(ds)
		checkAgainstUpstream(t, rng, ps, got, err)
	}
}

func randomLabelSelector(rng *rand.Rand) *metav1.LabelSelector {
	keys := []string{"app", "tier", "example.com/zone", "", "bad key", "-x"}
	values := []string{"a", "b", "", "bad value", "1"}
	ops := []metav1.LabelSelectorOperator{"In", "NotIn", "Exists", "DoesNotExist", "Gt", ""}
	ps := &metav1.LabelSelector{}
	if rng.IntN(3) > 0 {
		ps.MatchLabels = map[string]string{}
		for range rng.IntN(3) {
			ps.MatchLabels[keys[rng.IntN(len(keys))]] = values[rng.IntN(len(values))]
		}
	}
	if rng.IntN(3) > 0 {
		ps.MatchExpressions = []metav1.LabelSelectorRequirement{}
		for range rng.IntN(4) {
			e := metav1.LabelSelectorRequirement{Key: keys[rng.IntN(len(keys))], Operator: ops[rng.IntN(len(ops))]}
			for range rng.IntN(3) {
				e.Values = append(e.Values, values[rng.IntN(len(values))])
			}
			ps.MatchExpressions = append(ps.MatchExpressions, e)
		}
	}
	return ps
}
