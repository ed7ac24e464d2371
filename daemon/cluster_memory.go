package daemon

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon/internal/namesort"
	"github.com/daemonplan/daemonplan/rollout"
)

// scratch is the working memory a cluster view is built in: the per-pod
// and per-node slices of the view, the nodes given to the rolling-update
// step and the create/delete decisions before the burst cap. A Planner
// keeps it from one plan to the next (see cluster.kept); nothing in it
// outlives a plan in use: what a plan returns is copied out (see
// cluster.detach).
type scratch struct {
	// The per-pod and per-node slices, which a plan fills from the start.
	placed                            buffer[placedPod]
	claimed, byName, grouped          buffer[*corev1.Pod]
	states                            buffer[rollout.PodState]
	kinds                             buffer[podKind]
	claimedKeys, placedKeys, nodeKeys buffer[namesort.Key]
	nodes, rollout                    buffer[rollout.Node]
	info                              buffer[nodeInfo]
	sortBuf                           []namesort.Key // holds no pointers, and namesort.Sort writes what it reads
	// The slices a plan grows by appending, short in a steady cluster.
	adopt, release, unplaced []*corev1.Pod
	missing                  []rollout.Node
	creates                  []Create
	deletes                  []Delete
	// touched is a sink for the reads the view's passes make ahead of
	// deciding (see package readahead).
	touched int
}

// buffer is a per-pod or per-node slice a Planner keeps for the next
// plan. A plan takes it with room for the most elements it will write,
// fills it from the start (appending, or by index up to that length) and
// puts back what it wrote. Elements before dirty may hold what a plan
// wrote; the rest of its memory is zero. Memory a plan overwrites is not
// cleared first: put clears only what earlier plans left past what this
// one wrote, so that between plans the buffer holds nothing of an older
// plan (no pointer to its pods), and a small plan after a large one does
// not clear the large one's memory again each time.
type buffer[T any] struct {
	s     []T
	dirty int
}

// take returns the buffer emptied, with room for n elements, for a plan
// that writes at most n of them: its own memory when that is large enough,
// else new memory, which the buffer keeps. A nil buffer and n == 0 give
// nil, so that empty results stay nil as Compute's are.
func (b *buffer[T]) take(n int) []T {
	if cap(b.s) < n {
		b.s, b.dirty = make([]T, 0, n), 0 // new memory is already zero
	}
	// What this plan writes counts from now: should it fail before put,
	// the next put clears it.
	b.dirty = max(b.dirty, n)
	return b.s[:0]
}

// put records s, the slice take returned as the plan left it, as what the
// buffer holds, and clears what earlier plans wrote past it.
func (b *buffer[T]) put(s []T) {
	if cap(s) != cap(b.s) { // grown past what take gave: new memory
		b.s, b.dirty = s[:0], len(s)
		return
	}
	clear(b.s[len(s):b.dirty:cap(b.s)])
	b.dirty = len(s)
}

// reuse returns *p emptied, with room for n elements: its own memory,
// cleared whole so that it holds no pointer of an earlier plan, when large
// enough, else new memory, which *p then keeps. It is for the short slices
// a plan grows by appending (see buffer for the per-pod and per-node
// ones). A nil *p and n == 0 give nil.
func reuse[T any](p *[]T, n int) []T {
	if cap(*p) < n {
		*p = make([]T, 0, n) // new memory is already zero
		return *p
	}
	s := (*p)[:cap(*p)]
	clear(s)
	return s[:0]
}

// ownDecisions returns the manager's decisions d as the plan may hold
// them: d itself when the view's memory is not kept (kept false, Compute),
// which spares a copy, else a copy that no later plan overwrites.
func ownDecisions[T any](d []T, kept bool) []T {
	if !kept {
		return slices.Clip(d)
	}
	return slices.Clone(d)
}
