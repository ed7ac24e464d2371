package daemon

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/rollout"
)

// RolloutPolicy shapes the rolling-update step beyond upstream's
// controller. The zero value is upstream's behaviour exactly, and costs
// nothing. The policy only narrows the rolling step: the create/delete pass
// (missing pods created, failed, excess and misplaced pods deleted) runs as
// upstream, whatever the policy.
//
// Revisions of new pods. Every pod a plan creates runs the current
// revision, under any policy: a node that joins outside the Scope, a
// failed pod replaced on a node kept by the Partition, a missing pod
// created while Paused. The reasons: a DaemonSet has one template, an old
// revision's template lives in ControllerRevision data a pure planner would
// have to decode and trust, and a node without a pod has nothing to "keep";
// upstream and OpenKruise's Advanced DaemonSet also create new pods from
// the current template. A node so given the current revision counts as
// updated: the partition then keeps fewer old nodes than asked, never
// more replacements than asked.
//
// What the plan reports. When the policy shapes the step (a Scope, an
// Order, a Canary, Waves, a DomainBudget, Strict or a partition above 0),
// Plan.Rolling.Policy holds the partition and the counts the policy needs
// (see rollout.StepPolicy); otherwise the plan runs upstream's step and it
// is nil.
//
// Annotations. A DaemonSet asks for a policy without Go code through its
// rollout.daemonplan.io/ annotations; package daemon/progressive reads
// them (progressive.ForDaemonSet) and judges a rollout under the policy
// (progressive.Judge). A DaemonSet without such keys has not opted in.
type RolloutPolicy struct {
	// Partition is the number of desired nodes in Scope that keep their old
	// pods: the step stops replacing once only that many in-scope nodes run
	// only old pods. An integer, or a percentage of the desired nodes in
	// Scope rounded up (keeping more old nodes, not fewer): "10%" of 25
	// nodes keeps 3. A partition at or above the desired count updates
	// nothing (not an error); a negative integer, or a percentage that is
	// not between 0% and 100%, is an error at rollout.partition. Which
	// nodes are kept follows Order: the last ones are. Unavailable old
	// pods are replaced first, but within the partition too. Lower it to
	// release the rollout; nil (or 0) keeps none.
	Partition *intstr.IntOrString
	// Scope selects the nodes the step may update; nodes it does not match
	// keep their pods (old or new, available or not) and are left out of
	// the Partition's count. Pods created on them get the current revision
	// (see RolloutPolicy). nil updates every node; an empty selector
	// matches every node; a malformed one is an error at rollout.scope.
	// Missing nodes (pods targeting nodes not in the list) have no labels.
	Scope *metav1.LabelSelector
	// Paused stops the rolling step: the plan has no Rolling step, and
	// replaces no old pod. The create/delete pass still runs: missing pods
	// are created, at the current revision, failed pods replaced.
	Paused bool
	// Order is the order in which the step picks nodes for update within
	// the budgets; the zero value is by node name, as this library does
	// upstream's map order.
	Order UpdateOrder
	// DomainBudget, when set, adds budgets per failure domain to the global
	// ones.
	DomainBudget *DomainBudget
	// Waves, when set, puts a barrier between the values of Order.Label:
	// the nodes of one value form a wave, and no node of a later wave is
	// started until every desired node of the earlier waves runs an
	// updated, available pod and Waves.Bake has passed since the last of
	// them became available. Requires Order.Label or a Canary (an error at
	// rollout.order.label otherwise). Only Bake is read: the plan names
	// the waves itself (CanaryWave, then WaveOf). Waves go in Order's
	// order, after the canary (Values first, in that order; then the other
	// values in string order; then nodes without the label, and missing
	// nodes, as one last wave); without Order.Label, the canary and then
	// the rest (RestWave). A Canary turns the barrier on without Waves
	// (a zero Bake).
	//
	// How the barrier meets the rest of the policy, and the cluster:
	//   - It is a function of the state, like the rest of the plan: should
	//     a node of an earlier wave lose its available pod, later waves
	//     start nothing more until it is back, and its new availability
	//     restarts the bake (the time comes from the pods' Ready condition,
	//     lastTransitionTime plus minReadySeconds; unset counts as long
	//     ago).
	//   - A desired node whose pod never becomes available holds every
	//     later wave: the rollout stops where it broke. To go on without
	//     such a node, take it out of the Scope.
	//   - Scope: nodes outside it neither wait for nor hold a wave; a wave
	//     with no node in scope is done at once.
	//   - Unavailable old pods of later waves are held too, also without
	//     Strict: a revision that breaks pods must not reach a later wave
	//     that way. They still count against the budget.
	//   - Partition keeps the last nodes of the order, that is of the last
	//     waves; a wave with kept nodes is never done.
	//   - Strict, DomainBudget, maxUnavailable and maxSurge apply inside
	//     the open waves as without the barrier.
	//   - Surge: a node is done once its old pod is gone, so a wave opens
	//     the next one a sync after its last old pod is removed.
	//   - Missing nodes and nodes that should not run the pod hold no
	//     wave; the step's replacements on them wait for their wave
	//     (missing nodes: the last). Removals (an old pod beside an
	//     available new one, a pod on a node that may no longer run one)
	//     are never held.
	//   - Paused stops the step, and so the waves, altogether.
	// A plan's Rolling.Policy.Wave (rollout.WaveProgress) says where the
	// waves stand; Plan.RequeueAfter includes the end of a bake.
	Waves *rollout.WaveBarrier
	// Strict counts old pods that are already unavailable against the
	// budget: they are replaced first, but only within maxUnavailable (or
	// maxSurge), one budget slot each, instead of all at once as upstream
	// does (upstream replaces every unavailable old pod at once, so a
	// revision that never becomes ready is replaced everywhere it broke;
	// OpenKruise's Advanced DaemonSet does the same for its Standard
	// type). With maxSurge 0, an unavailable old pod that waits (its
	// DomainBudget spent) still takes its slot of maxUnavailable: no
	// available pod is replaced beyond what the unavailable ones leave.
	Strict bool
	// Canary, when set, makes a first wave of a few nodes (see CanarySpec).
	Canary *CanarySpec
}

// UpdateOrder orders nodes for update. Keys apply in turn: Label's value
// rank, then Compare, then the node name. Unavailable old pods are
// replaced before available ones, each kind in this order. The order must
// be deterministic; Compare is called only with non-nil nodes.
type UpdateOrder struct {
	// Label, when set, orders nodes by their value of this label key (for
	// example topology.kubernetes.io/zone), so that one value's nodes go
	// before the next value's, budget permitting. Values listed in Values
	// go first, in that order; other values follow in string order; nodes
	// without the label, and missing nodes, go last. A key that no node
	// carries is not an error: every node then ties and the next key
	// decides. A malformed key is an error at rollout.order.label.
	Label  string
	Values []string
	// Compare, when set, is a caller's priority: negative when a goes
	// first. It must be a strict weak order and deterministic; missing
	// nodes go after every node.
	Compare func(a, b *corev1.Node) int
}

// DomainBudget applies maxUnavailable and maxSurge per value of a node
// label, each scaled against the desired nodes of that value (a percentage
// rounded up, at least 1), on top of the DaemonSet's global budgets: no
// domain gets more unavailable (maxSurge 0) or surging nodes at once.
// Nodes without the label, and missing nodes, share one domain, the empty
// value (a documented outcome, not an error). Old pods that are already
// unavailable and replaced for free (not Strict) count in their domain but
// are not held back by it, as they are not by the global budget.
type DomainBudget struct {
	Label          string
	MaxUnavailable *intstr.IntOrString
	MaxSurge       *intstr.IntOrString
}

var policyPath = field.NewPath("rollout")

// CanarySpec says what the canary (RolloutPolicy.Canary) is: a first
// wave of a few desired nodes in scope, before the waves of the order
// label (or, without one, before the rest of the nodes as one wave,
// RestWave): the nodes that run a new revision first,
// so that a person or a health gate can judge it before it goes further.
// It turns on the wave barrier (RolloutPolicy.Waves, with a zero Bake
// when that is nil; a Bake set there applies after the canary as after
// every wave), and the canary's nodes go first in the update order, so
// that a Partition never keeps them unless it keeps every other node.
//
// Which nodes (RolloutPolicy.CanaryNodes): Count of the desired nodes in
// scope (a percentage of them rounded up; at least 1, at most all of
// them), taken in turn from each value of Spread, one node of each value
// per round: the values in Order's order when Spread is Order.Label
// (Order.Values first, then string order), in string order otherwise;
// nodes without the label as one last value. Within a value, nodes go in
// update order (CompareNodes, then name). Nodes that already run a live
// updated pod are taken before every node that does not, the earliest
// updated first (by their updated pod's creation time; ties in the turns
// above), so that the canary of a rollout under way stays the nodes it
// started with when nodes join or leave: a node that joins gets the
// current revision from the create pass, but later than the canary did.
// (A canary node whose updated pod is recreated, or a node that joined
// after the template changed but before the canary started, can so trade
// places with another node that runs the new revision.) Missing nodes,
// and nodes that should not run the pod, are never in the canary.
type CanarySpec struct {
	// Count is the canary's size: an integer at least 1 or a percentage
	// from 1% to 100% of the desired nodes in scope; anything else is an
	// error at rollout.canary.count.
	Count intstr.IntOrString
	// Spread is the node label whose values the canary is spread across,
	// "" for none (update order only); a malformed key is an error at
	// rollout.canary.spread.
	Spread string
}
