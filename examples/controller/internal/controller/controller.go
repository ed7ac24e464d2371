package controller

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// ComponentName is the source of the events the controller records.
const ComponentName = "daemonplan-controller"

// Controller is a DaemonSet controller: event handlers put the keys of the
// DaemonSets a change can affect on a rate-limited queue, and workers sync
// each key by computing a plan with a daemon.Planner (one per worker) and
// carrying it out.
type Controller struct {
	client   kubernetes.Interface
	cfg      Config
	logger   klog.Logger
	recorder record.EventRecorder

	factory  informers.SharedInformerFactory
	dsLister appslisters.DaemonSetLister
	nodes    corelisters.NodeLister
	pods     corelisters.PodLister
	revs     appslisters.ControllerRevisionLister
	synced   []cache.InformerSynced

	queue        workqueue.TypedRateLimitingInterface[string]
	expectations *Expectations
	state        *stateStore
	placement    *placementCache
	fence        *writeFence
	planners     *plannerPool
	// statusWrites holds back status writes that only move counters
	// (Config.StatusWriteInterval); spacing spaces the syncs of a key by
	// its plans' cost (Config.SyncSpacing).
	statusWrites *keyThrottle
	spacing      *syncSpacer
	metrics      *metrics
	// companion keeps the warnings about rollout annotations (both modes)
	// and the waves announced (ModeCompanion); rolloutMetrics serve
	// ModeCompanion.
	companion      *companionState
	rolloutMetrics *rolloutMetrics

	// syncFunc is sync, replaced in tests.
	syncFunc func(ctx context.Context, key string) error
}

// New returns a controller that reads the cluster through factory's
// DaemonSet, Node, Pod and ControllerRevision informers (it registers its
// event handlers on them now) and writes through client. Run starts it.
//
// New sets the four informers' transform (cache.TransformFunc) so that
// their caches keep only what a plan reads (see planningView): the factory
// must not have started them, and code sharing it sees the same trimmed
// objects.
func New(client kubernetes.Interface, factory informers.SharedInformerFactory, cfg Config, logger klog.Logger) *Controller {
	cfg = cfg.withDefaults()
	c := &Controller{
		client:  client,
		cfg:     cfg,
		logger:  logger,
		factory: factory,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "daemonset", Clock: tickerOf(cfg.Clock)}),
		expectations: NewExpectations(cfg.Clock, cfg.ExpectationsTimeout),
		state:        newStateStore(),
		placement:    newPlacementCache(cfg.EnableTaintTolerationComparisonOperators),
		planners:     newPlannerPool(cfg.Workers),
		statusWrites: newKeyThrottle(cfg.StatusWriteInterval),
		spacing:      newSyncSpacer(cfg.SyncSpacing),
		recorder:     cfg.Recorder,
	}
	c.syncFunc = c.sync
	c.metrics = newMetrics(cfg.Registerer, c.queue)
	c.companion = newCompanionState()
	if cfg.Mode == ModeCompanion {
		c.syncFunc = c.syncCompanion
		c.rolloutMetrics = newRolloutMetrics(cfg.Registerer, cfg.Clock)
	}

	dsInf := factory.Apps().V1().DaemonSets()
	nodeInf := factory.Core().V1().Nodes()
	podInf := factory.Core().V1().Pods()
	revInf := factory.Apps().V1().ControllerRevisions()
	c.dsLister, c.nodes, c.pods, c.revs = dsInf.Lister(), nodeInf.Lister(), podInf.Lister(), revInf.Lister()
	c.fence = newWriteFence(map[string]rvSource{
		fencePods:       podInf.Informer().GetStore(),
		fenceDaemonSets: dsInf.Informer().GetStore(),
	})
	for _, inf := range []cache.SharedIndexInformer{dsInf.Informer(), nodeInf.Informer(), podInf.Informer(), revInf.Informer()} {
		// SetTransform fails only on a started informer, whose cache
		// then keeps whole objects: more memory, the same plans.
		if err := inf.SetTransform(planningView); err != nil {
			logger.Error(err, "Informer already started: its cache keeps whole objects")
		}
	}
	c.synced = []cache.InformerSynced{
		dsInf.Informer().HasSynced, nodeInf.Informer().HasSynced,
		podInf.Informer().HasSynced, revInf.Informer().HasSynced,
	}
	// AddEventHandler only fails on a stopped informer, which a new
	// controller is not given.
	_, _ = dsInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: c.addDaemonSet, UpdateFunc: c.updateDaemonSet, DeleteFunc: c.deleteDaemonSet,
	})
	_, _ = nodeInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: c.addNode, UpdateFunc: c.updateNode, DeleteFunc: c.deleteNode,
	})
	_, _ = podInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: c.addPod, UpdateFunc: c.updatePod, DeleteFunc: c.deletePod,
	})
	_, _ = revInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: c.addRevision, UpdateFunc: c.updateRevision, DeleteFunc: c.deleteRevision,
	})
	return c
}

// Run starts the informers, waits for their caches, runs the workers and
// blocks until ctx is done; then it stops taking work, waits for the syncs
// under way to finish and returns. It returns an error only when the caches
// never sync. Call it once.
func (c *Controller) Run(ctx context.Context) error {
	defer utilruntime.HandleCrash()
	defer c.queue.ShutDown()

	if c.recorder == nil {
		broadcaster := record.NewBroadcaster(record.WithContext(ctx))
		broadcaster.StartStructuredLogging(3)
		broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: c.client.CoreV1().Events("")})
		defer broadcaster.Shutdown()
		c.recorder = broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: ComponentName})
	}

	c.logger.Info("Starting controller", "mode", c.cfg.mode(), "workers", c.cfg.Workers, "burstReplicas", c.cfg.BurstReplicas)
	c.factory.Start(ctx.Done())
	if !cache.WaitForNamedCacheSync(ComponentName, ctx.Done(), c.synced...) {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("%s: informer caches did not sync", ComponentName)
	}

	var wg sync.WaitGroup
	for range c.cfg.Workers {
		wg.Go(func() { wait.UntilWithContext(ctx, c.runWorker, time.Second) })
	}
	<-ctx.Done()
	c.logger.Info("Shutting down controller")
	c.queue.ShutDown()
	wg.Wait()
	return nil
}

// tickerOf returns clk as the work queue's clock, for its delayed adds; nil
// (the real clock) when clk cannot make tickers.
func tickerOf(clk clock.Clock) clock.WithTicker {
	if t, ok := clk.(clock.WithTicker); ok {
		return t
	}
	return nil
}

func (c *Controller) runWorker(ctx context.Context) {
	for c.processNextItem(ctx) {
	}
}

// processNextItem syncs one key; it returns false when the queue is shut
// down. A key dequeued before the time its last plan's cost sets (see
// syncSpacer) is not synced now but requeued for that time: the events
// that come in meanwhile are all answered by that one sync.
func (c *Controller) processNextItem(ctx context.Context) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(key)
	if wait := c.spacing.wait(key, c.cfg.Clock.Now()); wait > 0 {
		c.queue.AddAfter(key, wait)
		return true
	}

	err := c.syncFunc(ctx, key)
	if err == nil {
		c.queue.Forget(key)
		return true
	}
	if errors.Is(err, errCacheBehind) {
		c.logger.V(2).Info("Cache behind own writes, requeued with backoff", "daemonset", key, "detail", err.Error())
		c.queue.AddRateLimited(key)
		return true
	}
	c.logger.Error(err, "Sync failed, requeued with backoff", "daemonset", key)
	c.queue.AddRateLimited(key)
	return true
}

// enqueue adds the key of a DaemonSet.
func (c *Controller) enqueue(key string) {
	c.queue.Add(key)
}
