package main

import (
	"bytes"
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/daemonplan/daemonplan/daemon/snapshot"
)

// TestList lists a fake cluster and checks that the printed List decodes
// back into the same objects, and that nothing was written.
func TestList(t *testing.T) {
	cs := fake.NewClientset(
		&appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "kube-system"}},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "agent-x", Namespace: "kube-system"}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}},
		&appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: "agent-1", Namespace: "kube-system"}},
	)
	s, err := list(context.Background(), cs, "kube-system")
	if err != nil {
		t.Fatal(err)
	}
	data, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := snapshot.Decode("live", data)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.DaemonSets) != 1 || len(got.Nodes) != 1 || len(got.Pods) != 1 || len(got.Revisions) != 1 {
		t.Errorf("decoded %d DaemonSets, %d nodes, %d pods, %d revisions; want 1 each (pods of kube-system only):\n%s",
			len(got.DaemonSets), len(got.Nodes), len(got.Pods), len(got.Revisions), data)
	}
	for _, a := range cs.Actions() {
		if v := a.GetVerb(); v != "list" {
			t.Errorf("action %s %s: want only list", v, a.GetResource().Resource)
		}
	}
	var out bytes.Buffer
	if code := run([]string{"unexpected"}, &out, &out); code != 2 {
		t.Errorf("run(unexpected argument) = %d, want 2", code)
	}
}
