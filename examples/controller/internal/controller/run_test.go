package controller

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2/ktesting"

	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// TestRunConvergesAndShutsDown runs the whole loop (informers, queue,
// workers) on the fake clientset: the pods are created once each, the
// metrics count the syncs, and Run returns when its context ends.
func TestRunConvergesAndShutsDown(t *testing.T) {
	ds := testDS("ns", "ds")
	client := fake.NewClientset(ds, testNode("n1", nil), testNode("n2", nil), testNode("n3", nil))
	var n atomic.Int64
	client.PrependReactor("create", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
		pod := action.(k8stesting.CreateAction).GetObject().(*corev1.Pod)
		if pod.Name == "" {
			pod.Name = fmt.Sprintf("%s%05d", pod.GenerateName, n.Add(1))
			pod.UID = types.UID("uid-" + pod.Name)
		}
		return false, nil, nil
	})
	factory := informers.NewSharedInformerFactory(client, 0)
	reg := prometheus.NewRegistry()
	c := New(client, factory, syncer.Config{Workers: 2, Recorder: record.NewFakeRecorder(1000), Registerer: reg}, ktesting.NewLogger(t, ktesting.NewConfig()))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()

	err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 20*time.Second, true, func(ctx context.Context) (bool, error) {
		pods, err := client.CoreV1().Pods("ns").List(ctx, metav1.ListOptions{})
		return err == nil && len(pods.Items) >= 3, nil
	})
	if err != nil {
		t.Fatalf("pods never created: %v", err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run returned %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
	factory.Shutdown()

	pods, _ := client.CoreV1().Pods("ns").List(context.Background(), metav1.ListOptions{})
	perNode := map[string]int{}
	for _, p := range pods.Items {
		for _, term := range p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			for _, f := range term.MatchFields {
				perNode[f.Values[0]]++
			}
		}
	}
	for _, node := range []string{"n1", "n2", "n3"} {
		if perNode[node] != 1 {
			t.Errorf("node %s has %d pods, want 1", node, perNode[node])
		}
	}
	if got := testutil.ToFloat64(c.Metrics.Actions.WithLabelValues("create", "NodeNeedsPod")); got != 3 {
		t.Errorf("plan_actions_total{create,NodeNeedsPod} = %v, want 3", got)
	}
	if n, err := testutil.GatherAndCount(reg, syncer.MetricsNamespace+"_syncs_total"); err != nil || n == 0 {
		t.Error("no sync counted")
	}
}
