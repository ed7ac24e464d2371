package controller

import (
	"context"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/daemonplan/daemonplan/daemon/progressive/window"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// Controller is the replace controller: the cluster's DaemonSet controller,
// instead of kube-controller-manager's (which must be off). Its workers
// (syncer.Syncer) sync each DaemonSet by computing a plan with a
// daemon.Planner and carrying all of it out: creates and deletes of pods,
// revisions, adoption and release, status. Rollout annotations
// (progressive.ForDaemonSet) shape its plans, surge included, and their
// gates hold them (holds); progress deadlines, rollout conditions and
// on-failure rollback are the companion's only.
type Controller struct {
	*syncer.Syncer

	// state carries a DaemonSet's failed-pod backoff and invalid mark from
	// one sync to the next; statusWrites holds back status writes that
	// only move counters (Config.StatusWriteInterval).
	state        *stateStore
	statusWrites *syncer.KeyThrottle
	// zones resolves the maintenance windows' time zones
	// (syncer.NewZoneCache).
	zones window.Zones
}

// New returns a replace controller that reads the cluster through
// factory's informers and writes through client (see syncer.New, which
// says what it sets on the factory). Run starts it.
func New(client kubernetes.Interface, factory informers.SharedInformerFactory, cfg syncer.Config, logger klog.Logger) *Controller {
	if cfg.StatusWriteInterval == 0 {
		cfg.StatusWriteInterval = DefaultStatusWriteInterval
	}
	c := &Controller{
		Syncer:       syncer.New(client, factory, cfg, logger),
		state:        newStateStore(),
		statusWrites: syncer.NewKeyThrottle(cfg.StatusWriteInterval),
		zones:        syncer.NewZoneCache(time.LoadLocation),
	}
	c.Sync = c.sync
	forget := func(key string) {
		c.state.forget(key)
		c.statusWrites.Forget(key)
	}
	c.ForgetDeleted, c.ForgetGone = forget, forget
	return c
}

// Run runs the controller until ctx is done (syncer.Syncer.Run).
func (c *Controller) Run(ctx context.Context) error {
	return c.Syncer.Run(ctx, "replace")
}
