package daemon

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Planner computes plans exactly as Compute does, and costs what changed:
// it remembers, for each DaemonSet it plans (by UID), what it read of
// every node and pod, and judges again only the objects that changed since
// that DaemonSet's last plan. Between two syncs of a steady cluster an
// informer hands the same node and pod objects again, so a warm Planner
// reads little more than each object's identity; see BENCHMARKS.md.
//
// The identity rule: a node or pod is the same as in the last plan when it
// is the same object (pointer) with the same non-empty resourceVersion.
// Anything else is read anew: a new object, a changed resourceVersion, or
// an empty one (an object without a resourceVersion is never remembered).
// An informer's cache never edits an object in place, so a controller fed
// by one is never served a stale verdict; a caller that edits objects in
// place must change their resourceVersion (or clear it) before planning
// again. What a plan judges from the DaemonSet is compared by value: a
// change of its placement fields (nodeName, nodeSelector, affinity,
// tolerations, hostNetwork) judges every node again, a change of its
// selector or owner claims every pod again, and a new revision or clock
// re-judges each pod's state from the facts kept (rollout.PodFacts).
//
// What a Planner does at each call, cheapest first:
//   - The first plan of a DaemonSet is computed as Compute computes it, at
//     Compute's cost; the Planner notes only the objects given.
//   - A plan is returned again, without computing it, while nothing it
//     was computed from has changed: the same nodes and pods (by the
//     identity rule, in the same order), the same revisions (the same
//     rule), a DaemonSet equal by value and the same options, with a
//     clock that moved forward. Once the Planner reads objects into what
//     it remembers (below), nodes replaced by new objects of the same
//     verdict (a heartbeat, a label no selector reads) count as the same.
//     Only a plan the clock cannot change is returned again: one with no
//     RequeueAfter (nothing on its way to available, no failed pod in
//     backoff), no RolloutPolicy and no standing; a pod available at one
//     time is available at every later one.
//   - Otherwise the Planner reads what changed into what it remembers and
//     judges only that, as described above. The first change after a
//     first plan reads every object once.
//
// A Planner may plan any DaemonSets and inputs in any order: no result
// depends on an earlier call (TestPlannerMatchesCompute and
// TestPlannerHistories check this over the conformance corpus and
// generated cluster histories, FuzzPlannerMatchesCompute and
// FuzzPlannerHistory over random call sequences). It keeps, per
// DaemonSet planned, a few hundred bytes per node and pod and a copy of
// the last plan and DaemonSet, for the MemoizedDaemonSets DaemonSets it
// planned last (planning another drops what it keeps of the one planned
// longest ago); Forget drops what it keeps of a DaemonSet that is gone.
// Its working memory (the view's slices) grows to fit the largest cluster
// it has planned and stays at that size. Until the next call the Planner
// still points to the nodes and pods it was given (a controller's
// informer cache holds them anyway).
//
// A Planner is not safe for concurrent use: one goroutine at a time. The
// zero value is ready to use; NewPlanner is the same.
type Planner struct {
	c      cluster
	memos  map[types.UID]*memo
	calls  uint64 // numbers the plans, for the memos' last use
	reused uint64 // the plans returned as kept (memo_reuse.go), for tests
}

// MemoizedDaemonSets is how many DaemonSets a Planner remembers the
// objects of (see Planner).
const MemoizedDaemonSets = 32

// NewPlanner returns an empty Planner.
func NewPlanner() *Planner {
	return &Planner{}
}

// Compute returns what Compute(ds, nodes, pods, opts) returns, with the
// same guarantees: the inputs are not modified, and the plan shares no
// memory with the Planner, so it stays valid after later calls. A nil p
// plans as Compute does.
func (p *Planner) Compute(ds *appsv1.DaemonSet, nodes []*corev1.Node, pods []*corev1.Pod, opts Options) (Plan, error) {
	if p == nil {
		return Compute(ds, nodes, pods, opts)
	}
	p.c.kept = true
	m := p.memoOf(ds)
	if m != nil && !m.planned {
		// A first plan is computed as Compute does; the memo remembers
		// only what it needs to return that plan again.
		m.planned = true
		plan, err := compute(ds, nodes, pods, opts, &p.c)
		m.keepPlan(ds, &plan, &opts, err)
		if m.last != nil {
			m.given = givenOf(nodes, pods)
		}
		return plan, err
	}
	if m != nil && m.given != nil {
		if m.given.same(nodes, pods) {
			if plan, ok := m.reusePlan(ds, &opts); ok {
				p.reused++
				return plan, nil
			}
		}
		m.given = nil // from now on the memo reads its objects into entries
	}
	if m != nil && !m.resolve(nodes, pods) {
		m = nil // the full build names what the memo cannot decide
	}
	if m != nil {
		if plan, ok := m.reusePlan(ds, &opts); ok {
			p.reused++
			return plan, nil
		}
	}
	p.c.memo = m
	plan, err := compute(ds, nodes, pods, opts, &p.c)
	if ds != nil && (m == nil || !m.built) {
		// Nothing planned from the memo, or it fell back: what it holds
		// no longer matches its orders.
		delete(p.memos, ds.UID)
	} else if m != nil {
		m.keepPlan(ds, &plan, &opts, err)
	}
	p.c.memo = nil
	return plan, err
}

// Forget drops what p remembers of the DaemonSet of that UID (a
// controller calls it when the DaemonSet is deleted). Its next plan, if
// any, reads every object anew. A nil p forgets nothing.
func (p *Planner) Forget(uid types.UID) {
	if p != nil {
		delete(p.memos, uid)
	}
}

// memoOf returns the memo of ds, new if there is none; nil when ds has no
// UID to key it by (Compute then reports the input).
func (p *Planner) memoOf(ds *appsv1.DaemonSet) *memo {
	if ds == nil || ds.UID == "" {
		return nil
	}
	p.calls++
	m := p.memos[ds.UID]
	if m == nil {
		if p.memos == nil {
			p.memos = make(map[types.UID]*memo)
		}
		if len(p.memos) >= MemoizedDaemonSets {
			p.dropOldestMemo()
		}
		m = &memo{}
		p.memos[ds.UID] = m
	}
	m.used = p.calls
	return m
}

// dropOldestMemo drops the memo used longest ago.
func (p *Planner) dropOldestMemo() {
	var oldest types.UID
	var at uint64
	for uid, m := range p.memos {
		if oldest == "" || m.used < at {
			oldest, at = uid, m.used
		}
	}
	delete(p.memos, oldest)
}
