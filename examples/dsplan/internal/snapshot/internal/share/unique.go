package share

import (
	"reflect"
	"unique"

	corev1 "k8s.io/api/core/v1"
)

// A Uniquer makes every string of a decoded pod or node the canonical
// copy that unique.Make keeps of it (unique.Handle.Value), whatever object
// it is in. Like a Sharer it follows the exported string fields, structs,
// pointers and slices of a type by a plan made once per type. A Uniquer
// is not safe for concurrent use: each worker has its own.
//
// The fast path uses a Sharer, which costs less (see Sharer);
// BenchmarkShareStrings pairs the two, and the Uniquer is kept for that.
type Uniquer struct {
	planner Sharer
}

// NewUniquer returns a Uniquer.
func NewUniquer() *Uniquer {
	return &Uniquer{planner: Sharer{plans: map[reflect.Type]*sharePlan{}}}
}

// Pod makes p's strings canonical.
func (u *Uniquer) Pod(p *corev1.Pod) { u.canon(p) }

// Node makes n's strings canonical.
func (u *Uniquer) Node(n *corev1.Node) { u.canon(n) }

// canon walks *p.
func (u *Uniquer) canon(p any) {
	v := reflect.ValueOf(p).Elem()
	if t := u.planner.typeOf(v.Type()); t != nil {
		canonWalk(v, t)
	}
}

// canonWalk replaces the strings of v by their canonical copies.
func canonWalk(v reflect.Value, t *shareType) {
	switch t.kind {
	case reflect.String:
		if str := v.String(); str != "" {
			v.SetString(unique.Make(str).Value())
		}
	case reflect.Struct:
		for _, f := range t.plan.fields {
			canonWalk(v.Field(f.index), f.t)
		}
	case reflect.Pointer:
		if !v.IsNil() {
			canonWalk(v.Elem(), t.elem)
		}
	case reflect.Slice:
		for i := range v.Len() {
			canonWalk(v.Index(i), t.elem)
		}
	}
}
