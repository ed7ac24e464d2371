package affinity

import (
	"math"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/selection"
)

// truth turns what is possible into a Truth.
func truth(canTrue, canFalse bool) Truth {
	switch {
	case !canTrue:
		return Never
	case !canFalse:
		return Always
	default:
		return Sometimes
	}
}

// inPossible says whether "the label is one of values" can hold on a node
// of d and whether it can fail: canTrue is exact, canFalse may be true
// where it cannot fail (Sometimes where Always holds), which keeps every
// Always and Never answer sound.
func inPossible(d *keyDomain, values []string) (canTrue, canFalse bool) {
	if d.present {
		for _, v := range values {
			if d.canBe(v) {
				canTrue = true
				break
			}
		}
	}
	return canTrue, canBeOther(d, values)
}

// equalPossible is inPossible for the single value v, without a slice.
func equalPossible(d *keyDomain, v string) (canTrue, canFalse bool) {
	canTrue = d.present && d.canBe(v)
	canFalse = d.absent
	if !canFalse && d.present {
		canFalse = d.in == nil || slices.ContainsFunc(d.in, func(x string) bool { return x != v })
	}
	return canTrue, canFalse
}

// canBe reports whether a node of d may carry the label with value v.
func (d *keyDomain) canBe(v string) bool {
	return (d.in == nil || slices.Contains(d.in, v)) && d.allows(v)
}

// canBeOther reports whether a node of d may lack the label or carry a
// value outside values (over-approximated when d lists no values).
func canBeOther(d *keyDomain, values []string) bool {
	canFalse := d.absent
	canFalse = d.absent
	if !canFalse && d.present {
		if d.in == nil {
			canFalse = true // infinitely many values, or too many to enumerate
		} else {
			canFalse = slices.ContainsFunc(d.in, func(v string) bool { return !slices.Contains(values, v) })
		}
	}
	return canFalse
}

// boundPossible says whether the label can be an integer greater than b
// (gt) or less than b (!gt), and whether it can fail to be.
func boundPossible(d *keyDomain, b int64, gt bool) (canTrue, canFalse bool) {
	canFalse = d.absent
	if !d.present {
		return false, canFalse
	}
	holds := func(n int64) bool {
		if gt {
			return n > b
		}
		return n < b
	}
	if d.in != nil {
		for _, v := range d.in {
			if n, ok := parseInt64(v); ok && holds(n) {
				canTrue = true
			} else {
				canFalse = true
			}
		}
		return canTrue, canFalse
	}
	if gt {
		// The largest possible value is lt-1; the smallest gt+1.
		canTrue = !(d.hasLt && d.lt > math.MinInt64 && d.lt-1 <= b)
		canFalse = canFalse || !d.hasGt || d.gt < b
	} else {
		canTrue = !(d.hasGt && d.gt < math.MaxInt64 && d.gt+1 >= b)
		canFalse = canFalse || !d.hasLt || d.lt > b
	}
	return canTrue, canFalse
}

// truthOn evaluates one compiled requirement on s.
func (r *labelReq) truthOn(s *NodeSet) Truth {
	d := s.domain(r.key)
	switch r.op {
	case selection.In:
		return truth(inPossible(&d, r.values))
	case selection.NotIn:
		canTrue, canFalse := inPossible(&d, r.values)
		return truth(canFalse, canTrue)
	case selection.Exists:
		return truth(d.present, d.absent)
	case selection.DoesNotExist:
		return truth(d.absent, d.present)
	case selection.GreaterThan, selection.LessThan:
		return truth(boundPossible(&d, r.bound, r.op == selection.GreaterThan))
	}
	return Never
}

// truthOn evaluates one matchFields requirement on s.
func (f fieldReq) truthOn(s *NodeSet) Truth {
	if f.key == metav1.ObjectNameField && !s.nameKnown {
		return Sometimes
	}
	if f.holds(s.name) {
		return Always
	}
	return Never
}

// SetVerdict is the answer of MatchSet, with what decided it.
type SetVerdict struct {
	Truth Truth
	// NodeSelectorKey is the nodeSelector key that decided a Never or
	// Sometimes answer, when the nodeSelector decided it
	// (NodeSelector true).
	NodeSelector    bool
	NodeSelectorKey string
	// Term and Requirement locate the deciding required term and its
	// requirement (in matchFields when Field is true) for a Never or
	// Sometimes answer the affinity decided; Key is the requirement's key.
	// Term is -1, and Requirement -1, when the affinity has no term that
	// parses.
	Term, Requirement int
	Field             bool
	Key               string
}

// MatchSet answers Match for every node of s at once: Always when every
// node of s matches, Never when none does, Sometimes when it depends on
// what s leaves open. Always and Never are exact: Match gives that answer
// on every node of s. A term Unsatisfiable reports is Never. Sometimes may
// also be returned where requirements on one key correlate in a way
// neither follows (NotIn listing every value Gt and Lt leave, say). The deciding part is named: the first nodeSelector key
// that is not Always, else for Never the first term's first Never
// requirement, and for Sometimes the first Sometimes term's first
// Sometimes requirement. It does not allocate. A nil s gives Sometimes.
func (m *NodeMatcher) MatchSet(s *NodeSet) SetVerdict {
	if s == nil {
		return SetVerdict{Truth: Sometimes, Term: -1, Requirement: -1}
	}
	if m == nil {
		return SetVerdict{Truth: Always, Term: -1, Requirement: -1}
	}
	out := SetVerdict{Truth: Always, Term: -1, Requirement: -1}
	for _, p := range m.selector {
		d := s.domain(p.key)
		t := truth(equalPossible(&d, p.value))
		if t == Never {
			return SetVerdict{Truth: Never, NodeSelector: true, NodeSelectorKey: p.key, Term: -1, Requirement: -1}
		}
		if t == Sometimes && out.Truth == Always {
			out = SetVerdict{Truth: Sometimes, NodeSelector: true, NodeSelectorKey: p.key, Term: -1, Requirement: -1}
		}
	}
	if !m.hasAffinity {
		return out
	}
	var firstNever, firstMaybe SetVerdict
	haveNever, haveMaybe := false, false
	for i := range m.terms {
		tv := m.terms[i].truthOn(s)
		switch tv.Truth {
		case Always:
			return out // the nodeSelector's answer stands
		case Sometimes:
			if !haveMaybe {
				firstMaybe, haveMaybe = tv, true
			}
		case Never:
			if !haveNever {
				firstNever, haveNever = tv, true
			}
		}
	}
	switch {
	case haveMaybe:
		if out.Truth == Always {
			return firstMaybe
		}
		return out
	case haveNever:
		return firstNever
	default:
		return SetVerdict{Truth: Never, Term: -1, Requirement: -1}
	}
}

// truthOn evaluates one term on s: the AND of its requirements.
func (t *term) truthOn(s *NodeSet) SetVerdict {
	if t.never != nil {
		return *t.never
	}
	out := SetVerdict{Truth: Always, Term: t.index, Requirement: -1}
	for i := range t.labels {
		switch t.labels[i].truthOn(s) {
		case Never:
			return SetVerdict{Truth: Never, Term: t.index, Requirement: t.labels[i].index, Key: t.labels[i].key}
		case Sometimes:
			if out.Truth == Always {
				out = SetVerdict{Truth: Sometimes, Term: t.index, Requirement: t.labels[i].index, Key: t.labels[i].key}
			}
		}
	}
	for _, f := range t.fields {
		switch f.truthOn(s) {
		case Never:
			return SetVerdict{Truth: Never, Term: t.index, Requirement: f.index, Field: true, Key: f.key}
		case Sometimes:
			if out.Truth == Always {
				out = SetVerdict{Truth: Sometimes, Term: t.index, Requirement: f.index, Field: true, Key: f.key}
			}
		}
	}
	return out
}
