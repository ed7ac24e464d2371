package eligibility

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/affinity"
	"github.com/daemonplan/daemonplan/daemon/internal/placerule"
	"github.com/daemonplan/daemonplan/tolerations"
)

// Check is the placement check of one DaemonSet, compiled once: the
// template's nodeName, its nodeSelector and required node affinity, and its
// tolerations merged with the daemon tolerations. Checking a node then
// parses nothing and allocates nothing. A Check is immutable and safe
// for concurrent use; it keeps no reference to the DaemonSet.
type Check struct {
	nodeName    string
	matcher     *affinity.NodeMatcher
	tolerations []corev1.Toleration
	comparison  bool
}

// New compiles the placement check of ds. enableComparisonOperators
// is the TaintTolerationComparisonOperators feature gate (Gt and Lt
// tolerations). Parse errors in the required node affinity are not errors:
// like upstream, the terms that do not parse never match (see
// affinity.NewNodeMatcher). A nil ds gives nil, which like the zero
// Check admits no node: every method accepts a nil Check.
func New(ds *appsv1.DaemonSet, enableComparisonOperators bool) *Check {
	if ds == nil {
		return nil
	}
	spec := &ds.Spec.Template.Spec
	return &Check{
		nodeName:    spec.NodeName,
		matcher:     affinity.NewNodeMatcher(spec),
		tolerations: tolerations.WithDaemonTolerations(spec.Tolerations, spec.HostNetwork),
		comparison:  enableComparisonOperators,
	}
}

// Verdict is whether one node may run the DaemonSet's pod
// (Check.Explain): may a new pod be placed there, may an existing
// one stay, and the reason when not.
type Verdict struct {
	// ShouldRun: a new daemon pod may be placed on the node.
	ShouldRun bool
	// ShouldContinueRunning: a daemon pod already on the node may stay.
	ShouldContinueRunning bool
	// Reason is why ShouldRun is false; "" when it is true.
	Reason Ineligibility
	// Taint is the deciding untolerated taint, for the taint reasons: the
	// first NoExecute one when there is one, else the first NoSchedule one.
	Taint corev1.Taint

	// The fields below are set by Explain only (ShouldRun does not build
	// them), each for its reason.

	// NodeName is the template's nodeName, for IneligibleNodeName.
	NodeName string
	// Affinity names the nodeSelector key, or every required term's first
	// failing requirement, for IneligibleNodeAffinity.
	Affinity affinity.Mismatch
	// UntoleratedTaints are every NoSchedule and NoExecute taint of the
	// node the pod does not tolerate, in node order, for the taint reasons
	// (autoscalers print them all). Whether a pod already on the node may
	// stay is ShouldContinueRunning: only when none of them is NoExecute.
	UntoleratedTaints []corev1.Taint
}

// Ineligibility says why a node may not run a new daemon pod (see
// Verdict.Reason).
type Ineligibility string

// The reasons a node may not run a new daemon pod, in the order they are
// checked.
const (
	// IneligibleNilNode: the node is nil (or the DaemonSet was nil).
	IneligibleNilNode Ineligibility = "NilNode"
	// IneligibleNodeName: the template's nodeName names another node.
	IneligibleNodeName Ineligibility = "NodeNameMismatch"
	// IneligibleNodeAffinity: the template's nodeSelector or required node
	// affinity does not match the node.
	IneligibleNodeAffinity Ineligibility = "NodeAffinityMismatch"
	// IneligibleTaint: the node has an untolerated NoSchedule taint and
	// every NoExecute taint is tolerated: a running pod may stay.
	IneligibleTaint Ineligibility = "UntoleratedTaint"
	// IneligibleNoExecuteTaint: the node has an untolerated NoExecute taint:
	// a running pod must go too.
	IneligibleNoExecuteTaint Ineligibility = "UntoleratedNoExecuteTaint"
)

// ShouldRun returns upstream's NodeShouldRunDaemonPod verdict for node:
// shouldRun when a new daemon pod may be placed there, shouldContinueRunning
// when a pod already there may stay. A node fails both when the template's
// nodeName names another node or the nodeSelector or required node affinity
// does not match; with an untolerated NoSchedule or NoExecute taint it may
// not get a new pod, and a running pod may stay only when every NoExecute
// taint is tolerated. A nil node fails both. It does not allocate.
func (e *Check) ShouldRun(node *corev1.Node) (shouldRun, shouldContinueRunning bool) {
	v := e.verdict(node)
	return v.ShouldRun, v.ShouldContinueRunning
}

// Explain is ShouldRun with what failed, named exactly: the template's
// nodeName, the nodeSelector key or every affinity term's failing
// requirement (see affinity.NodeMatcher.Explain), or every untolerated
// NoSchedule and NoExecute taint. It does not allocate on a node that may
// run the pod, nor for a nodeName or nodeSelector mismatch; it allocates
// one slice to list failing affinity terms or untolerated taints.
func (e *Check) Explain(node *corev1.Node) Verdict {
	v := e.verdict(node)
	switch v.Reason {
	case IneligibleNodeName:
		v.NodeName = e.nodeName
	case IneligibleNodeAffinity:
		v.Affinity, _ = e.matcher.Explain(node)
	case IneligibleTaint, IneligibleNoExecuteTaint:
		v.UntoleratedTaints = e.untoleratedTaints(node)
	}
	return v
}

// untoleratedTaints lists every NoSchedule and NoExecute taint of node the
// compiled tolerations do not tolerate, in node order.
func (e *Check) untoleratedTaints(node *corev1.Node) []corev1.Taint {
	var out []corev1.Taint
	taints := node.Spec.Taints
	for i := range taints {
		t, found := tolerations.FindUntoleratedTaint(taints[i:i+1], e.tolerations, tolerations.NoSchedule|tolerations.NoExecute, e.comparison)
		if !found {
			continue
		}
		if out == nil {
			out = make([]corev1.Taint, 0, len(taints)-i)
		}
		out = append(out, t)
	}
	return out
}

// verdict is the placement decision without the details Explain adds.
func (e *Check) verdict(node *corev1.Node) Verdict {
	if node == nil || e == nil || e.matcher == nil {
		return Verdict{Reason: IneligibleNilNode}
	}
	return verdictOf(placerule.Decide(nodeNameTruth(e.nodeName, node),
		func() affinity.Truth { return placerule.Of(e.matcher.Match(node)) },
		func(effects tolerations.EffectSet) (corev1.Taint, bool) {
			if len(node.Spec.Taints) == 0 {
				return corev1.Taint{}, false
			}
			return tolerations.FindUntoleratedTaint(node.Spec.Taints, e.tolerations, effects, e.comparison)
		}))
}

// nodeNameTruth judges the template's nodeName on node: Never when it
// names another node.
func nodeNameTruth(templateNodeName string, node *corev1.Node) affinity.Truth {
	return placerule.Of(templateNodeName == "" || templateNodeName == node.Name)
}

// verdictOf reads upstream's two answers from the rule order's verdict on
// one node (never Sometimes): a node with an untolerated NoSchedule taint
// alone may keep its pod.
func verdictOf(v placerule.Verdict) Verdict {
	switch v.Check {
	case placerule.NodeName:
		return Verdict{Reason: IneligibleNodeName}
	case placerule.NodeAffinity:
		return Verdict{Reason: IneligibleNodeAffinity}
	case placerule.Taint:
		return Verdict{ShouldContinueRunning: true, Reason: IneligibleTaint, Taint: v.Taint}
	case placerule.NoExecuteTaint:
		return Verdict{Reason: IneligibleNoExecuteTaint, Taint: v.Taint}
	}
	return Verdict{ShouldRun: true, ShouldContinueRunning: true}
}

// ShouldRun returns whether a new pod of ds may be placed on node
// (shouldRun) and whether a pod of ds already there may stay
// (shouldContinueRunning), as upstream's NodeShouldRunDaemonPod, with
// the TaintTolerationComparisonOperators gate off. It judges the one node
// straight from the template, compiling nothing and allocating nothing
// (see affinity.MatchNode and tolerations.FindUntoleratedDaemonTaint); to
// judge many nodes, New compiles the check once. A nil node or ds
// gives false, false. It modifies nothing.
func ShouldRun(node *corev1.Node, ds *appsv1.DaemonSet) (shouldRun, shouldContinueRunning bool) {
	if node == nil || ds == nil {
		return false, false
	}
	spec := &ds.Spec.Template.Spec
	v := verdictOf(placerule.Decide(nodeNameTruth(spec.NodeName, node),
		func() affinity.Truth { return placerule.Of(affinity.MatchNode(spec, node)) },
		func(effects tolerations.EffectSet) (corev1.Taint, bool) {
			if len(node.Spec.Taints) == 0 {
				return corev1.Taint{}, false
			}
			return tolerations.FindUntoleratedDaemonTaint(node.Spec.Taints, spec.Tolerations, spec.HostNetwork, effects, false)
		}))
	return v.ShouldRun, v.ShouldContinueRunning
}

// NodeName returns the template's spec.nodeName: when it is not "", a new
// daemon pod may run only on the node of that name (IneligibleNodeName
// elsewhere). "" for a nil Check.
func (e *Check) NodeName() string {
	if e == nil {
		return ""
	}
	return e.nodeName
}

// MatchSet judges the template's nodeSelector and required node affinity
// on every node of s at once, for callers that reason about nodes not yet
// created (see affinity.NodeMatcher.MatchSet): Always when every node of s
// matches, Never when none does, Sometimes when it depends on what s leaves
// open. A nil Check, or the zero one, matches no node: Never, with
// Term and Requirement -1. It does not allocate.
func (e *Check) MatchSet(s *affinity.NodeSet) affinity.SetVerdict {
	if e == nil || e.matcher == nil {
		return affinity.SetVerdict{Truth: affinity.Never, Term: -1, Requirement: -1}
	}
	return e.matcher.MatchSet(s)
}

// UntoleratedTaint returns the first taint of taints whose effect is in
// effects and which the pod does not tolerate (its template's tolerations
// with the daemon tolerations, under this Check's comparison-operator
// gate), and whether there is one: what ShouldRun asks of a node's taints,
// for taints that are not on a node yet. A nil Check tolerates
// nothing. It does not allocate.
func (e *Check) UntoleratedTaint(taints []corev1.Taint, effects tolerations.EffectSet) (corev1.Taint, bool) {
	if e == nil {
		return tolerations.FindUntoleratedTaint(taints, nil, effects, false)
	}
	return tolerations.FindUntoleratedTaint(taints, e.tolerations, effects, e.comparison)
}

// Unsatisfiable reports the parts of the template's nodeSelector and
// required node affinity that no node can ever satisfy (see
// affinity.NodeMatcher.Unsatisfiable): a DaemonSet with such an error in
// every term never gets a pod. nil when every part can match, and for a
// nil Check or one compiled from a nil DaemonSet.
func (e *Check) Unsatisfiable() error {
	if e == nil || e.matcher == nil {
		return nil
	}
	return e.matcher.Unsatisfiable()
}
