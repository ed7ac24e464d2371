package syncer

import (
	"context"
	"sort"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2/ktesting"

	"github.com/daemonplan/daemonplan/examples/controller/internal/kubetest"
)

// harness is a Syncer on a kubetest.Cluster whose Sync does nothing: enough
// to test the handlers, the queue and the fence without a mode.
type harness struct {
	*kubetest.Cluster
	c *Syncer
}

var (
	t0       = kubetest.T0
	testDS   = kubetest.DaemonSet
	testNode = kubetest.Node
	ownedPod = kubetest.OwnedPod
)

func newHarness(t testing.TB, cfg Config, objs ...runtime.Object) *harness {
	t.Helper()
	k := kubetest.New(t, objs...)
	cfg.Recorder, cfg.Clock = k.Recorder, k.Clock
	s := New(k.Client, k.Factory, cfg, ktesting.NewLogger(t, ktesting.NewConfig()))
	s.Sync = func(context.Context, string) error { return nil }
	return &harness{Cluster: k, c: s}
}

// queued drains the syncer's queue and returns its keys, sorted.
func queued(c *Syncer) []string {
	var keys []string
	for c.Queue.Len() > 0 {
		k, _ := c.Queue.Get()
		c.Queue.Done(k)
		c.Queue.Forget(k)
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
