package whatif

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/version"
	ndf "k8s.io/component-helpers/nodedeclaredfeatures"

	"github.com/daemonplan/daemonplan/daemon/eligibility"
)

// ReasonUndeclaredFeatures is the Reason of a PlacementPending verdict: the
// pod requires node features (KEP-5328, Node Declared Features) that the
// node's status.declaredFeatures, or the template's DeclaredFeatures, do
// not list. PlacementVerdict.Features names them. The DaemonSet controller
// does not check declared features and creates the pod; kube-scheduler's
// NodeDeclaredFeatures filter then rejects the node as unschedulable and
// unresolvable, and the pod stays Pending until the node declares them.
const ReasonUndeclaredFeatures eligibility.Ineligibility = "UndeclaredFeatures"

// schedulerVersion is the kube-scheduler release whose NodeDeclaredFeatures
// filter the what-if follows. The framework drops a feature from a pod's
// requirements once the scheduler is newer than the feature's MaxVersion
// (none of the features of component-helpers v0.37.2 has one).
const schedulerVersion = "1.37.2"

// featureCheck is the scheduler's NodeDeclaredFeatures filter for one node
// or template: the features it declares, mapped once.
type featureCheck struct {
	// off: the NodeDeclaredFeatures gate is off; nothing is Pending.
	off      bool
	declared ndf.FeatureSet
	target   *version.Version
}

// mapDeclaredFeatures maps the feature names a node or template declares
// to the scheduler's feature set, in any order (the API server keeps a
// node's sorted; a template's need not be). Names the framework does not
// know are ignored, as the scheduler ignores them: no pod can require them.
// Nothing declared (nil) is the empty set: a node whose kubelet declares
// no feature satisfies no requirement.
func mapDeclaredFeatures(names []string) ndf.FeatureSet {
	if !slices.IsSorted(names) {
		names = slices.Compact(slices.Sorted(slices.Values(names)))
	}
	return ndf.DefaultFramework.TryMap(names)
}

// newFeatureCheck returns the check of a node or template declaring
// declared; off is the NodeDeclaredFeatures gate turned off.
func newFeatureCheck(declared ndf.FeatureSet, off bool) featureCheck {
	return featureCheck{off: off, declared: declared, target: version.MustParseSemantic(schedulerVersion)}
}

// judge returns v, or a Pending verdict naming the features spec requires
// and the node does not declare, as the scheduler infers them for a pod
// being scheduled.
func (c featureCheck) judge(spec *corev1.PodSpec, v PlacementVerdict) PlacementVerdict {
	if c.off {
		return v
	}
	if missing := c.missing(spec); len(missing) > 0 {
		return PlacementVerdict{Placement: PlacementPending, Reason: ReasonUndeclaredFeatures, Features: strings.Join(missing, ", ")}
	}
	return v
}

// missing returns the features spec requires that the node does not
// declare, sorted; nil when none. The framework errs only on a nil version
// or on sets of different registries, neither of which can happen here.
func (c featureCheck) missing(spec *corev1.PodSpec) []string {
	reqs, err := ndf.DefaultFramework.InferForPodScheduling(&ndf.PodInfo{Spec: spec}, c.target)
	if err != nil || reqs.IsEmpty() {
		return nil
	}
	res, err := ndf.DefaultFramework.MatchNodeFeatureSet(reqs, c.declared)
	if err != nil || res.IsMatch {
		return nil
	}
	return res.UnsatisfiedRequirements
}
