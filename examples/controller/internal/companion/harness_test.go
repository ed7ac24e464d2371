package companion

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/daemonplan/daemonplan/examples/controller/internal/kubetest"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
	"github.com/daemonplan/daemonplan/examples/controller/internal/synctest"
)

// harness is a companion on a kubetest.Cluster (synctest.Harness), with
// the steps of a companion's sync.
type harness struct {
	*synctest.Harness[*Companion]
}

var (
	t0          = kubetest.T0
	testDS      = kubetest.DaemonSet
	testNode    = kubetest.Node
	daemonPod   = kubetest.DaemonPod
	companionDS = kubetest.AnnotatedDS
	revisionOf  = kubetest.Revision
	hasEvent    = kubetest.HasEvent
)

func newHarness(t testing.TB, cfg syncer.Config, objs ...runtime.Object) *harness {
	t.Helper()
	return &harness{synctest.New(t, New, cfg, objs...)}
}

// refreshDS copies the DaemonSet the fake API server holds into the cache.
func (h *harness) refreshDS(ns, name string) *appsv1.DaemonSet {
	h.T.Helper()
	return h.RefreshDS(ns, name)
}

// goneFromCache removes pod from the pod cache and runs the delete handler.
func (h *harness) goneFromCache(pod *corev1.Pod) {
	h.T.Helper()
	if err := h.Factory.Core().V1().Pods().Informer().GetIndexer().Delete(pod); err != nil {
		h.T.Fatal(err)
	}
	h.Mode.DeletePod(pod)
}

// syncCompanion syncs key, copies the DaemonSet it wrote into the cache and
// returns its writes.
func (h *harness) syncCompanion(key string) []string {
	h.T.Helper()
	if err := h.Mode.sync(context.Background(), key); err != nil {
		h.T.Fatalf("sync: %v", err)
	}
	ns, name, _ := strings.Cut(key, "/")
	h.refreshDS(ns, name)
	return h.Writes()
}

func podNames(t *testing.T, h *harness) []string {
	t.Helper()
	return h.PodNames("ns")
}
