package rollout_test

import (
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/daemonplan/daemonplan/rollout"
)

// exampleDS is kube-system/agent running image.
func exampleDS(image string) *appsv1.DaemonSet {
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "agent", UID: "uid-agent"},
		Spec: appsv1.DaemonSetSpec{
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "agent"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: image}}},
			},
		},
	}
}

// exampleRevision records ds's template as revision name/number.
func exampleRevision(ds *appsv1.DaemonSet, name, hash string, number int64) *appsv1.ControllerRevision {
	data, _ := rollout.Patch(ds)
	return &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "kube-system", Name: name,
			Labels: map[string]string{"app": "agent", appsv1.ControllerRevisionHashLabelKey: hash},
		},
		Data:     runtime.RawExtension{Raw: data},
		Revision: number,
	}
}

func ExamplePatch() {
	data, _ := rollout.Patch(exampleDS("registry.example/agent:v1"))
	fmt.Println(string(data))
	// Output:
	// {"spec":{"template":{"$patch":"replace","metadata":{"labels":{"app":"agent"}},"spec":{"containers":[{"image":"registry.example/agent:v1","name":"agent","resources":{}}]}}}}
}

func ExampleMatch() {
	v1 := exampleDS("registry.example/agent:v1")
	rev := exampleRevision(v1, "agent-v1", "v1", 1)
	ok, _ := rollout.Match(v1, rev)
	fmt.Println(ok)
	ok, _ = rollout.Match(exampleDS("registry.example/agent:v2"), rev)
	fmt.Println(ok)
	// Output:
	// true
	// false
}

func ExampleConstructHistory() {
	v1 := exampleDS("registry.example/agent:v1")
	v2 := exampleDS("registry.example/agent:v2")
	old := exampleRevision(v1, "agent-v1", "v1", 3)

	// The template changed to v2: the revision for it is created above the
	// old one.
	h, _ := rollout.ConstructHistory(v2, []*appsv1.ControllerRevision{old}, []*appsv1.ControllerRevision{old}, nil)
	fmt.Println("create:", h.Plan.Create.Name, "revision", h.Plan.Create.Revision, "hash", h.Hash)
	fmt.Println("old:", h.Old[0].Name)

	// Two revisions store v2 (for example after a controller restart): the
	// higher one is kept and pods labelled with the other are relabelled.
	a := exampleRevision(v2, "agent-a", "a", 4)
	b := exampleRevision(v2, "agent-b", "b", 5)
	pods := []*corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Name: "agent-x", Labels: map[string]string{appsv1.ControllerRevisionHashLabelKey: "a"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "agent-y", Labels: map[string]string{appsv1.ControllerRevisionHashLabelKey: "b"}}},
	}
	claimed := []*appsv1.ControllerRevision{old, a, b}
	h, _ = rollout.ConstructHistory(v2, claimed, claimed, pods)
	fmt.Println("current:", h.Current.Name, "delete:", h.Plan.Delete[0].Name, "relabel:", h.Plan.Relabel[0].Name)

	// The name of the new revision is taken by a revision with other data.
	taken := exampleRevision(v1, "agent-"+rollout.ComputeHash(&v2.Spec.Template, nil), "x", 1)
	h, err := rollout.ConstructHistory(v2, nil, []*appsv1.ControllerRevision{taken}, nil)
	var collision *rollout.CollisionError
	fmt.Println(errors.As(err, &collision), *h.Plan.CollisionCount)
	// Output:
	// create: agent-6dccf88977 revision 4 hash 6dccf88977
	// old: agent-v1
	// current: agent-b delete: agent-a relabel: agent-x
	// true 1
}

func ExampleCleanupHistory() {
	ds := exampleDS("registry.example/agent:v4")
	limit := int32(1)
	ds.Spec.RevisionHistoryLimit = &limit
	var old []*appsv1.ControllerRevision
	for i, hash := range []string{"h1", "h2", "h3"} {
		old = append(old, exampleRevision(exampleDS("registry.example/agent:"+hash), "agent-"+hash, hash, int64(i+1)))
	}
	// Two of the three old revisions must go to keep one. A pod still runs
	// h1, so it is spared, and the next oldest, h2 and h3, are deleted.
	live := []*corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Name: "agent-x", Labels: map[string]string{appsv1.ControllerRevisionHashLabelKey: "h1"}}}}
	for _, r := range rollout.CleanupHistory(ds, old, live) {
		fmt.Println(r.Name)
	}
	// Output:
	// agent-h2
	// agent-h3
}

func ExampleHistoryLimit() {
	ds := exampleDS("registry.example/agent:v1")
	fmt.Println(rollout.HistoryLimit(ds)) // unset: the API default
	limit := int32(3)
	ds.Spec.RevisionHistoryLimit = &limit
	fmt.Println(rollout.HistoryLimit(ds))
	// Output:
	// 10
	// 3
}

func ExampleHistoryPlan_IsZero() {
	ds := exampleDS("registry.example/agent:v1")
	cur := exampleRevision(ds, "agent-v1", "v1", 1)
	h, _ := rollout.ConstructHistory(ds, []*appsv1.ControllerRevision{cur}, nil, nil)
	fmt.Println(h.Plan.IsZero(), h.Hash)
	// Output:
	// true v1
}

func ExampleCollisionError() {
	ds := exampleDS("registry.example/agent:v2")
	taken := exampleRevision(exampleDS("registry.example/agent:v1"), "agent-"+rollout.ComputeHash(&ds.Spec.Template, nil), "x", 1)
	_, err := rollout.ConstructHistory(ds, nil, []*appsv1.ControllerRevision{taken}, nil)
	fmt.Println(err)
	// Output:
	// controllerrevision "agent-6dccf88977" already exists with different data; status.collisionCount must become 1; first difference: spec.template.spec.containers[0].image: the revision has "registry.example/agent:v1", the DaemonSet's patch has "registry.example/agent:v2"
}

func ExampleDiffRevision() {
	ds := exampleDS("registry.example/agent:v2")
	rev := exampleRevision(ds, "agent-v2", "v2", 1)
	// The encoding older controllers wrote: byte-exact matching fails.
	rev.Data.Raw = []byte(`{"spec":{"template":{"$patch":"replace","metadata":{"creationTimestamp":null,"labels":{"app":"agent"}},"spec":{"containers":[{"image":"registry.example/agent:v2","name":"agent","resources":{}}]}}}}`)
	d, _ := rollout.DiffRevision(ds, rev)
	fmt.Println(d.Kind == rollout.DiffOnlyInRevision)
	fmt.Println(d)
	// Output:
	// true
	// spec.template.metadata.creationTimestamp: the revision has null, the DaemonSet's patch has nothing
}
