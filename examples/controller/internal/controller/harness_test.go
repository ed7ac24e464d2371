package controller

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/daemonplan/daemonplan/examples/controller/internal/kubetest"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
	"github.com/daemonplan/daemonplan/examples/controller/internal/synctest"
)

// harness is a replace controller on a kubetest.Cluster.
type harness = synctest.Harness[*Controller]

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
	return synctest.New(t, New, cfg, objs...)
}
