package daemontest

import (
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonplan/daemonplan/affinity"
	"github.com/daemonplan/daemonplan/daemon/simulate"
	"github.com/daemonplan/daemonplan/rollout"
)

// Epoch is the default clock of the builders: objects are created relative
// to it, and tests usually pass it (or a later instant) as Options.Now.
var Epoch = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// NodeOption changes a node being built.
type NodeOption func(*corev1.Node)

// Node returns a Ready node named name with the kubernetes.io/hostname
// label, changed by opts in order.
func Node(name string, opts ...NodeOption) *corev1.Node {
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:              name,
			UID:               types.UID("node-" + name),
			CreationTimestamp: metav1.Time{Time: Epoch.Add(-24 * time.Hour)},
			Labels:            map[string]string{corev1.LabelHostname: name},
		},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{
			Type: corev1.NodeReady, Status: corev1.ConditionTrue,
			LastTransitionTime: metav1.Time{Time: Epoch.Add(-24 * time.Hour)},
		}}},
	}
	for _, o := range opts {
		o(n)
	}
	return n
}

// WithLabel sets a node label.
func WithLabel(key, value string) NodeOption {
	return func(n *corev1.Node) { n.Labels[key] = value }
}

// WithTaint adds a taint.
func WithTaint(key, value string, effect corev1.TaintEffect) NodeOption {
	return func(n *corev1.Node) {
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: key, Value: value, Effect: effect})
	}
}

// Unschedulable cordons the node: spec.unschedulable and the
// node.kubernetes.io/unschedulable:NoSchedule taint, as the node controller
// sets them.
func Unschedulable() NodeOption {
	return func(n *corev1.Node) {
		n.Spec.Unschedulable = true
		WithTaint(corev1.TaintNodeUnschedulable, "", corev1.TaintEffectNoSchedule)(n)
	}
}

// NotReady marks the node NotReady with the node.kubernetes.io/not-ready
// NoSchedule and NoExecute taints, as the node lifecycle controller does.
// The Ready condition is found by type (and added when the node has none);
// when it changes, its lastTransitionTime becomes the node's creation time.
// Applied twice, it leaves one pair of taints.
func NotReady() NodeOption {
	return func(n *corev1.Node) { simulate.SetNodeReady(n, false, n.CreationTimestamp.Time) }
}

// DaemonSetOption changes a DaemonSet being built.
type DaemonSetOption func(*appsv1.DaemonSet)

// DaemonSet returns a DaemonSet named name in namespace "default", with
// UID "uid-<name>", generation 1, selector and template label app=<name>,
// one container running image "registry.example/<name>:v1", a RollingUpdate
// strategy with maxUnavailable 1 and maxSurge 0, and revisionHistoryLimit
// 10, changed by opts in order.
func DaemonSet(name string, opts ...DaemonSetOption) *appsv1.DaemonSet {
	one, zero := intstr.FromInt32(1), intstr.FromInt32(0)
	limit := int32(10)
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "default", UID: types.UID("uid-" + name), Generation: 1,
			CreationTimestamp: metav1.Time{Time: Epoch.Add(-7 * 24 * time.Hour)},
		},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: name, Image: "registry.example/" + name + ":v1",
				}}},
			},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{
				Type:          appsv1.RollingUpdateDaemonSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &one, MaxSurge: &zero},
			},
			RevisionHistoryLimit: &limit,
		},
	}
	for _, o := range opts {
		o(ds)
	}
	return ds
}

// WithImage sets the image of the first container: the usual way to start a
// rollout.
func WithImage(image string) DaemonSetOption {
	return func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Containers[0].Image = image }
}

// WithTemplateGeneration sets the deprecated.daemonset.template.generation
// annotation, which the API server writes on every DaemonSet (1 at
// creation, one more at each template change); Pod then labels the pods
// pod-template-generation with it, as the controller does.
func WithTemplateGeneration(gen int64) DaemonSetOption {
	return func(ds *appsv1.DaemonSet) {
		if ds.Annotations == nil {
			ds.Annotations = map[string]string{}
		}
		ds.Annotations[appsv1.DeprecatedTemplateGeneration] = strconv.FormatInt(gen, 10)
	}
}

// WithMaxUnavailable sets rollingUpdate.maxUnavailable ("10%" or "2").
func WithMaxUnavailable(v string) DaemonSetOption {
	return func(ds *appsv1.DaemonSet) {
		x := intstr.Parse(v)
		ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = &x
	}
}

// WithMaxSurge sets rollingUpdate.maxSurge ("10%" or "2").
func WithMaxSurge(v string) DaemonSetOption {
	return func(ds *appsv1.DaemonSet) {
		x := intstr.Parse(v)
		ds.Spec.UpdateStrategy.RollingUpdate.MaxSurge = &x
	}
}

// OnDelete switches the strategy to OnDelete.
func OnDelete() DaemonSetOption {
	return func(ds *appsv1.DaemonSet) {
		ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
	}
}

// WithMinReadySeconds sets spec.minReadySeconds.
func WithMinReadySeconds(s int32) DaemonSetOption {
	return func(ds *appsv1.DaemonSet) { ds.Spec.MinReadySeconds = s }
}

// WithNodeSelector adds a template nodeSelector entry.
func WithNodeSelector(key, value string) DaemonSetOption {
	return func(ds *appsv1.DaemonSet) {
		if ds.Spec.Template.Spec.NodeSelector == nil {
			ds.Spec.Template.Spec.NodeSelector = map[string]string{}
		}
		ds.Spec.Template.Spec.NodeSelector[key] = value
	}
}

// WithToleration adds a template toleration with the Exists operator.
func WithToleration(key string, effect corev1.TaintEffect) DaemonSetOption {
	return func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.Tolerations = append(ds.Spec.Template.Spec.Tolerations,
			corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: effect})
	}
}

// Hash returns the controller-revision-hash of ds's current template, the
// one Compute uses when no revision exists yet.
func Hash(ds *appsv1.DaemonSet) string {
	return rollout.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount)
}

// controllerRef returns the controller reference ds puts on the pods and
// revisions it owns.
func controllerRef(ds *appsv1.DaemonSet) metav1.OwnerReference {
	return *metav1.NewControllerRef(ds, appsv1.SchemeGroupVersion.WithKind("DaemonSet"))
}

// PodOption changes a pod being built.
type PodOption func(*corev1.Pod)

// Pod returns a pod of ds named name, scheduled on node, created an hour
// before Epoch, Running and Ready since then, labelled with the template
// labels, the current hash (see Hash) and, when ds has the template
// generation annotation (see WithTemplateGeneration), pod-template-generation
// with its value; controlled by ds; changed by opts in order.
func Pod(ds *appsv1.DaemonSet, name, node string, opts ...PodOption) *corev1.Pod {
	labels := map[string]string{}
	for k, v := range ds.Spec.Template.Labels {
		labels[k] = v
	}
	labels[appsv1.ControllerRevisionHashLabelKey] = Hash(ds)
	if gen, ok := ds.Annotations[appsv1.DeprecatedTemplateGeneration]; ok {
		labels[extensionsv1beta1.DaemonSetTemplateGenerationKey] = gen
	}
	since := Epoch.Add(-time.Hour)
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: ds.Namespace, UID: types.UID("pod-" + name),
			CreationTimestamp: metav1.Time{Time: since},
			Labels:            labels,
			OwnerReferences:   []metav1.OwnerReference{controllerRef(ds)},
		},
		Spec: *ds.Spec.Template.Spec.DeepCopy(),
		Status: corev1.PodStatus{
			Phase: corev1.PodRunning,
			Conditions: []corev1.PodCondition{{
				Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Time{Time: since},
			}},
		},
	}
	p.Spec.NodeName = node
	for _, o := range opts {
		o(p)
	}
	return p
}

// WithHash sets the controller-revision-hash label: "old" for a pod of a
// previous template, say.
func WithHash(hash string) PodOption {
	return func(p *corev1.Pod) { p.Labels[appsv1.ControllerRevisionHashLabelKey] = hash }
}

// WithPhase sets status.phase.
func WithPhase(phase corev1.PodPhase) PodOption {
	return func(p *corev1.Pod) { p.Status.Phase = phase }
}

// ReadySince marks the pod Ready since t.
func ReadySince(t time.Time) PodOption {
	return func(p *corev1.Pod) {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Time{Time: t}}}
	}
}

// NotReadyPod marks the pod not Ready.
func NotReadyPod() PodOption {
	return func(p *corev1.Pod) {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, LastTransitionTime: p.CreationTimestamp}}
	}
}

// CreatedAt sets the creation timestamp.
func CreatedAt(t time.Time) PodOption {
	return func(p *corev1.Pod) { p.CreationTimestamp = metav1.Time{Time: t} }
}

// Deleting gives the pod a deletionTimestamp.
func Deleting(at time.Time) PodOption {
	return func(p *corev1.Pod) { p.DeletionTimestamp = &metav1.Time{Time: at} }
}

// Unscheduled clears spec.nodeName and binds the pod to its node through its
// node affinity instead, as a pod the scheduler has not placed yet.
func Unscheduled() PodOption {
	return func(p *corev1.Pod) {
		p.Spec.Affinity = affinity.ReplaceDaemonSetPodNodeNameNodeAffinity(p.Spec.Affinity, p.Spec.NodeName)
		p.Spec.NodeName = ""
	}
}

// Orphan removes the pod's owner references.
func Orphan() PodOption {
	return func(p *corev1.Pod) { p.OwnerReferences = nil }
}

// Revision returns the ControllerRevision the controller records for ds's
// current template, with revision number number: named <ds>-<Hash(ds)>,
// labelled with the template labels and the hash, controlled by ds, holding
// rollout.Patch(ds). Should ds not encode (it always does for objects built
// here), Data is left empty.
func Revision(ds *appsv1.DaemonSet, number int64) *appsv1.ControllerRevision {
	hash := Hash(ds)
	labels := map[string]string{appsv1.ControllerRevisionHashLabelKey: hash}
	for k, v := range ds.Spec.Template.Labels {
		labels[k] = v
	}
	rev := &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{
			Name: ds.Name + "-" + hash, Namespace: ds.Namespace, UID: types.UID("rev-" + ds.Name + "-" + hash),
			Labels:          labels,
			OwnerReferences: []metav1.OwnerReference{controllerRef(ds)},
		},
		Revision: number,
	}
	if data, err := rollout.Patch(ds); err == nil {
		rev.Data.Raw = data
	}
	return rev
}
