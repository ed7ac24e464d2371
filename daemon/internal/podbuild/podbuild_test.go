package podbuild_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"

	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/internal/podbuild"
)

// TestPodSharesNothing: the DaemonSet is left as it was, and two pods of
// one Builder share no memory with each other or with the DaemonSet.
func TestPodSharesNothing(t *testing.T) {
	ds := dt.DaemonSet("agent", dt.PlacementOptions()...)
	ds.Spec.Template.Annotations = map[string]string{"a": "b"}
	ds.Spec.Template.Finalizers = []string{"f"}
	before := ds.DeepCopy()
	gen := int64(3)
	b := podbuild.New(ds, &gen, "hash")
	p1, p2 := b.Pod("n1"), b.Pod("n2")
	p1.Labels["x"], p1.Annotations["a"], p1.Finalizers[0] = "y", "z", "g"
	p1.Spec.Tolerations[0].Key = "changed"
	p1.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchFields[0].Values[0] = "other"
	*p1.OwnerReferences[0].Controller = false
	if diff := cmp.Diff(before, ds); diff != "" {
		t.Errorf("New() or Pod() modified the DaemonSet, or a pod shares its memory (-before +after):\n%s", diff)
	}
	want := b.Pod("n2")
	if diff := cmp.Diff(want, p2); diff != "" {
		t.Errorf("changing one pod changed another (-want +got):\n%s", diff)
	}
	if got := p2.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]; got != "hash" {
		t.Errorf("hash label = %q, want %q", got, "hash")
	}
	if got := p2.Labels["pod-template-generation"]; got != "3" {
		t.Errorf("pod-template-generation label = %q, want 3", got)
	}
}
