package whatif

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/affinity"
	"github.com/daemonplan/daemonplan/daemon/eligibility"
	"github.com/daemonplan/daemonplan/daemon/internal/placerule"
	"github.com/daemonplan/daemonplan/tolerations"
)

// Placement is the answer of PlacementFor.
type Placement string

// The answers of PlacementFor.
const (
	// PlacementYes: a pod of the DaemonSet would be created on every node
	// of the template.
	PlacementYes Placement = "Yes"
	// PlacementNo: on no node of the template.
	PlacementNo Placement = "No"
	// PlacementMaybe: it depends on a label value or the node name, which
	// the template does not fix.
	PlacementMaybe Placement = "Maybe"
	// PlacementPending: the DaemonSet controller creates the pod, but the
	// scheduler leaves it Pending: the node (or template) does not declare
	// a feature the pod requires (Reason ReasonUndeclaredFeatures). The pod
	// exists and takes nothing from the node.
	PlacementPending Placement = "Pending"
)

// PlacementVerdict is a Placement with what decided it.
type PlacementVerdict struct {
	Placement Placement
	// Reason is the check that decided a No or a Maybe, in upstream's
	// order: eligibility.IneligibleNodeName (the template's nodeName; Maybe when
	// the template's name is unknown), eligibility.IneligibleNodeAffinity, or
	// the taint reasons (never Maybe: the template's taints are known);
	// ReasonUndeclaredFeatures for Pending. "" for Yes.
	Reason eligibility.Ineligibility
	// Affinity names the deciding nodeSelector key or term requirement
	// when Reason is eligibility.IneligibleNodeAffinity.
	Affinity affinity.SetVerdict
	// Taint is the deciding untolerated taint for the taint reasons: the
	// first NoExecute one when there is one, else the first NoSchedule one.
	Taint corev1.Taint
	// Features names the node features the pod requires and the node does
	// not declare, for ReasonUndeclaredFeatures: sorted and joined by ", "
	// (a string, so that verdicts stay comparable with ==).
	Features string
}

// String returns the verdict on one line: the placement, then for a No or
// a Maybe the reason and what decided it: "Yes"; "No: UntoleratedTaint
// (nvidia.com/gpu=true:NoSchedule)"; "Maybe: NodeAffinityMismatch
// (required term 0, matchExpressions[1] topology.kubernetes.io/zone:
// Sometimes)"; "No: NodeAffinityMismatch (nodeSelector kubernetes.io/os:
// Never)"; "Pending: UndeclaredFeatures (not declared:
// RestartAllContainersOnContainerExits)". The zero verdict is "Unknown".
// The text is meant to be read, not parsed.
func (v PlacementVerdict) String() string {
	if v.Placement == "" {
		return "Unknown"
	}
	if v.Reason == "" {
		return string(v.Placement)
	}
	s := string(v.Placement) + ": " + string(v.Reason)
	switch v.Reason {
	case eligibility.IneligibleNodeAffinity:
		a := v.Affinity
		switch {
		case a.NodeSelector:
			s += " (nodeSelector " + a.NodeSelectorKey
		case a.Term < 0:
			s += " (no required term can match"
		default:
			list := "matchExpressions"
			if a.Field {
				list = "matchFields"
			}
			s += fmt.Sprintf(" (required term %d, %s[%d] %s", a.Term, list, a.Requirement, a.Key)
		}
		s += ": " + a.Truth.String() + ")"
	case eligibility.IneligibleTaint, eligibility.IneligibleNoExecuteTaint:
		s += " (" + v.Taint.ToString() + ")"
	case ReasonUndeclaredFeatures:
		s += " (not declared: " + v.Features + ")"
	}
	return s
}

// PlacementFor judges the template against e, a DaemonSet's compiled
// placement check: Yes when daemon.NodeShouldRunDaemonPod's shouldRun (with
// e's comparison-operator gate) is true on every node the template allows,
// No when it is false on every one, Maybe when it depends on what the
// template leaves open. Yes and No are exact; Maybe may also be answered
// where correlated requirements on one key would settle it (see
// affinity.NodeMatcher.MatchSet). The checks run in upstream's order, the
// one rule order eligibility.Check applies to a node: the first check
// that is not always satisfied decides, a No winning over a Maybe. A nil e (as
// eligibility.New gives for a nil DaemonSet) or t gives No with
// eligibility.IneligibleNilNode. It judges the controller's placement only: the
// scheduler's declared-features check needs the pod, and PodsForTemplate
// and the function PlacementFor apply it. It does not allocate.
func (t *CompiledTemplate) PlacementFor(e *eligibility.Check) PlacementVerdict {
	if e == nil || t == nil {
		return PlacementVerdict{Placement: PlacementNo, Reason: eligibility.IneligibleNilNode}
	}
	nameTruth := affinity.Always
	if nodeName := e.NodeName(); nodeName != "" {
		switch {
		case t.name == "":
			nameTruth = affinity.Sometimes
		case t.name != nodeName:
			nameTruth = affinity.Never
		}
	}
	var sv affinity.SetVerdict
	v := placerule.Decide(nameTruth,
		func() affinity.Truth { sv = e.MatchSet(t.set); return sv.Truth },
		func(effects tolerations.EffectSet) (corev1.Taint, bool) { return e.UntoleratedTaint(t.taints, effects) })
	switch v.Check {
	case placerule.NodeName:
		return PlacementVerdict{Placement: placementOf(v.Truth), Reason: eligibility.IneligibleNodeName}
	case placerule.NodeAffinity:
		return PlacementVerdict{Placement: placementOf(v.Truth), Reason: eligibility.IneligibleNodeAffinity, Affinity: sv}
	case placerule.Taint:
		return PlacementVerdict{Placement: PlacementNo, Reason: eligibility.IneligibleTaint, Taint: v.Taint}
	case placerule.NoExecuteTaint:
		return PlacementVerdict{Placement: PlacementNo, Reason: eligibility.IneligibleNoExecuteTaint, Taint: v.Taint}
	}
	return PlacementVerdict{Placement: PlacementYes}
}

// placementOf is the Placement of a rule verdict's truth: No for Never,
// Maybe for Sometimes, Yes otherwise.
func placementOf(t affinity.Truth) Placement {
	switch t {
	case affinity.Never:
		return PlacementNo
	case affinity.Sometimes:
		return PlacementMaybe
	}
	return PlacementYes
}

// PlacementFor compiles template and ds's placement check and judges them
// (see CompiledTemplate.PlacementFor); enableComparisonOperators is the
// TaintTolerationComparisonOperators gate. Where that gives Yes or Maybe,
// it then judges ds's pod template against the template's DeclaredFeatures
// as the scheduler does (PlacementPending when a required feature is not
// declared), as PodsForTemplate does with the NodeDeclaredFeatures gate on.
// To judge one template against many DaemonSets, or the reverse, compile
// each once with CompileTemplate and eligibility.New instead (that
// judges placement only; PodsForTemplate judges both). A nil ds gives No
// with eligibility.IneligibleNilNode; an invalid template an error.
func PlacementFor(template NodeTemplate, ds *appsv1.DaemonSet, enableComparisonOperators bool) (PlacementVerdict, error) {
	t, err := CompileTemplate(template)
	if err != nil {
		return PlacementVerdict{}, err
	}
	v := t.PlacementFor(eligibility.New(ds, enableComparisonOperators))
	if v.Placement != PlacementNo {
		v = newFeatureCheck(t.declared, false).judge(&ds.Spec.Template.Spec, v)
	}
	return v, nil
}
