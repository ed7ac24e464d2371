package synctest

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"

	"github.com/daemonplan/daemonplan/examples/controller/internal/kubetest"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// Mode is a sync loop built on syncer.Syncer, as a Harness drives it: its
// pod add handler.
type Mode interface {
	AddPod(obj any)
}

// NewMode builds a mode that reads through factory's informers and writes
// through client, as companion.New and controller.New do.
type NewMode[M Mode] func(client kubernetes.Interface, factory informers.SharedInformerFactory, cfg syncer.Config, logger klog.Logger) M

// Harness is a mode on a kubetest.Cluster: enough to test its syncs
// without a cluster.
type Harness[M Mode] struct {
	*kubetest.Cluster
	// Mode is the mode under test, built on Cluster's client, informers,
	// recorder and clock.
	Mode M
}

// New returns a Harness whose fake API server and caches hold objs, and
// whose mode newMode builds from cfg with the cluster's recorder and clock
// and a logger that writes to t.
func New[M Mode](t testing.TB, newMode NewMode[M], cfg syncer.Config, objs ...runtime.Object) *Harness[M] {
	t.Helper()
	k := kubetest.New(t, objs...)
	cfg.Recorder, cfg.Clock = k.Recorder, k.Clock
	return &Harness[M]{Cluster: k, Mode: newMode(k.Client, k.Factory, cfg, ktesting.NewLogger(t, ktesting.NewConfig()))}
}

// Observe moves what the fake API server holds in ns into the caches and
// passes each new pod to the mode's AddPod, as the informers would
// (kubetest.Cluster.ObserveAll).
func (h *Harness[M]) Observe(ns string) {
	h.T.Helper()
	h.ObserveAll(ns, h.Mode.AddPod)
}
