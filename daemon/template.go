package daemon

import (
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/affinity"
	"github.com/daemonplan/daemonplan/tolerations"
)

// NodeTemplate describes the nodes an autoscaler's node group would create,
// before any exists: what it knows of their labels and their taints.
type NodeTemplate struct {
	// Name is the node name when known; "" means any name.
	Name string
	// Labels are labels every node carries, with these values.
	Labels map[string]string
	// Requirements constrain labels whose values the template does not fix
	// (key In values, NotIn, Exists, DoesNotExist, Gt, Lt), as a node
	// group's or NodePool's requirements do.
	Requirements []corev1.NodeSelectorRequirement
	// LabelsComplete: the nodes carry no label but those Labels and
	// Requirements name. When false (the default), a node may carry any
	// other label with any value, as nodes get labels at registration and
	// from agents that an autoscaler cannot know.
	LabelsComplete bool
	// Taints are the taints every node carries, all of them (leave out the
	// startup taints that will be gone before the pods are placed).
	Taints []corev1.Taint
}

// CompiledTemplate is a NodeTemplate compiled once by CompileTemplate, to be
// judged against many DaemonSets. It is immutable and safe for concurrent
// use; it keeps no reference to the template.
type CompiledTemplate struct {
	set    *affinity.NodeSet
	name   string
	taints []corev1.Taint
}

// CompileTemplate compiles t. It returns an error naming the field when a
// label or requirement is invalid or when the requirements on a key allow
// no node.
func CompileTemplate(t NodeTemplate) (*CompiledTemplate, error) {
	set, err := affinity.NewNodeSet(t.Name, t.Labels, t.Requirements, t.LabelsComplete)
	if err != nil {
		return nil, fmt.Errorf("node template %q: %w", t.Name, err)
	}
	c := &CompiledTemplate{set: set, name: t.Name}
	for i := range t.Taints {
		c.taints = append(c.taints, *t.Taints[i].DeepCopy())
	}
	return c, nil
}

// Contains reports whether node is one of the nodes the template allows:
// its name and labels satisfy the template and it carries exactly the
// template's taints (in any order). A nil node is in no template.
func (c *CompiledTemplate) Contains(node *corev1.Node) bool {
	if c == nil || !c.set.Contains(node) || len(node.Spec.Taints) != len(c.taints) {
		return false
	}
	for i := range c.taints {
		if !slices.ContainsFunc(node.Spec.Taints, func(t corev1.Taint) bool {
			return t.Key == c.taints[i].Key && t.Value == c.taints[i].Value && t.Effect == c.taints[i].Effect
		}) {
			return false
		}
	}
	return true
}

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
)

// PlacementVerdict is a Placement with what decided it.
type PlacementVerdict struct {
	Placement Placement
	// Reason is the check that decided a No or a Maybe, in upstream's
	// order: IneligibleNodeName (the template's nodeName; Maybe when the
	// template's name is unknown), IneligibleNodeAffinity, or the taint
	// reasons (never Maybe: the template's taints are known). "" for Yes.
	Reason IneligibleReason
	// Affinity names the deciding nodeSelector key or term requirement
	// when Reason is IneligibleNodeAffinity.
	Affinity affinity.SetVerdict
	// Taint is the deciding untolerated taint for the taint reasons: the
	// first NoExecute one when there is one, else the first NoSchedule one.
	Taint corev1.Taint
}

// PlacementFor judges the template against the compiled placement check:
// Yes when NodeShouldRunDaemonPod's shouldRun (with this Eligibility's
// comparison-operator gate) is true on every node the template allows,
// No when it is false on every one, Maybe when it depends on what the
// template leaves open. Yes and No are exact; Maybe may also be answered
// where correlated requirements on one key would settle it (see
// affinity.NodeMatcher.MatchSet). The first check that is not always
// satisfied decides, a No winning over a Maybe. It does not allocate.
func (e *Eligibility) PlacementFor(t *CompiledTemplate) PlacementVerdict {
	if e == nil || e.matcher == nil || t == nil {
		return PlacementVerdict{Placement: PlacementNo, Reason: IneligibleNilNode}
	}
	var maybe PlacementVerdict
	if e.nodeName != "" {
		switch {
		case t.name == "":
			maybe = PlacementVerdict{Placement: PlacementMaybe, Reason: IneligibleNodeName}
		case t.name != e.nodeName:
			return PlacementVerdict{Placement: PlacementNo, Reason: IneligibleNodeName}
		}
	}
	switch sv := e.matcher.MatchSet(t.set); sv.Truth {
	case affinity.Never:
		return PlacementVerdict{Placement: PlacementNo, Reason: IneligibleNodeAffinity, Affinity: sv}
	case affinity.Sometimes:
		if maybe.Placement == "" {
			maybe = PlacementVerdict{Placement: PlacementMaybe, Reason: IneligibleNodeAffinity, Affinity: sv}
		}
	}
	if taint, found := tolerations.FindUntoleratedTaint(t.taints, e.tolerations, tolerations.NoExecute, e.comparison); found {
		return PlacementVerdict{Placement: PlacementNo, Reason: IneligibleNoExecuteTaint, Taint: taint}
	}
	if taint, found := tolerations.FindUntoleratedTaint(t.taints, e.tolerations, tolerations.NoSchedule, e.comparison); found {
		return PlacementVerdict{Placement: PlacementNo, Reason: IneligibleTaint, Taint: taint}
	}
	if maybe.Placement != "" {
		return maybe
	}
	return PlacementVerdict{Placement: PlacementYes}
}

// PlacementFor compiles template and ds's placement check and judges them
// (see Eligibility.PlacementFor); enableComparisonOperators is the
// TaintTolerationComparisonOperators gate. To judge one template against
// many DaemonSets, or the reverse, compile each once with CompileTemplate
// and NewEligibility instead. A nil ds gives No with IneligibleNilNode; an
// invalid template an error.
func PlacementFor(template NodeTemplate, ds *appsv1.DaemonSet, enableComparisonOperators bool) (PlacementVerdict, error) {
	t, err := CompileTemplate(template)
	if err != nil {
		return PlacementVerdict{}, err
	}
	return NewEligibility(ds, enableComparisonOperators).PlacementFor(t), nil
}
