package whatif

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	ndf "k8s.io/component-helpers/nodedeclaredfeatures"

	"github.com/daemonplan/daemonplan/affinity"
	"github.com/daemonplan/daemonplan/daemon"
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
	// AbsentLabels are label keys no node carries, where the template knows
	// that much without knowing all of its labels: a node group that never
	// runs on Fargate lacks eks.amazonaws.com/compute-type, which settles
	// an affinity of "NotIn [fargate]" on that key. Each is a DoesNotExist
	// requirement; a key that Labels fixes, or that Requirements ask to
	// exist, is an error.
	AbsentLabels []string
	// LabelsComplete: the nodes carry no label but those Labels and
	// Requirements name. When false (the default), a node may carry any
	// other label with any value, as nodes get labels at registration and
	// from agents that an autoscaler cannot know; AbsentLabels then names
	// the keys known absent.
	LabelsComplete bool
	// Taints are the taints every node carries, all of them (leave out the
	// startup taints that will be gone before the pods are placed).
	Taints []corev1.Taint
	// DeclaredFeatures are the features its nodes declare in
	// status.declaredFeatures (Node Declared Features, KEP-5328), in any
	// order: copy them from a running node of the group, or list what its
	// kubelet version and feature gates declare. A DaemonSet pod that
	// requires a feature not listed is PlacementPending on the template.
	// nil declares none, as a node whose kubelet declares none (one before
	// 1.36, where the NodeDeclaredFeatures gate is off by default): the
	// scheduler then leaves every pod that requires a feature Pending, and
	// so does the what-if. Names the
	// scheduler does not know are ignored, as it ignores them.
	DeclaredFeatures []string
}

// CompiledTemplate is a NodeTemplate compiled once by CompileTemplate, to be
// judged against many DaemonSets. It is immutable and safe for concurrent
// use; it keeps no reference to the template.
type CompiledTemplate struct {
	set      *affinity.NodeSet
	name     string
	taints   []corev1.Taint
	declared ndf.FeatureSet
}

// CompileTemplate compiles t. It returns an error naming the field when a
// label, requirement or absent label is invalid or when the requirements
// on a key allow no node; the error matches daemon.ErrInvalidInput.
func CompileTemplate(t NodeTemplate) (*CompiledTemplate, error) {
	requirements := t.Requirements
	if len(t.AbsentLabels) > 0 {
		var errs field.ErrorList
		requirements = slices.Clip(requirements)
		for i, key := range t.AbsentLabels {
			p := field.NewPath("absentLabels").Index(i)
			if msgs := validation.IsQualifiedName(key); len(msgs) > 0 {
				errs = append(errs, field.Invalid(p, key, strings.Join(msgs, "; ")))
				continue
			}
			if _, fixed := t.Labels[key]; fixed {
				errs = append(errs, field.Invalid(p, key, "the template's labels give this key a value"))
				continue
			}
			requirements = append(requirements, corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpDoesNotExist})
		}
		if len(errs) > 0 {
			return nil, fmt.Errorf("node template %q: %w: %w", t.Name, daemon.ErrInvalidInput, errs.ToAggregate())
		}
	}
	set, err := affinity.NewNodeSet(t.Name, t.Labels, requirements, t.LabelsComplete)
	if err != nil {
		return nil, fmt.Errorf("node template %q: %w: %w", t.Name, daemon.ErrInvalidInput, err)
	}
	c := &CompiledTemplate{set: set, name: t.Name, declared: mapDeclaredFeatures(t.DeclaredFeatures)}
	for i := range t.Taints {
		c.taints = append(c.taints, *t.Taints[i].DeepCopy())
	}
	return c, nil
}

// Contains reports whether node is one of the nodes the template allows:
// its name and labels satisfy the template and it carries exactly the
// template's taints (in any order). Declared features are not compared,
// as CompiledTemplate.PlacementFor does not judge them. A nil node is in no
// template.
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
