package rollout

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Step is one rolling-update step: the budgets it worked with, what it
// counted, and what it chose. Creates are sorted by node name, Deletes by
// node name then pod name.
type Step struct {
	// MaxSurge and MaxUnavailable are the budgets scaled against Desired,
	// after upstream's default: when both are 0 and Desired is positive,
	// MaxUnavailable is 1.
	MaxSurge, MaxUnavailable int
	// Desired is the number of existing nodes that should run the pod.
	Desired int
	// NumUnavailable (maxSurge 0) is the number of nodes counted as
	// unavailable: no pod, an old and a new pod, an unavailable new pod,
	// several old or new pods, or an old unavailable pod (under
	// Policy.Strict too, whether the step replaced it or not).
	NumUnavailable int
	// NumSurge (surge) is the number of nodes counted as surging: a new pod
	// beside an old one that is not yet available, or several pods.
	NumSurge int
	// NumAvailable (surge) is the number of nodes whose pod (the old one
	// when both exist) is available.
	NumAvailable int
	// Candidates is the number of old available pods (maxSurge 0), or of
	// eligible nodes with an old available pod and no new one (surge), that
	// wait for the budget (under Policy.Strict, old unavailable pods too);
	// the step replaced the first ones in order, as many as the budget
	// allows. Nodes the policy holds (Node.Frozen, a wave barrier) are not
	// candidates.
	Candidates int
	// Creates (surge only) have no Pod: the step decides where, not what.
	Creates []Create
	Deletes []Delete
	// Policy is what the step counted for its Policy (see
	// RollingUpdatePolicy); nil under RollingUpdate.
	Policy *StepPolicy
}

// RollingUpdate computes one rolling-update step of ds, as upstream's
// rollingUpdate, from one Node per node that has pods or should run one
// (missing nodes included). Passing every node of the cluster is fine too: a
// node that should not run the pod (or is Missing) and has no pods, nil
// entries aside, has nothing to roll and is ignored, as upstream never sees
// it. hash is the current revision hash; a pod is new
// when IsPodUpdated(pod, hash, template generation) holds (an unparsable
// template generation counts as none). Availability is judged at now with
// ds.Spec.MinReadySeconds.
//
// When maxSurge is 0, old pods are deleted so that at most maxUnavailable
// nodes are unavailable (old unavailable pods always); the create pass of
// the next sync creates their successors. When maxSurge is positive, new
// pods are created beside old ones (beside unavailable old pods always,
// beside available ones within maxSurge) and old pods are deleted once their
// new pod is available. Where upstream picks candidates in Go map order, the
// step picks them in node order: by Node.Rank, then name (name alone when
// no node has a Rank, as under upstream's step). Nodes with Frozen set are
// left as they are. The step returns nothing to do for a DaemonSet whose
// strategy is not RollingUpdate.
//
// It fails when maxSurge or maxUnavailable is invalid (the *field.Error of
// UnavailableCount or SurgeCount) and, when surging, when an old pod
// without a new pod sits on a Missing node (a *MissingNodeError: upstream
// cannot look the node up and gives up the step). It also fails when ds is
// nil (ErrNilDaemonSet), when a node's name is empty or repeats an earlier
// node's (a *field.Error at nodes[i].name, i the later index), or when a
// node's States and Pods differ in length (a *field.Error at
// nodes[i].states). Errors name the field or the pod, not the DaemonSet,
// which is the caller's. It modifies nothing; nodes need not be sorted.
func RollingUpdate(ds *appsv1.DaemonSet, nodes []Node, hash string, now time.Time) (Step, error) {
	return rollingUpdate(ds, nodes, hash, now, Policy{}, false)
}

// RollingUpdatePolicy is RollingUpdate under p (see Policy), with the
// nodes' Frozen, Rank, Domain and Wave: the zero Policy over nodes without
// them gives RollingUpdate's step. Step.Policy holds the partition and the
// counts the policy needs, whatever p. It also fails, with a *field.Error
// under "policy", when p.Partition is negative or a per-domain budget
// does not scale. p is not modified.
func RollingUpdatePolicy(ds *appsv1.DaemonSet, nodes []Node, hash string, now time.Time, p Policy) (Step, error) {
	return rollingUpdate(ds, nodes, hash, now, p, true)
}

// rollingUpdate is the step; report says whether it fills Step.Policy.
func rollingUpdate(ds *appsv1.DaemonSet, nodes []Node, hash string, now time.Time, p Policy, report bool) (Step, error) {
	if ds == nil {
		return Step{}, ErrNilDaemonSet
	}
	for i := range nodes {
		if n := &nodes[i]; n.States != nil && len(n.States) != len(n.Pods) {
			return Step{}, field.Invalid(field.NewPath("nodes").Index(i).Child("states"), len(n.States),
				fmt.Sprintf("node %q has %d pods: one state per pod, or none", n.Name, len(n.Pods)))
		}
	}
	order, strict := sortedNodeOrder(nodes)
	if err := checkNodeNames(nodes, order, strict); err != nil {
		return Step{}, err
	}
	if err := checkPolicy(&p); err != nil {
		return Step{}, err
	}
	if ds.Spec.UpdateStrategy.Type != appsv1.RollingUpdateDaemonSetStrategyType {
		return Step{}, nil
	}
	var step Step
	for i := range nodes {
		if !nodes[i].Missing && nodes[i].ShouldRun {
			step.Desired++
		}
	}
	maxUnavailable, err := UnavailableCount(ds, step.Desired)
	if err != nil {
		return Step{}, err
	}
	maxSurge, err := SurgeCount(ds, step.Desired)
	if err != nil {
		return Step{}, err
	}
	if step.Desired > 0 && maxUnavailable == 0 && maxSurge == 0 {
		maxUnavailable = 1
	}
	step.MaxSurge, step.MaxUnavailable = maxSurge, maxUnavailable
	if report {
		step.Policy = &StepPolicy{Partition: p.Partition}
	}

	order = walkOrder(order, nodes)
	gen, genErr := GetTemplateGeneration(ds)
	if genErr != nil {
		gen = nil
	}
	s := stepper{ds: ds, hash: hash, gen: gen, now: now, p: p, surge: maxSurge != 0, open: math.MaxInt32}
	if err := s.run(&step, nodes, order); err != nil {
		return Step{}, err
	}
	slices.SortFunc(step.Deletes, func(a, b Delete) int {
		return cmp.Or(cmp.Compare(a.NodeName, b.NodeName), cmp.Compare(a.Pod.Name, b.Pod.Name))
	})
	slices.SortFunc(step.Creates, func(a, b Create) int { return cmp.Compare(a.NodeName, b.NodeName) })
	return step, nil
}

// sortedNodeOrder returns the indices of nodes in name order, without
// touching nodes; strict reports that the names were given strictly
// increasing, so that no two are equal (checkNodeNames then skips that
// check).
func sortedNodeOrder(nodes []Node) (order []int, strict bool) {
	order = make([]int, len(nodes))
	for i := range order {
		order[i] = i
	}
	// One pass tells the usual case, names given strictly increasing
	// (sorted and unique), from the rest, which is sorted.
	strict = true
	for i := 1; i < len(nodes); i++ {
		if nodes[i-1].Name >= nodes[i].Name {
			strict = false
			break
		}
	}
	if !strict && !slices.IsSortedFunc(nodes, func(a, b Node) int { return cmp.Compare(a.Name, b.Name) }) {
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(nodes[a].Name, nodes[b].Name) })
	}
	return order, strict
}

// walkOrder drops the idle nodes from order (node indices in name order)
// and re-sorts the rest by Rank, keeping name order among equal ranks. It
// reuses order.
func walkOrder(order []int, nodes []Node) []int {
	k, sorted := 0, true
	for _, i := range order {
		if idle(&nodes[i]) {
			continue
		}
		if k > 0 && nodes[i].Rank < nodes[order[k-1]].Rank {
			sorted = false
		}
		order[k] = i
		k++
	}
	order = order[:k]
	if !sorted {
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(nodes[a].Rank, nodes[b].Rank) })
	}
	return order
}

// idle reports whether n has nothing to roll: it may not run the pod (or is
// Missing) and holds no pod. Upstream's step only walks nodes that have pods
// or should run one, so such a node must not count as unavailable.
func idle(n *Node) bool {
	if n.ShouldRun && !n.Missing {
		return false
	}
	for _, pod := range n.Pods {
		if pod != nil {
			return false
		}
	}
	return true
}

// checkNodeNames rejects an empty node name and a name given twice, naming
// the index of the offending (later) entry. order lists nodes by name.
func checkNodeNames(nodes []Node, order []int, strict bool) error {
	for k, i := range order {
		name := nodes[i].Name
		if name == "" {
			return field.Required(field.NewPath("nodes").Index(i).Child("name"), "")
		}
		if !strict && k > 0 && nodes[order[k-1]].Name == name {
			later := max(i, order[k-1])
			return field.Duplicate(field.NewPath("nodes").Index(later).Child("name"), name)
		}
	}
	return nil
}

// MissingNodeError reports a surge step over an old pod, with no new pod
// beside it, on a node that does not exist (a Missing Node): upstream
// cannot look the node up and gives up the step. Recover it with
// errors.As.
type MissingNodeError struct {
	// Pod is the old pod's name; Node is the name of the node it targets.
	Pod, Node string
}

// Error names the pod and the node.
func (e *MissingNodeError) Error() string {
	return fmt.Sprintf("pod %q targets node %q, which does not exist", e.Pod, e.Node)
}
