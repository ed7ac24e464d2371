package controller

import (
	"context"
	"fmt"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2/ktesting"
	clocktesting "k8s.io/utils/clock/testing"
)

// harness is a controller whose informer caches are filled by hand (never
// started) and whose client is client-go's fake clientset: enough to test
// the plumbing of one sync without a cluster.
type harness struct {
	t        testing.TB
	c        *Controller
	client   *fake.Clientset
	factory  informers.SharedInformerFactory
	recorder *record.FakeRecorder
	clock    *clocktesting.FakeClock
}

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func newHarness(t testing.TB, cfg Config, objs ...runtime.Object) *harness {
	t.Helper()
	client := fake.NewClientset(objs...)
	var n atomic.Int64
	// The fake clientset does not implement generateName.
	client.PrependReactor("create", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
		pod := action.(k8stesting.CreateAction).GetObject().(*corev1.Pod)
		if pod.Name == "" {
			pod.Name = fmt.Sprintf("%s%05d", pod.GenerateName, n.Add(1))
			pod.UID = types.UID("uid-" + pod.Name)
		}
		return false, nil, nil
	})
	factory := informers.NewSharedInformerFactory(client, 0)
	h := &harness{t: t, client: client, factory: factory, recorder: record.NewFakeRecorder(1000), clock: clocktesting.NewFakeClock(t0)}
	cfg.Recorder, cfg.Clock = h.recorder, h.clock
	h.c = New(client, factory, cfg, ktesting.NewLogger(t, ktesting.NewConfig()))
	for _, o := range objs {
		h.cache(o)
	}
	return h
}

// cache puts obj in its informer's cache without running the handlers.
func (h *harness) cache(obj runtime.Object) {
	h.t.Helper()
	var err error
	switch o := obj.(type) {
	case *appsv1.DaemonSet:
		err = h.factory.Apps().V1().DaemonSets().Informer().GetIndexer().Add(o)
	case *corev1.Node:
		err = h.factory.Core().V1().Nodes().Informer().GetIndexer().Add(o)
	case *corev1.Pod:
		err = h.factory.Core().V1().Pods().Informer().GetIndexer().Add(o)
	case *appsv1.ControllerRevision:
		err = h.factory.Apps().V1().ControllerRevisions().Informer().GetIndexer().Add(o)
	default:
		h.t.Fatalf("cache: unexpected %T", obj)
	}
	if err != nil {
		h.t.Fatal(err)
	}
}

// observeAll copies the pods and revisions the fake API server holds into the
// caches, running the handlers for new pods as an informer would.
func (h *harness) observeAll(ns string) {
	h.t.Helper()
	pods, err := h.client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	indexer := h.factory.Core().V1().Pods().Informer().GetIndexer()
	for i := range pods.Items {
		p := &pods.Items[i]
		if _, exists, _ := indexer.Get(p); !exists {
			h.cache(p)
			h.c.addPod(p)
		}
	}
	revs, err := h.client.AppsV1().ControllerRevisions(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	for i := range revs.Items {
		h.cache(&revs.Items[i])
	}
}

// writes returns the verbs and resources of the write actions the client
// saw since the last call, sorted.
func (h *harness) writes() []string {
	var out []string
	for _, a := range h.client.Actions() {
		switch a.GetVerb() {
		case "get", "list", "watch":
			continue
		}
		s := a.GetVerb() + " " + a.GetResource().Resource
		if a.GetSubresource() != "" {
			s += "/" + a.GetSubresource()
		}
		out = append(out, s)
	}
	h.client.ClearActions()
	sort.Strings(out)
	return out
}

// events drains the recorded events.
func (h *harness) events() []string {
	var out []string
	for {
		select {
		case e := <-h.recorder.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

func testDS(ns, name string, mutate ...func(*appsv1.DaemonSet)) *appsv1.DaemonSet {
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("uid-" + name), Generation: 1},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "img"}}},
			},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType},
		},
	}
	for _, m := range mutate {
		m(ds)
	}
	return ds
}

func testNode(name string, labels map[string]string, taints ...corev1.Taint) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, UID: types.UID("uid-" + name), ResourceVersion: "1"},
		Spec:       corev1.NodeSpec{Taints: taints},
		Status:     corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
	}
}

// ownedPod is a running pod of ds bound to node.
func ownedPod(ds *appsv1.DaemonSet, name, node string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ds.Namespace, Name: name, UID: types.UID("uid-" + name), ResourceVersion: "1",
			Labels:          map[string]string{"app": ds.Name},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(ds, appsv1.SchemeGroupVersion.WithKind("DaemonSet"))},
		},
		Spec:   corev1.PodSpec{NodeName: node},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
}
