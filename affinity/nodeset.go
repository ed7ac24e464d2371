package affinity

import (
	"cmp"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Truth is a three-valued answer: for every node of a NodeSet, for none,
// or for some. Its zero value is Unknown, no answer: a SetVerdict that was
// not filled in (where no check was made) does not read as Never.
type Truth int8

// The values of Truth. MatchSet answers Never, Sometimes or Always, never
// Unknown.
const (
	// Unknown: no answer was given.
	Unknown Truth = iota
	// Never: no node of the set satisfies it.
	Never
	// Sometimes: it depends on a label value or name the set does not fix.
	Sometimes
	// Always: every node of the set satisfies it.
	Always
)

// String returns "Never", "Sometimes", "Always" or "Unknown".
func (t Truth) String() string {
	switch t {
	case Never:
		return "Never"
	case Sometimes:
		return "Sometimes"
	case Always:
		return "Always"
	default:
		return "Unknown"
	}
}

// NodeSet is a set of nodes described by what is known of them, as an
// autoscaler's node group is: a name when known, labels with fixed values,
// and requirements on others. Compile it with NewNodeSet; it is immutable
// and safe for concurrent use.
type NodeSet struct {
	name      string
	nameKnown bool
	// keys are the label keys the set constrains, sorted by key.
	keys []keyDomain
	// complete: a key not in keys is absent from every node of the set.
	complete bool
}

// keyDomain is what a NodeSet allows for one label key.
type keyDomain struct {
	key string
	// absent and present say whether a node of the set may lack the label
	// and may carry it.
	absent, present bool
	// in, when non-nil, lists every value the label may take (already
	// filtered by notIn and the bounds).
	in []string
	// notIn are values the label never takes.
	notIn []string
	// The label is an integer in (gt, lt) when hasGt or hasLt.
	gt, lt       int64
	hasGt, hasLt bool
}

// NewNodeSet compiles a node set: nodes named name (any name when name is
// ""), carrying every label of labels with its value, and satisfying every
// requirement of requirements (In, NotIn, Exists, DoesNotExist, Gt, Lt on
// label keys, as in node-selector terms). When complete is true, the nodes
// carry no label but those named by labels and requirements; otherwise
// they may carry any other label with any value.
//
// It returns field errors (paths under "labels" and "requirements") for a
// requirement that does not parse and for keys whose requirements leave no
// possible state, since such a set holds no node. It keeps no reference to
// its arguments.
func NewNodeSet(name string, labels map[string]string, requirements []corev1.NodeSelectorRequirement, complete bool) (*NodeSet, error) {
	s := &NodeSet{name: name, nameKnown: name != "", complete: complete}
	domains := map[string]*keyDomain{}
	get := func(key string) *keyDomain {
		d := domains[key]
		if d == nil {
			d = &keyDomain{key: key, absent: true, present: true}
			domains[key] = d
		}
		return d
	}
	var errs field.ErrorList
	for k, v := range labels {
		if !validRequirement(k, selection.In, []string{v}) {
			errs = append(errs, field.Invalid(field.NewPath("labels").Key(k), v, "not a valid label key and value"))
			continue
		}
		get(k).restrictIn([]string{v})
	}
	for i, e := range requirements {
		r, ok := parseLabelReq(e)
		if !ok || !validRequirement(e.Key, r.op, e.Values) {
			errs = append(errs, field.Invalid(field.NewPath("requirements").Index(i), e.Key,
				"not a valid node-selector requirement (operator "+string(e.Operator)+")"))
			continue
		}
		d := get(e.Key)
		switch r.op {
		case selection.In:
			d.restrictIn(r.values)
		case selection.NotIn:
			d.notIn = append(d.notIn, r.values...)
		case selection.Exists:
			d.absent = false
		case selection.DoesNotExist:
			d.present = false
		case selection.GreaterThan:
			d.absent = false
			d.gt, d.hasGt = boundMax(d.gt, d.hasGt, r.bound), true
		case selection.LessThan:
			d.absent = false
			d.lt, d.hasLt = boundMin(d.lt, d.hasLt, r.bound), true
		}
	}
	for _, d := range domains {
		d.settle()
		if !d.absent && !d.present {
			errs = append(errs, field.Invalid(field.NewPath("requirements"), d.key, "the requirements on this key allow no node"))
		}
		s.keys = append(s.keys, *d)
	}
	if len(errs) > 0 {
		slices.SortFunc(errs, func(a, b *field.Error) int { return cmp.Compare(a.Error(), b.Error()) })
		return nil, errs.ToAggregate()
	}
	slices.SortFunc(s.keys, func(a, b keyDomain) int { return cmp.Compare(a.key, b.key) })
	return s, nil
}

func boundMax(cur int64, has bool, b int64) int64 {
	if !has {
		return b
	}
	return max(cur, b)
}

func boundMin(cur int64, has bool, b int64) int64 {
	if !has {
		return b
	}
	return min(cur, b)
}

// restrictIn limits the label to values (present, one of them).
func (d *keyDomain) restrictIn(values []string) {
	d.absent = false
	if d.in == nil {
		d.in = slices.Clone(values)
		if d.in == nil {
			d.in = []string{}
		}
		return
	}
	d.in = slices.DeleteFunc(d.in, func(v string) bool { return !slices.Contains(values, v) })
}

// settle filters in by notIn and the bounds, and clears present when no
// value is left.
func (d *keyDomain) settle() {
	if d.in != nil {
		d.in = slices.DeleteFunc(d.in, func(v string) bool { return !d.allows(v) })
		if len(d.in) == 0 {
			d.present = false
		}
	}
	if d.hasGt && d.hasLt && (d.lt <= d.gt || uint64(d.lt)-uint64(d.gt) < 2) {
		d.present = false
	}
}

// allows reports whether the label may take value v, by notIn and the
// bounds (not by in).
func (d *keyDomain) allows(v string) bool {
	if slices.Contains(d.notIn, v) {
		return false
	}
	if d.hasGt || d.hasLt {
		n, ok := parseInt64(v)
		if !ok || (d.hasGt && n <= d.gt) || (d.hasLt && n >= d.lt) {
			return false
		}
	}
	return true
}

// domain returns the key's domain; for a key the set does not constrain,
// a domain allowing anything, or only absence when the set is complete.
func (s *NodeSet) domain(key string) keyDomain {
	i, found := slices.BinarySearchFunc(s.keys, key, func(d keyDomain, k string) int { return cmp.Compare(d.key, k) })
	if found {
		return s.keys[i]
	}
	return keyDomain{key: key, absent: true, present: !s.complete}
}

// Contains reports whether node belongs to s: its name (when s fixes one)
// and its labels satisfy everything s says. A nil node belongs to no set.
func (s *NodeSet) Contains(node *corev1.Node) bool {
	if node == nil || s == nil {
		return false
	}
	if s.nameKnown && node.Name != s.name {
		return false
	}
	for i := range s.keys {
		d := &s.keys[i]
		v, ok := node.Labels[d.key]
		if !ok {
			if !d.absent {
				return false
			}
			continue
		}
		if !d.present || (d.in != nil && !slices.Contains(d.in, v)) || !d.allows(v) {
			return false
		}
	}
	if s.complete {
		for k := range node.Labels {
			if _, found := slices.BinarySearchFunc(s.keys, k, func(d keyDomain, k string) int { return cmp.Compare(d.key, k) }); !found {
				return false
			}
		}
	}
	return true
}
