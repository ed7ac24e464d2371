package selector_test

import (
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/selector"
)

func ExampleForDaemonSet() {
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "fluentd"},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{
			MatchLabels: map[string]string{"app": "fluentd"},
			MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"node", "edge"}},
			},
		}},
	}
	sel, err := selector.ForDaemonSet(ds)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sel)
	fmt.Println(sel.Matches(labels.Set{"app": "fluentd", "tier": "edge"}))
	fmt.Println(sel.Matches(labels.Set{"app": "fluentd"}))
	// Output:
	// app=fluentd,tier in (edge,node)
	// true
	// false
}

// An exactly empty selector stops the sync; callers branch on ErrSelectsAll.
func ExampleForDaemonSet_selectsAll() {
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "fluentd"},
		Spec:       appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{}},
	}
	_, err := selector.ForDaemonSet(ds)
	fmt.Println(errors.Is(err, selector.ErrSelectsAll))
	// Output:
	// true
}

// Parse errors carry the path of the offending field.
func ExampleForDaemonSet_invalid() {
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "fluentd"},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{
			MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "app", Operator: metav1.LabelSelectorOpExists},
				{Key: "tier", Operator: metav1.LabelSelectorOpIn},
			},
		}},
	}
	_, err := selector.ForDaemonSet(ds)
	fmt.Println(err)
	var fe *field.Error
	if errors.As(err, &fe) {
		fmt.Println(fe.Type, "at", fe.Field)
	}
	// Output:
	// spec.selector.matchExpressions[1].values: Required value: operator In needs at least one value
	// Required value at spec.selector.matchExpressions[1].values
}

func ExampleMatchesTemplate() {
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "fluentd"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "fluentd"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "fluent-bit"}}},
		},
	}
	fmt.Println(selector.MatchesTemplate(ds))
	// Output:
	// spec.template.metadata.labels: Invalid value: "app=fluent-bit": the selector "app=fluentd" does not match the pod template's labels
}

func ExampleOwnerOf() {
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "fluentd", UID: "1234"}}
	fmt.Printf("%+v\n", selector.OwnerOf(ds))
	// Output:
	// {Namespace:kube-system Name:fluentd UID:1234 Kind:DaemonSet Deleting:false}
}

func ExampleClaimPods() {
	owner := selector.Owner{Namespace: "kube-system", Name: "fluentd", UID: "ds-1", Kind: "DaemonSet"}
	sel := labels.SelectorFromSet(labels.Set{"app": "fluentd"})
	ref := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "fluentd", UID: "ds-1", Controller: new(true)}
	pod := func(name, app string, refs ...metav1.OwnerReference) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
			Namespace: "kube-system", Name: name, UID: types.UID("uid-" + name),
			Labels: map[string]string{"app": app}, OwnerReferences: refs,
		}}
	}
	pods := []*corev1.Pod{
		pod("fluentd-c", "fluentd", ref), // ours, matching: kept
		pod("fluentd-a", "fluentd"),      // orphan, matching: adopted
		pod("fluentd-b", "debug", ref),   // ours, relabelled: released
		pod("nginx", "nginx"),            // orphan, not matching: ignored
	}
	claims := selector.ClaimPods(owner, sel, pods)
	for _, p := range claims.Claimed {
		fmt.Println("claimed", p.Name)
	}
	for _, p := range claims.Adopt {
		fmt.Println("adopt", p.Name)
	}
	for _, p := range claims.Release {
		fmt.Println("release", p.Name)
	}
	// Output:
	// claimed fluentd-a
	// claimed fluentd-c
	// adopt fluentd-a
	// release fluentd-b
}

func ExampleClaimRevisions() {
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "fluentd", UID: "ds-1"}}
	sel := labels.SelectorFromSet(labels.Set{"app": "fluentd"})
	rev := func(name string, controllerUID types.UID) *appsv1.ControllerRevision {
		r := &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{
			Namespace: "kube-system", Name: name, Labels: map[string]string{"app": "fluentd"},
		}}
		if controllerUID != "" {
			// Only the UID identifies the owner of a revision.
			r.OwnerReferences = []metav1.OwnerReference{{Kind: "Anything", Name: "x", UID: controllerUID, Controller: new(true)}}
		}
		return r
	}
	claims := selector.ClaimRevisions(selector.OwnerOf(ds), sel, []*appsv1.ControllerRevision{
		rev("fluentd-7d9f", "ds-1"), rev("fluentd-5c4b", ""), rev("other-1", "ds-2"),
	})
	for _, r := range claims.Claimed {
		fmt.Println("claimed", r.Name)
	}
	for _, r := range claims.Adopt {
		fmt.Println("adopt", r.Name)
	}
	// Output:
	// claimed fluentd-5c4b
	// claimed fluentd-7d9f
	// adopt fluentd-5c4b
}

func ExampleDecidePod() {
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "fluentd", Namespace: "logging", UID: "uid-1"}}
	sel := labels.SelectorFromSet(labels.Set{"app": "fluentd"})
	orphan := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "fluentd-x", Namespace: "logging", Labels: map[string]string{"app": "fluentd"}}}
	stranger := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "logging", Labels: map[string]string{"app": "web"}}}
	owner := selector.OwnerOf(ds)
	fmt.Println(selector.DecidePod(owner, sel, orphan), selector.DecidePod(owner, sel, stranger))
	// Output:
	// Adopt Ignore
}
