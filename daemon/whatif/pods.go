package whatif

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/internal/podbuild"
	"github.com/daemonplan/daemonplan/rollout"
	"github.com/daemonplan/daemonplan/selector"
)

// Options are the inputs of PodsForNode besides the node and the
// DaemonSets. The zero value works: no revisions (every hash is computed as
// a first sync would), the comparison-operator gate off, every taint kept,
// and the node-name affinity rewrite applied as the controller applies it.
type Options struct {
	// Revisions are the ControllerRevisions of the DaemonSets' namespaces,
	// as daemon.Options.Revisions; each DaemonSet claims its own. With
	// none, the hash label is the one the first sync of each DaemonSet
	// would compute.
	Revisions []*appsv1.ControllerRevision
	// EnableTaintTolerationComparisonOperators is the
	// TaintTolerationComparisonOperators feature gate, as in daemon.Options.
	EnableTaintTolerationComparisonOperators bool
	// IgnoreTaints are taints the node is judged without: startup or
	// ephemeral taints the caller knows will be removed once the node is
	// up. A node taint is ignored when an entry has its key and either its
	// effect or an empty effect; values are not compared.
	IgnoreTaints []corev1.Taint
	// IgnoreTaint, when non-nil, also ignores every node taint for which it
	// returns true. It is called with a copy and must not keep it.
	IgnoreTaint func(corev1.Taint) bool
	// KeepTemplateAffinity keeps the template's own affinity on the pods
	// instead of the controller's rewrite to "metadata.name In [node]", for
	// callers that schedule the pods themselves on a node that does not
	// exist yet (Karpenter restores the template affinity for that reason).
	KeepTemplateAffinity bool
	// Include, when non-nil, is asked about each DaemonSet whose pod
	// should run on the node; false leaves its pod out. It is the caller's
	// own policy, not the controller's: cluster-autoscaler with
	// --force-ds=false, for example, counts only DaemonSets whose pods are
	// system-node-critical. It must not modify the DaemonSet.
	Include func(*appsv1.DaemonSet) bool
}

// PodsForNode returns the pods the DaemonSet controller would create on
// node if it had no daemon pods yet: one per DaemonSet whose pod should run
// there, each built exactly as daemon.Compute builds it on that node (with
// the same code: labels with pod-template-generation and
// controller-revision-hash, generateName, namespace, controller reference,
// daemon tolerations, the node-name affinity), sorted by DaemonSet
// namespace, then name. node is judged
// after dropping the taints opts says to ignore.
//
// DaemonSets Compute would skip (a {} selector, being deleted), those
// whose pod should not run on node and those opts.Include rejects give no
// pod. nil daemonSets give nil.
//
// Errors: a nil node or a node without a name is an error and no pod. A
// DaemonSet that is nil, lacks a name or namespace, or has an invalid
// selector gives no pod and an error naming its index and namespace/name,
// and so does one whose pod should run on node but whose revision history
// fails (a name collision, a *rollout.CollisionError): the history is only
// built for DaemonSets that get a pod. The pods of the other DaemonSets are
// still returned, with every such error joined. Unlike Compute, a missing
// UID is not an error: the owner reference then carries none.
//
// It modifies none of its arguments; the pods are new objects. Per
// DaemonSet that gets a pod it costs the pod and the hash: one hash of the
// template when its namespace has no revision, else one revision-history
// construction as in Compute (an encoding of the DaemonSet to compare with
// the revisions).
func PodsForNode(node *corev1.Node, daemonSets []*appsv1.DaemonSet, opts Options) ([]*corev1.Pod, error) {
	if node == nil {
		return nil, field.Required(field.NewPath("node"), "a node is required")
	}
	if node.Name == "" {
		return nil, field.Required(field.NewPath("node", "metadata", "name"), "")
	}
	judged := withoutIgnoredTaints(node, opts)
	var pods []*corev1.Pod
	var errs []error
	for i, ds := range daemonSets {
		pod, err := podForNode(judged, ds, opts)
		if err != nil {
			errs = append(errs, fmt.Errorf("daemonSets[%d]: %w", i, err))
			continue
		}
		if pod != nil {
			pods = append(pods, pod)
		}
	}
	slices.SortStableFunc(pods, func(a, b *corev1.Pod) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.OwnerReferences[0].Name, b.OwnerReferences[0].Name))
	})
	return pods, errors.Join(errs...)
}

// podForNode is the pod Compute would create for ds on node with no pods:
// nil when it creates none.
func podForNode(node *corev1.Node, ds *appsv1.DaemonSet, opts Options) (*corev1.Pod, error) {
	if ds == nil {
		return nil, field.Required(field.NewPath("daemonSet"), "nil DaemonSet")
	}
	key := ds.Namespace + "/" + ds.Name
	switch {
	case ds.Name == "":
		return nil, fmt.Errorf("daemonset %q: %w", key, field.Required(field.NewPath("metadata", "name"), ""))
	case ds.Namespace == "":
		return nil, fmt.Errorf("daemonset %q: %w", key, field.Required(field.NewPath("metadata", "namespace"), "pods are namespaced"))
	}
	if reflect.DeepEqual(ds.Spec.Selector, &metav1.LabelSelector{}) || ds.DeletionTimestamp != nil {
		return nil, nil // Compute skips the DaemonSet
	}
	sel, err := selector.ForDaemonSet(ds)
	if err != nil {
		return nil, err // a *selector.Error names the DaemonSet
	}
	if run, _ := daemon.NewEligibility(ds, opts.EnableTaintTolerationComparisonOperators).ShouldRun(node); !run {
		return nil, nil
	}
	if opts.Include != nil && !opts.Include(ds) {
		return nil, nil
	}
	hash, err := whatIfHash(ds, sel, opts.Revisions)
	if err != nil {
		return nil, fmt.Errorf("revision history: %w", err) // its errors name the DaemonSet
	}
	generation, genErr := rollout.GetTemplateGeneration(ds)
	if genErr != nil {
		generation = nil // as Compute: an unparsable annotation is ignored
	}
	pod := podbuild.New(ds, generation, hash).Pod(node.Name)
	if opts.KeepTemplateAffinity {
		pod.Spec.Affinity = ds.Spec.Template.Spec.Affinity.DeepCopy()
	}
	return pod, nil
}

// whatIfHash is the hash Compute's revision history gives ds. With no
// revision in ds's namespace that is ComputeHash of the template and the
// collision count, as a first sync computes it, without encoding the
// DaemonSet; otherwise the history is constructed as Compute does.
func whatIfHash(ds *appsv1.DaemonSet, sel labels.Selector, revisions []*appsv1.ControllerRevision) (string, error) {
	if !slices.ContainsFunc(revisions, func(r *appsv1.ControllerRevision) bool { return r != nil && r.Namespace == ds.Namespace }) {
		return rollout.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount), nil
	}
	claims := selector.ClaimRevisions(selector.OwnerOf(ds), sel, revisions)
	hist, err := rollout.ConstructHistory(ds, claims.Claimed, revisions, nil)
	return hist.Hash, err
}

// withoutIgnoredTaints returns node, or a shallow copy of it with its own
// taint slice when opts drops some of its taints.
func withoutIgnoredTaints(node *corev1.Node, opts Options) *corev1.Node {
	if len(opts.IgnoreTaints) == 0 && opts.IgnoreTaint == nil {
		return node
	}
	ignored := func(t corev1.Taint) bool {
		for _, it := range opts.IgnoreTaints {
			if it.Key == t.Key && (it.Effect == "" || it.Effect == t.Effect) {
				return true
			}
		}
		return opts.IgnoreTaint != nil && opts.IgnoreTaint(*t.DeepCopy())
	}
	if !slices.ContainsFunc(node.Spec.Taints, ignored) {
		return node
	}
	c := *node
	c.Spec.Taints = slices.DeleteFunc(slices.Clone(node.Spec.Taints), ignored)
	return &c
}
