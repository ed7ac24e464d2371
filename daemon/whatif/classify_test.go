package whatif_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/daemonplan/daemonplan/daemon/whatif"
)

func ownedPod(apiVersion, kind string, controller bool, annotations map[string]string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", Annotations: annotations}}
	if kind != "" {
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: apiVersion, Kind: kind, Name: "owner", Controller: ptr.To(controller)}}
	}
	return p
}

func TestIsDaemonSetPod(t *testing.T) {
	kruise := whatif.PodClassifier{ExtraKinds: []schema.GroupKind{whatif.KruiseDaemonSet}}
	tests := []struct {
		name       string
		pod        *corev1.Pod
		classifier whatif.PodClassifier
		want       bool
	}{
		{name: "a nil pod", pod: nil},
		{name: "a pod of an apps/v1 DaemonSet", pod: ownedPod("apps/v1", "DaemonSet", true, nil), want: true},
		{name: "any version of group apps", pod: ownedPod("apps/v1beta2", "DaemonSet", true, nil), want: true},
		{name: "an owner that is not the controller does not count", pod: ownedPod("apps/v1", "DaemonSet", false, nil)},
		{name: "extensions/v1beta1 is another group", pod: ownedPod("extensions/v1beta1", "DaemonSet", true, nil)},
		{name: "an empty apiVersion is not group apps", pod: ownedPod("", "DaemonSet", true, nil)},
		{name: "a ReplicaSet's pod (a GPU workload) is not a DaemonSet pod", pod: ownedPod("apps/v1", "ReplicaSet", true, nil)},
		{name: "OpenKruise's DaemonSet is not one by default (kubernetes/autoscaler#2453)", pod: ownedPod("apps.kruise.io/v1alpha1", "DaemonSet", true, nil)},
		{name: "OpenKruise's DaemonSet when named", pod: ownedPod("apps.kruise.io/v1beta1", "DaemonSet", true, nil), classifier: kruise, want: true},
		{name: "the extra kind needs its group", pod: ownedPod("example.com/v1", "DaemonSet", true, nil), classifier: kruise},
		{name: "the cluster-autoscaler annotation", pod: ownedPod("crd.example/v1", "NodeAgent", true, map[string]string{whatif.DaemonSetPodAnnotation: "true"}), want: true},
		{name: "the annotation must say exactly true", pod: ownedPod("", "", false, map[string]string{whatif.DaemonSetPodAnnotation: "True"})},
		{name: "the annotation can be ignored", pod: ownedPod("", "", false, map[string]string{whatif.DaemonSetPodAnnotation: "true"}), classifier: whatif.PodClassifier{IgnoreAnnotation: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.classifier.IsDaemonSetPod(tt.pod); got != tt.want {
				t.Errorf("IsDaemonSetPod() = %v, want %v", got, tt.want)
			}
			if tt.classifier.ExtraKinds == nil && !tt.classifier.IgnoreAnnotation {
				if got := whatif.IsDaemonSetPod(tt.pod); got != tt.want {
					t.Errorf("whatif.IsDaemonSetPod() = %v, want %v", got, tt.want)
				}
			}
		})
	}
	p := ownedPod("apps/v1", "DaemonSet", true, nil)
	if allocs := testing.AllocsPerRun(100, func() { kruise.IsDaemonSetPod(p) }); allocs != 0 {
		t.Errorf("IsDaemonSetPod() allocates %v times", allocs)
	}
}

// TestOverheadCountsOnlyDaemonSetPods is the autoscaler report of a GPU
// workload pod counted as DaemonSet overhead: classify first, then sum.
func TestOverheadCountsOnlyDaemonSetPods(t *testing.T) {
	agent := ownedPod("apps/v1", "DaemonSet", true, nil)
	agent.Spec.Containers = []corev1.Container{ctr("agent", rl("cpu", "100m"), nil)}
	training := ownedPod("batch/v1", "Job", true, nil)
	training.Spec.Containers = []corev1.Container{ctr("train", rl("cpu", "8", "nvidia.com/gpu", "1"), nil)}
	var daemonPods []*corev1.Pod
	for _, p := range []*corev1.Pod{agent, training} {
		if whatif.IsDaemonSetPod(p) {
			daemonPods = append(daemonPods, p)
		}
	}
	got := whatif.Overhead(daemonPods, whatif.OverheadOptions{})
	if diff := cmp.Diff(whatif.Footprint{Pods: 1, Requests: rl("cpu", "100m")}, got, quantityCmp); diff != "" {
		t.Errorf("overhead of the node's DaemonSet pods (-want +got):\n%s", diff)
	}
}

func ExamplePodClassifier_IsDaemonSetPod() {
	pods := []*corev1.Pod{
		ownedPod("apps/v1", "DaemonSet", true, nil),
		ownedPod("apps.kruise.io/v1beta1", "DaemonSet", true, nil),
		ownedPod("batch/v1", "Job", true, nil),
		ownedPod("example.com/v1", "NodeAgent", true, map[string]string{whatif.DaemonSetPodAnnotation: "true"}),
	}
	c := whatif.PodClassifier{ExtraKinds: []schema.GroupKind{whatif.KruiseDaemonSet}}
	for _, p := range pods {
		ref := p.OwnerReferences[0]
		fmt.Printf("%s %s: %v\n", ref.APIVersion, ref.Kind, c.IsDaemonSetPod(p))
	}
	// Output:
	// apps/v1 DaemonSet: true
	// apps.kruise.io/v1beta1 DaemonSet: true
	// batch/v1 Job: false
	// example.com/v1 NodeAgent: true
}
