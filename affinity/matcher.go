package affinity

import (
	"cmp"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

// NodeMatcher decides whether a node satisfies a pod spec's nodeSelector and
// required node affinity (requiredDuringSchedulingIgnoredDuringExecution),
// with the semantics of component-helpers' nodeaffinity.GetRequiredNodeAffinity:
// the nodeSelector must match the node labels exactly, and at least one
// non-empty term must match (terms are ORed; within a term, matchExpressions
// and matchFields are ANDed; matchFields only see metadata.name).
//
// It is compiled once by NewNodeMatcher and then matched per node without
// parsing or allocating. A NodeMatcher is immutable and safe for concurrent
// use. Its zero value, and a nil *NodeMatcher, match every node.
type NodeMatcher struct {
	// selector is the nodeSelector as pairs sorted by key; nil when the
	// spec has none.
	selector []labelPair
	// hasAffinity records that the spec has required node affinity, so
	// that at least one of terms must match (none when terms is empty).
	hasAffinity bool
	// terms are the non-empty terms that parsed, in spec order.
	terms []term
	// skipped are the terms that never match, empty or unparsable, in spec
	// order, for Explain.
	skipped []skippedTerm
	// err holds the parse errors of the required node affinity.
	err error
	// unsatisfiable holds the requirements that can never match.
	unsatisfiable error
}

// skippedTerm is a term NewNodeMatcher left out of terms.
type skippedTerm struct {
	index   int
	invalid bool // it did not parse; otherwise it is empty
}

type labelPair struct{ key, value string }

// term is one compiled node-selector term.
type term struct {
	// index is the term's position in nodeSelectorTerms.
	index int
	// never, when non-nil, is why no node can match the term (see
	// Unsatisfiable), located at the first conflicting requirement.
	never  *SetVerdict
	labels []labelReq
	fields []fieldReq
}

// labelReq is one compiled matchExpressions requirement.
type labelReq struct {
	// index is the requirement's position in matchExpressions.
	index int
	key   string
	op    selection.Operator
	// values are the operand of In and NotIn.
	values []string
	// bound is the operand of GreaterThan and LessThan.
	bound int64
}

// fieldReq is one compiled matchFields requirement: the field named key
// must equal value (In) or differ from it (NotIn).
type fieldReq struct {
	// index is the requirement's position in matchFields.
	index      int
	key, value string
	notIn      bool
}

// NewNodeMatcher compiles spec.NodeSelector and the required node affinity
// of spec.Affinity. Like upstream's DaemonSet controller, it is lenient: a
// term that fails to parse (an unknown operator, a bad key or value, a Gt
// whose value is not an integer, a matchFields In without exactly one value,
// ...) never matches, and the other terms still count. Err reports such
// parse errors. It does not keep references into spec and does not modify
// it. A nil spec gives a matcher that matches every node. It runs in time
// linear in the size of the nodeSelector and the affinity.
func NewNodeMatcher(spec *corev1.PodSpec) *NodeMatcher {
	m := &NodeMatcher{}
	if spec == nil {
		return m
	}
	if len(spec.NodeSelector) > 0 {
		m.selector = make([]labelPair, 0, len(spec.NodeSelector))
		for k, v := range spec.NodeSelector {
			m.selector = append(m.selector, labelPair{key: k, value: v})
		}
		slices.SortFunc(m.selector, func(a, b labelPair) int { return cmp.Compare(a.key, b.key) })
	}
	a := spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		m.unsatisfiable = unsatisfiable(m, nil)
		return m
	}
	required := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	m.hasAffinity = true
	failed := false
	for i := range required.NodeSelectorTerms {
		t := &required.NodeSelectorTerms[i]
		if len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0 {
			m.skipped = append(m.skipped, skippedTerm{index: i})
			continue // an empty term matches nothing
		}
		if c, ok := compileTerm(t); ok {
			c.index = i
			m.terms = append(m.terms, c)
		} else {
			m.skipped = append(m.skipped, skippedTerm{index: i, invalid: true})
			failed = true
		}
	}
	m.unsatisfiable = unsatisfiable(m, required)
	// Let component-helpers word the errors, with their exact paths. It
	// parses the terms a second time, so do it only when there is something
	// to report; the tests check that compileTerm rejects exactly the terms
	// component-helpers reports.
	if failed {
		if _, err := nodeaffinity.NewNodeSelector(required, field.WithPath(requiredPath())); err != nil {
			m.err = err
		}
	}
	return m
}

// compileTerm compiles one non-empty term, reporting false when any of its
// requirements does not parse. The compiled form copies the values it
// keeps, so the matcher holds no reference into the spec.
func compileTerm(t *corev1.NodeSelectorTerm) (term, bool) {
	var c term
	for i, e := range t.MatchExpressions {
		r, ok := parseLabelReq(e)
		if !ok || !validRequirement(e.Key, r.op, e.Values) {
			return term{}, false
		}
		r.values = slices.Clone(r.values)
		r.index = i
		c.labels = append(c.labels, r)
	}
	for i, f := range t.MatchFields {
		r, ok := parseFieldReq(f)
		if !ok {
			return term{}, false
		}
		r.index = i
		c.fields = append(c.fields, r)
	}
	return c, true
}

// parseLabelReq reads a matchExpressions requirement into the form Match
// evaluates, without validating its key and values (validRequirement does)
// and without copying: values alias e.Values. It reports false for an
// unknown operator, or a Gt or Lt without exactly one integer value.
func parseLabelReq(e corev1.NodeSelectorRequirement) (labelReq, bool) {
	op, ok := labelOperator(e.Operator)
	if !ok {
		return labelReq{}, false
	}
	r := labelReq{key: e.Key, op: op}
	switch op {
	case selection.GreaterThan, selection.LessThan:
		if len(e.Values) != 1 {
			return labelReq{}, false
		}
		if r.bound, ok = parseInt64(e.Values[0]); !ok {
			return labelReq{}, false
		}
	case selection.In, selection.NotIn:
		r.values = e.Values
	}
	return r, true
}

// parseFieldReq reads a matchFields requirement, reporting false unless it
// is In or NotIn with exactly one value, the only form upstream accepts.
func parseFieldReq(f corev1.NodeSelectorRequirement) (fieldReq, bool) {
	if len(f.Values) != 1 {
		return fieldReq{}, false
	}
	switch f.Operator {
	case corev1.NodeSelectorOpIn:
		return fieldReq{key: f.Key, value: f.Values[0]}, true
	case corev1.NodeSelectorOpNotIn:
		return fieldReq{key: f.Key, value: f.Values[0], notIn: true}, true
	}
	return fieldReq{}, false
}

// labelOperator maps a node-selector operator to its label-selector
// counterpart.
func labelOperator(op corev1.NodeSelectorOperator) (selection.Operator, bool) {
	switch op {
	case corev1.NodeSelectorOpIn:
		return selection.In, true
	case corev1.NodeSelectorOpNotIn:
		return selection.NotIn, true
	case corev1.NodeSelectorOpExists:
		return selection.Exists, true
	case corev1.NodeSelectorOpDoesNotExist:
		return selection.DoesNotExist, true
	case corev1.NodeSelectorOpGt:
		return selection.GreaterThan, true
	case corev1.NodeSelectorOpLt:
		return selection.LessThan, true
	default:
		return "", false
	}
}

// Match reports whether node satisfies the compiled nodeSelector and
// required node affinity. A nil node never matches. It does not allocate,
// and runs in time linear in the size of the compiled spec (label lookups
// are map lookups).
func (m *NodeMatcher) Match(node *corev1.Node) bool {
	if node == nil {
		return false
	}
	if m == nil {
		return true
	}
	for _, p := range m.selector {
		if v, ok := node.Labels[p.key]; !ok || v != p.value {
			return false
		}
	}
	if !m.hasAffinity {
		return true
	}
	for i := range m.terms {
		if m.terms[i].match(node) {
			return true
		}
	}
	return false
}

func (t *term) match(node *corev1.Node) bool {
	for i := range t.labels {
		if !t.labels[i].match(node.Labels) {
			return false
		}
	}
	// component-helpers gives a node without a name an empty field set, and
	// then skips the field requirements altogether.
	if node.Name == "" {
		return true
	}
	for _, f := range t.fields {
		if !f.holds(node.Name) {
			return false
		}
	}
	return true
}

// holds reports whether the requirement holds for a node named nodeName:
// only metadata.name is a field of a node; any other key reads as "".
func (f fieldReq) holds(nodeName string) bool {
	got := ""
	if f.key == metav1.ObjectNameField {
		got = nodeName
	}
	return (got == f.value) != f.notIn
}

func (r *labelReq) match(nodeLabels map[string]string) bool {
	v, ok := nodeLabels[r.key]
	switch r.op {
	case selection.In:
		return ok && slices.Contains(r.values, v)
	case selection.NotIn:
		return !ok || !slices.Contains(r.values, v)
	case selection.Exists:
		return ok
	case selection.DoesNotExist:
		return !ok
	case selection.GreaterThan, selection.LessThan:
		if !ok {
			return false
		}
		n, ok := parseInt64(v)
		if !ok {
			return false
		}
		if r.op == selection.GreaterThan {
			return n > r.bound
		}
		return n < r.bound
	default:
		return false
	}
}

// parseInt64 accepts exactly what strconv.ParseInt(s, 10, 64) accepts (an
// optional sign, then decimal digits, within the int64 range) and returns
// the same value; unlike strconv it does not allocate an error on failure,
// which matters because node label values are often not numbers.
func parseInt64(s string) (int64, bool) {
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if s == "" {
		return 0, false
	}
	limit := uint64(1<<63 - 1)
	if neg {
		limit = 1 << 63
	}
	var u uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if u > (limit-d)/10 {
			return 0, false
		}
		u = u*10 + d
	}
	if neg {
		return -int64(u), true // -(1<<63) wraps to math.MinInt64, as wanted
	}
	return int64(u), true
}

// Err returns the parse errors of the required node affinity, as
// field errors at paths such as
// spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[1].matchExpressions[0].operator,
// aggregated and flattened (a utilerrors.Aggregate); nil when every term
// parsed, when there is no required node affinity, and for the zero or nil
// matcher. Matching ignores these errors (see NewNodeMatcher); callers that
// want to explain a verdict can show them. Requirements that parse but can
// never match are reported by Unsatisfiable.
func (m *NodeMatcher) Err() error {
	if m == nil {
		return nil
	}
	return m.err
}
