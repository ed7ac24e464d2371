package selector_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonplan/daemonplan/selector"
)

const testNS = "kube-system"

// testOwner is the DaemonSet most claim tests use.
var testOwner = selector.Owner{Namespace: testNS, Name: "fluentd", UID: "ds-uid", Kind: "DaemonSet"}

// appSelector selects app=fluentd, the label of testOwner's pods.
func appSelector() labels.Selector {
	return labels.SelectorFromSet(labels.Set{"app": "fluentd"})
}

// newDaemonSet returns a DaemonSet kube-system/fluentd with selector sel and
// template labels tmpl.
func newDaemonSet(sel *metav1.LabelSelector, tmpl map[string]string) *appsv1.DaemonSet {
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: testNS, Name: "fluentd", UID: "ds-uid"},
		Spec: appsv1.DaemonSetSpec{
			Selector: sel,
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: tmpl}},
		},
	}
}

// meta is an option applied to an object's metadata by newPod and newRev.
type meta func(*metav1.ObjectMeta)

func controlledBy(kind, name string, uid types.UID) meta {
	return func(m *metav1.ObjectMeta) {
		m.OwnerReferences = append(m.OwnerReferences, metav1.OwnerReference{
			APIVersion: "apps/v1", Kind: kind, Name: name, UID: uid, Controller: new(true),
		})
	}
}

// referencedBy adds an ownerReference that is not a controller reference;
// controller is its controller field (nil, or a pointer to false).
func referencedBy(kind, name string, uid types.UID, controller *bool) meta {
	return func(m *metav1.ObjectMeta) {
		m.OwnerReferences = append(m.OwnerReferences, metav1.OwnerReference{
			APIVersion: "apps/v1", Kind: kind, Name: name, UID: uid, Controller: controller,
		})
	}
}

func ownedByTestOwner() meta { return controlledBy("DaemonSet", "fluentd", "ds-uid") }

func labelled(set map[string]string) meta {
	return func(m *metav1.ObjectMeta) { m.Labels = set }
}

func inNamespace(ns string) meta { return func(m *metav1.ObjectMeta) { m.Namespace = ns } }

func withUID(uid types.UID) meta { return func(m *metav1.ObjectMeta) { m.UID = uid } }

func beingDeleted() meta {
	return func(m *metav1.ObjectMeta) {
		ts := metav1.Unix(1_700_000_000, 0)
		m.DeletionTimestamp = &ts
	}
}

// newMeta is metadata in testNS, labelled app=fluentd, UID name+"-uid",
// then changed by opts in order.
func newMeta(name string, opts ...meta) metav1.ObjectMeta {
	m := metav1.ObjectMeta{
		Namespace: testNS,
		Name:      name,
		UID:       types.UID(name + "-uid"),
		Labels:    map[string]string{"app": "fluentd"},
	}
	for _, o := range opts {
		o(&m)
	}
	return m
}

func newPod(name string, opts ...meta) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: newMeta(name, opts...), Spec: corev1.PodSpec{NodeName: "node-" + name}}
}

func newRev(name string, opts ...meta) *appsv1.ControllerRevision {
	return &appsv1.ControllerRevision{ObjectMeta: newMeta(name, opts...), Revision: 1}
}

// claimNames is a claim outcome reduced to object names.
type claimNames struct {
	Claimed, Adopt, Release []string
}

func podNames(pods []*corev1.Pod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return out
}

func revNames(revs []*appsv1.ControllerRevision) []string {
	var out []string
	for _, r := range revs {
		out = append(out, r.Name)
	}
	return out
}

func podClaimNames(c selector.PodClaims) claimNames {
	return claimNames{podNames(c.Claimed), podNames(c.Adopt), podNames(c.Release)}
}

func revClaimNames(c selector.RevisionClaims) claimNames {
	return claimNames{revNames(c.Claimed), revNames(c.Adopt), revNames(c.Release)}
}

// objectKind enumerates the shapes randomPods and the fuzz targets draw.
const (
	kindOrphan = iota
	kindOwned
	kindOtherController
	kindSameUIDOtherKind
	kindSameUIDOtherName
	kindNonControllerRef
	kindControllerFalse
	kindTwoControllersOtherFirst
	kindCount
)

// shapedMeta returns options that give an object the shape kind.
func shapedMeta(kind int) []meta {
	switch kind {
	case kindOwned:
		return []meta{ownedByTestOwner()}
	case kindOtherController:
		return []meta{controlledBy("DaemonSet", "other", "other-uid")}
	case kindSameUIDOtherKind:
		return []meta{controlledBy("ReplicaSet", "fluentd", "ds-uid")}
	case kindSameUIDOtherName:
		return []meta{controlledBy("DaemonSet", "fluentd-old", "ds-uid")}
	case kindNonControllerRef:
		return []meta{referencedBy("DaemonSet", "fluentd", "ds-uid", nil)}
	case kindControllerFalse:
		return []meta{referencedBy("DaemonSet", "fluentd", "ds-uid", new(false))}
	case kindTwoControllersOtherFirst:
		return []meta{controlledBy("DaemonSet", "other", "other-uid"), ownedByTestOwner()}
	default:
		return nil
	}
}

// randomPods returns n pods with unique names and UIDs and random shapes,
// labels, namespaces and deletion timestamps: about a quarter claimed, the
// rest spread over every rule of ClaimPods.
func randomPods(rng *rand.Rand, n int) []*corev1.Pod {
	pods := make([]*corev1.Pod, 0, n)
	for i := range n {
		opts := shapedMeta(rng.IntN(kindCount))
		if rng.IntN(4) == 0 {
			opts = append(opts, labelled(map[string]string{"app": "other"}))
		}
		if rng.IntN(10) == 0 {
			opts = append(opts, inNamespace("default"))
		}
		if rng.IntN(10) == 0 {
			opts = append(opts, beingDeleted())
		}
		pods = append(pods, newPod(fmt.Sprintf("fluentd-%05d", i), opts...))
	}
	return pods
}

// shuffled returns a shuffled copy of s.
func shuffled[T any](rng *rand.Rand, s []T) []T {
	out := slices.Clone(s)
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// byNameUID orders metadata as the claim results are documented to be.
func byNameUID(a, b *metav1.ObjectMeta) int {
	return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.UID, b.UID))
}
