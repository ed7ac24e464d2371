package whatif

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/eligibility"
	"github.com/daemonplan/daemonplan/daemon/internal/podbuild"
	"github.com/daemonplan/daemonplan/rollout"
	"github.com/daemonplan/daemonplan/selector"
)

// Options are the inputs of PodsForNode and PodsForTemplate besides the
// node or template and the DaemonSets. The zero value works: no revisions (every hash is computed as
// a first sync would), the comparison-operator gate off, every taint kept,
// the node-name affinity rewrite applied as the controller applies it, and
// declared features judged as kube-scheduler 1.37 judges them.
type Options struct {
	// Revisions are the ControllerRevisions of the DaemonSets' namespaces,
	// as daemon.Options.Revisions; each DaemonSet claims its own. With
	// none, the hash label is the one the first sync of each DaemonSet
	// would compute.
	Revisions []*appsv1.ControllerRevision
	// EnableTaintTolerationComparisonOperators is the
	// TaintTolerationComparisonOperators feature gate, as in daemon.Options.
	EnableTaintTolerationComparisonOperators bool
	// IgnoreTaints are taints the node (or template) is judged without:
	// startup or ephemeral taints the caller knows will be removed once the
	// node is up. A taint is ignored when an entry has its key and either
	// its effect or an empty effect; values are not compared.
	IgnoreTaints []corev1.Taint
	// IgnoreTaint, when non-nil, also ignores every taint for which it
	// returns true. It is called with a copy and must not keep it.
	IgnoreTaint func(corev1.Taint) bool
	// KeepTemplateAffinity keeps the template's own affinity on the pods
	// instead of the controller's rewrite to "metadata.name In [node]", for
	// callers that schedule the pods themselves on a node that does not
	// exist yet (Karpenter restores the template affinity for that reason).
	KeepTemplateAffinity bool
	// Include, when non-nil, is asked about each DaemonSet whose pod
	// should (or, on a template, may) run on the node; false leaves its
	// pod out. It is the caller's own policy, not the controller's:
	// cluster-autoscaler with --force-ds=false, for example, counts only
	// DaemonSets whose pods are system-node-critical. It must not modify
	// the DaemonSet.
	Include func(*appsv1.DaemonSet) bool
	// DisableNodeDeclaredFeatures turns kube-scheduler's NodeDeclaredFeatures
	// gate off: no pod is PlacementPending for want of a declared feature.
	// The gate is on by default since 1.36 and locked on since 1.37; turn it
	// off for a scheduler before 1.36 or one run with the gate off.
	DisableNodeDeclaredFeatures bool
}

// PodsForNode returns the pods that would run on node if it had no daemon
// pods yet: one per DaemonSet whose pod the DaemonSet controller would
// create there and the scheduler would place, each built exactly as
// daemon.Compute builds it on that node (with the same code: labels with
// pod-template-generation and controller-revision-hash, generateName,
// namespace, controller reference, daemon tolerations, the node-name
// affinity), sorted by DaemonSet namespace, then name. node is judged
// after dropping the taints opts says to ignore.
//
// DaemonSets Compute would skip (a {} selector, being deleted), those
// whose pod should not run on node and those opts.Include rejects give no
// pod. Nor do those whose pod requires a feature node does not declare in
// status.declaredFeatures: the controller creates that pod, but it stays
// Pending; PlacementsForNode returns it, with the features named. A node
// that declares nothing (a kubelet before 1.36) satisfies no requirement,
// as in the scheduler. nil daemonSets give nil.
//
// Errors: a nil node or a node without a name is an error and no pod. A
// DaemonSet that is nil, lacks a name or namespace, or has an invalid
// selector gives no pod and an error naming its index, then a *daemon.Error
// naming it, and so does one whose pod should run on node but whose
// revision history fails (a name collision, a *rollout.CollisionError): the
// history is only built for DaemonSets that get a pod. The pods of the
// other DaemonSets are still returned, with every such error joined. Every
// error but a collision matches daemon.ErrInvalidInput. Unlike Compute, a
// missing UID is not an error: the owner reference then carries none.
//
// It modifies none of its arguments; the pods are new objects. Per
// DaemonSet that gets a pod it costs the pod and the hash: one hash of the
// template when its namespace has no revision, else one revision-history
// construction as in Compute (an encoding of the DaemonSet to compare with
// the revisions).
func PodsForNode(node *corev1.Node, daemonSets []*appsv1.DaemonSet, opts Options) ([]*corev1.Pod, error) {
	placed, err := PlacementsForNode(node, daemonSets, opts)
	var pods []*corev1.Pod
	for _, p := range placed {
		if p.Placement.Placement == PlacementYes {
			pods = append(pods, p.Pod)
		}
	}
	return pods, err
}

// PlacementsForNode returns every pod the DaemonSet controller would create
// on node if it had no daemon pods yet, as PodsForNode builds them and in
// its order, each with its placement: PlacementYes, or PlacementPending
// when the pod requires node features node does not declare (Reason
// ReasonUndeclaredFeatures, Features naming them). The Yes pods are
// PodsForNode's; with the Pending ones they are Compute's creates on node.
// Errors, skips and cost are PodsForNode's.
func PlacementsForNode(node *corev1.Node, daemonSets []*appsv1.DaemonSet, opts Options) ([]TemplatePod, error) {
	if node == nil {
		return nil, daemon.NewError(nil, daemon.StageInput, field.Required(field.NewPath("node"), "a node is required"))
	}
	if node.Name == "" {
		return nil, daemon.NewError(nil, daemon.StageInput, field.Required(field.NewPath("node", "metadata", "name"), ""))
	}
	judged := node
	if taints, dropped := keptTaints(node.Spec.Taints, opts); dropped {
		c := *node
		c.Spec.Taints = taints
		judged = &c
	}
	check := newFeatureCheck(mapDeclaredFeatures(node.Status.DeclaredFeatures), opts.DisableNodeDeclaredFeatures)
	var pods []TemplatePod
	err := eachPod(daemonSets, opts, node.Name, check, func(e *eligibility.Check) (PlacementVerdict, bool) {
		run, _ := e.ShouldRun(judged)
		return PlacementVerdict{Placement: PlacementYes}, run
	}, func(pod *corev1.Pod, v PlacementVerdict) {
		pods = append(pods, TemplatePod{Pod: pod, Placement: v})
	})
	slices.SortStableFunc(pods, func(a, b TemplatePod) int { return compareDaemonPods(a.Pod, b.Pod) })
	return pods, err
}

// TemplatePod is a pod PodsForTemplate or PlacementsForNode answers: the
// pod and the placement of its DaemonSet on the template or node.
type TemplatePod struct {
	// Pod is the pod the controller would create on a node of the
	// template, built as PodsForNode builds it.
	Pod *corev1.Pod
	// Placement is PlacementYes; PlacementMaybe with what leaves it open
	// (the pod then lands only on the nodes of the template that satisfy
	// it); or PlacementPending with the features the node or template does
	// not declare (the pod is created but not scheduled, and takes nothing
	// from the node).
	Placement PlacementVerdict
}

// PodsForTemplate is PodsForNode for a node not created yet, described by
// a node template: the pods the DaemonSet controller would create on a new
// node of t, one per DaemonSet whose placement on t is Yes or Maybe (see
// CompiledTemplate.PlacementFor), each with that verdict, sorted by
// DaemonSet namespace, then name. A pod that requires a node feature t's
// DeclaredFeatures do not list is PlacementPending instead, whether its
// placement was Yes or Maybe: where the controller creates it, the
// scheduler leaves it Pending (nil DeclaredFeatures declare none). A caller
// that sizes a node for the worst case counts the Maybe pods too (as
// Karpenter does); one that counts what is sure leaves them out; neither
// counts the Pending pods, which take nothing from the node.
//
// The pods are built as PodsForNode builds them on a node named t's name;
// when t leaves the name open there is no node to bind them to, and they
// keep the template's own affinity, as with opts.KeepTemplateAffinity.
// opts.IgnoreTaints and opts.IgnoreTaint drop taints of t as they drop a
// node's. DaemonSets are skipped, included and reported in error exactly as
// by PodsForNode. A nil t is an error and no pod.
//
// It modifies none of its arguments; the pods are new objects. It costs
// what PodsForNode costs, with each DaemonSet's placement judged on the
// template instead of a node.
func PodsForTemplate(t *CompiledTemplate, daemonSets []*appsv1.DaemonSet, opts Options) ([]TemplatePod, error) {
	if t == nil {
		return nil, daemon.NewError(nil, daemon.StageInput, field.Required(field.NewPath("template"), "a compiled node template is required"))
	}
	judged := t
	if taints, dropped := keptTaints(t.taints, opts); dropped {
		c := *t
		c.taints = taints
		judged = &c
	}
	if t.name == "" {
		opts.KeepTemplateAffinity = true
	}
	check := newFeatureCheck(t.declared, opts.DisableNodeDeclaredFeatures)
	var pods []TemplatePod
	err := eachPod(daemonSets, opts, t.name, check, func(e *eligibility.Check) (PlacementVerdict, bool) {
		v := judged.PlacementFor(e)
		return v, v.Placement != PlacementNo
	}, func(pod *corev1.Pod, v PlacementVerdict) {
		pods = append(pods, TemplatePod{Pod: pod, Placement: v})
	})
	slices.SortStableFunc(pods, func(a, b TemplatePod) int { return compareDaemonPods(a.Pod, b.Pod) })
	return pods, err
}

// compareDaemonPods orders pods built by eachPod by namespace, then the
// name of their DaemonSet.
func compareDaemonPods(a, b *corev1.Pod) int {
	return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.OwnerReferences[0].Name, b.OwnerReferences[0].Name))
}

// eachPod builds, for each DaemonSet of daemonSets that Compute would not
// skip, that places admits and that opts.Include accepts, the pod Compute
// would create for it on a node named nodeName with no pods, and hands it
// to emit with place's verdict, or check's Pending verdict when the pod
// requires an undeclared feature, in the order of daemonSets. The errors of
// the others are joined, each naming its DaemonSet's index.
func eachPod(daemonSets []*appsv1.DaemonSet, opts Options, nodeName string, check featureCheck,
	place func(*eligibility.Check) (PlacementVerdict, bool), emit func(*corev1.Pod, PlacementVerdict)) error {
	var errs []error
	for i, ds := range daemonSets {
		if err := podFor(ds, opts, nodeName, check, place, emit); err != nil {
			errs = append(errs, fmt.Errorf("daemonSets[%d]: %w", i, err))
		}
	}
	return errors.Join(errs...)
}

// podFor is eachPod for one DaemonSet.
func podFor(ds *appsv1.DaemonSet, opts Options, nodeName string, check featureCheck,
	place func(*eligibility.Check) (PlacementVerdict, bool), emit func(*corev1.Pod, PlacementVerdict)) error {
	switch {
	case ds == nil:
		return daemon.NewError(nil, daemon.StageInput, field.Required(field.NewPath("daemonSet"), "nil DaemonSet"))
	case ds.Name == "":
		return daemon.NewError(ds, daemon.StageInput, field.Required(field.NewPath("metadata", "name"), ""))
	case ds.Namespace == "":
		return daemon.NewError(ds, daemon.StageInput, field.Required(field.NewPath("metadata", "namespace"), "pods are namespaced"))
	}
	if daemon.SkipOf(ds) != daemon.SkipNone {
		return nil // Compute skips the DaemonSet
	}
	sel, err := selector.ForDaemonSet(ds)
	if err != nil {
		return daemon.NewError(ds, daemon.StageInput, err)
	}
	verdict, ok := place(eligibility.New(ds, opts.EnableTaintTolerationComparisonOperators))
	if !ok {
		return nil
	}
	if opts.Include != nil && !opts.Include(ds) {
		return nil
	}
	hash, err := whatIfHash(ds, sel, opts.Revisions)
	if err != nil {
		return daemon.NewError(ds, daemon.StageHistory, err)
	}
	generation, genErr := rollout.GetTemplateGeneration(ds)
	if genErr != nil {
		generation = nil // as Compute: an unparsable annotation is ignored
	}
	pod := podbuild.New(ds, generation, hash).Pod(nodeName)
	if opts.KeepTemplateAffinity {
		pod.Spec.Affinity = ds.Spec.Template.Spec.Affinity.DeepCopy()
	}
	emit(pod, check.judge(&pod.Spec, verdict))
	return nil
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

// keptTaints returns taints without those opts says to ignore, in a new
// slice, and true; or taints itself and false when opts drops none.
func keptTaints(taints []corev1.Taint, opts Options) ([]corev1.Taint, bool) {
	if len(opts.IgnoreTaints) == 0 && opts.IgnoreTaint == nil {
		return taints, false
	}
	ignored := func(t corev1.Taint) bool {
		for _, it := range opts.IgnoreTaints {
			if it.Key == t.Key && (it.Effect == "" || it.Effect == t.Effect) {
				return true
			}
		}
		return opts.IgnoreTaint != nil && opts.IgnoreTaint(*t.DeepCopy())
	}
	if !slices.ContainsFunc(taints, ignored) {
		return taints, false
	}
	return slices.DeleteFunc(slices.Clone(taints), ignored), true
}
