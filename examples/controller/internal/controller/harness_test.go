package controller

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2/ktesting"

	"github.com/daemonplan/daemonplan/examples/controller/internal/kubetest"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// harness is a replace controller on a kubetest.Cluster: enough to test
// the plumbing of one sync without a cluster.
type harness struct {
	*kubetest.Cluster
	c *Controller
}

var (
	t0          = kubetest.T0
	testDS      = kubetest.DaemonSet
	testNode    = kubetest.Node
	ownedPod    = kubetest.OwnedPod
	daemonPod   = kubetest.DaemonPod
	companionDS = kubetest.AnnotatedDS
	revisionOf  = kubetest.Revision
	hasEvent    = kubetest.HasEvent
)

func newHarness(t testing.TB, cfg syncer.Config, objs ...runtime.Object) *harness {
	t.Helper()
	k := kubetest.New(t, objs...)
	cfg.Recorder, cfg.Clock = k.Recorder, k.Clock
	return &harness{Cluster: k, c: New(k.Client, k.Factory, cfg, ktesting.NewLogger(t, ktesting.NewConfig()))}
}

// observeAll moves what the fake API server holds in ns into the caches,
// as the informers would (kubetest.Cluster.ObserveAll).
func (h *harness) observeAll(ns string) {
	h.T.Helper()
	h.ObserveAll(ns, h.c.AddPod)
}
