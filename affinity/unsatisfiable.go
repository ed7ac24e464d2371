package affinity

import (
	"fmt"
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/selection"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Unsatisfiable returns the parts of the nodeSelector and required node
// affinity that no node can ever satisfy, though they parse, as field
// errors of type Invalid, aggregated (a utilerrors.Aggregate); nil when
// every part can match some node, and for the zero or nil matcher. The
// rules, each checked once at compile time:
//  1. a nodeSelector key or value that is not a valid label key or value
//     (the API server validates node labels);
//  2. a matchFields requirement on a key other than metadata.name with In
//     (a node has no other field, so it reads as ""), or metadata.name In
//     "" (the only value a node name cannot have);
//  3. within one term, requirements on one label key that exclude each
//     other: DoesNotExist with In, Exists, Gt or Lt; In whose values every
//     other requirement on the key rejects; Gt and Lt leaving no integer
//     between them; two metadata.name In requirements with different values;
//  4. a required node affinity none of whose terms can match (every term
//     empty, unparsable or caught by rule 2 or 3).
//
// Parse errors are reported by Err, not here. The checks are sufficient,
// not complete: a conflict they do not recognise (NotIn listing every
// integer Gt and Lt leave, say) is not reported.
func (m *NodeMatcher) Unsatisfiable() error {
	if m == nil {
		return nil
	}
	return m.unsatisfiable
}

// unsatisfiable computes Unsatisfiable's errors for m, compiled from
// required (nil when the spec has no required node affinity). It allocates
// only when it finds something to report or a term names one label key
// twice.
func unsatisfiable(m *NodeMatcher, required *corev1.NodeSelector) error {
	var errs field.ErrorList
	if len(m.selector) > 0 {
		for _, p := range m.selector {
			if !isLabelKey(p.key) || !isLabelValue(p.value) {
				errs = append(errs, field.Invalid(field.NewPath("spec", "nodeSelector").Key(p.key), p.value,
					"can never match: node labels must be valid label keys and values"))
			}
		}
	}
	if required != nil {
		possible := 0
		for i := range m.terms {
			termErrs := termConflicts(&m.terms[i])
			errs = append(errs, termErrs...)
			if len(termErrs) == 0 {
				possible++
			}
		}
		if possible == 0 {
			errs = append(errs, field.Invalid(requiredPath().Child("nodeSelectorTerms"), len(required.NodeSelectorTerms),
				"can never match: no term can match any node"))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return utilerrors.NewAggregate(errs.ToAggregate().Errors())
}

// termConflicts returns the rule 2 and 3 errors of one compiled term, and
// records the first conflicting requirement in t.never (for MatchSet).
func termConflicts(t *term) field.ErrorList {
	var errs field.ErrorList
	termPath := func() *field.Path { return requiredPath().Child("nodeSelectorTerms").Index(t.index) }
	nameIn := -1
	for i, f := range t.fields {
		p := func() *field.Path { return termPath().Child("matchFields").Index(f.index) }
		switch {
		case f.notIn:
		case f.key != metav1.ObjectNameField && f.value != "":
			t.markNever(f.index, true, f.key)
			errs = append(errs, field.Invalid(p().Child("key"), f.key, "can never match: a node has no field but metadata.name"))
		case f.key == metav1.ObjectNameField && f.value == "":
			t.markNever(f.index, true, f.key)
			errs = append(errs, field.Invalid(p().Child("values"), f.value, "can never match: a node name is never empty"))
		case f.key == metav1.ObjectNameField:
			if nameIn >= 0 && t.fields[nameIn].value != f.value {
				t.markNever(f.index, true, f.key)
				errs = append(errs, field.Invalid(p().Child("values"), f.value,
					fmt.Sprintf("can never match: matchFields[%d] requires metadata.name %q", t.fields[nameIn].index, t.fields[nameIn].value)))
			}
			if nameIn < 0 {
				nameIn = i
			}
		}
	}
	for i := range t.labels {
		r := &t.labels[i]
		first := true
		for j := range i {
			if t.labels[j].key == r.key {
				first = false
				break
			}
		}
		if !first {
			continue
		}
		if why := keyConflict(t.labels, r.key); why != "" {
			t.markNever(r.index, false, r.key)
			errs = append(errs, field.Invalid(termPath().Child("matchExpressions").Index(r.index).Child("key"), r.key, "can never match: "+why))
		}
	}
	return errs
}

// markNever records the first requirement found to make t unsatisfiable.
func (t *term) markNever(requirement int, isField bool, key string) {
	if t.never == nil {
		t.never = &SetVerdict{Truth: Never, Term: t.index, Requirement: requirement, Field: isField, Key: key}
	}
}

// keyConflict returns why the requirements of reqs on key exclude each
// other, or "" when some label value (or absence) satisfies them all, as
// far as rule 3 of Unsatisfiable sees.
func keyConflict(reqs []labelReq, key string) string {
	var on []*labelReq
	for i := range reqs {
		if reqs[i].key == key {
			on = append(on, &reqs[i])
		}
	}
	if len(on) < 2 {
		return ""
	}
	absent, present := false, false
	lower, upper := int64(math.MinInt64), int64(math.MaxInt64) // exclusive bounds
	bounded := false
	var in *labelReq
	for _, r := range on {
		switch r.op {
		case selection.DoesNotExist:
			absent = true
		case selection.In:
			present = true
			if in == nil {
				in = r
			}
		case selection.Exists:
			present = true
		case selection.GreaterThan:
			present, bounded = true, true
			lower = max(lower, r.bound)
		case selection.LessThan:
			present, bounded = true, true
			upper = min(upper, r.bound)
		}
	}
	if absent && present {
		return "DoesNotExist and a requirement that needs the label"
	}
	if in != nil {
		for _, v := range in.values {
			labels := map[string]string{key: v}
			if !slices.ContainsFunc(on, func(r *labelReq) bool { return !r.match(labels) }) {
				return ""
			}
		}
		return "no value of In satisfies every requirement on the key"
	}
	if bounded && (upper <= lower || uint64(upper)-uint64(lower) < 2) {
		return fmt.Sprintf("no integer is greater than %d and less than %d", lower, upper)
	}
	return ""
}
