package controller

import (
	"context"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// Controller is the replace controller: the cluster's DaemonSet controller,
// instead of kube-controller-manager's (which must be off). Its workers
// (syncer.Syncer) sync each DaemonSet by computing a plan with a
// daemon.Planner and carrying all of it out: creates and deletes of pods,
// revisions, adoption and release, status. Rollout annotations
// (syncer.RolloutOf) shape its plans, surge included; progress deadlines
// and rollout conditions are the companion's only.
type Controller struct {
	*syncer.Syncer

	// state carries a DaemonSet's failed-pod backoff and invalid mark from
	// one sync to the next; statusWrites holds back status writes that
	// only move counters (Config.StatusWriteInterval).
	state        *stateStore
	statusWrites *syncer.KeyThrottle
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
