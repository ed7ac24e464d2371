package syncer

import (
	"context"
	"errors"
	"fmt"
	"strings"
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

// ComponentName is the source of the events the controller records, in
// either mode.
const ComponentName = "daemonplan-controller"

// Syncer is the part of a DaemonSet controller that both modes share: event
// handlers put the keys of the DaemonSets a change can affect on a
// rate-limited queue, and workers call Sync for each key. A mode embeds it,
// sets Sync (and its Forget hooks) before Run, and reads the cluster and
// acts through its fields.
type Syncer struct {
	// Client writes to the API server.
	Client kubernetes.Interface
	// Config is the Config New was given, with its defaults filled in.
	Config Config
	// Logger logs the syncs.
	Logger klog.Logger
	// Recorder records the events of both modes; Run sets it when
	// Config.Recorder is nil.
	Recorder record.EventRecorder

	// Pods reads the pod informer's cache.
	Pods corelisters.PodLister
	// Queue holds the keys of the DaemonSets to sync.
	Queue workqueue.TypedRateLimitingInterface[string]
	// Expectations are the pod creates and deletes issued and not yet
	// observed, per key.
	Expectations *expectations
	// Fence makes a sync wait for the caches to see its own writes.
	Fence *writeFence
	// Planners are the workers' idle daemon.Planners.
	Planners *plannerPool
	// Metrics are the syncs' and actions' Prometheus collectors.
	Metrics *metrics

	// Sync is the mode's sync of one key (see ProcessNextItem for what
	// its error means). Set it before Run.
	Sync func(ctx context.Context, key string) error
	// ForgetDeleted, when set, drops what the mode keeps of key when the
	// informer reports its DaemonSet deleted; ForgetGone when a sync finds
	// no DaemonSet for key. The Syncer has dropped its own state of key
	// then.
	ForgetDeleted, ForgetGone func(key string)

	factory    informers.SharedInformerFactory
	synced     []cache.InformerSynced
	daemonSets appslisters.DaemonSetLister
	nodes      corelisters.NodeLister
	revisions  appslisters.ControllerRevisionLister
	placement  *placementCache
	// spacing spaces the syncs of a key by its plans' cost
	// (Config.SyncSpacing).
	spacing  *syncSpacer
	warnings *warnings
}

// New returns a Syncer that reads the cluster through factory's DaemonSet,
// Node, Pod and ControllerRevision informers (it registers its event
// handlers on them now) and writes through client. cfg's zero fields take
// their defaults.
//
// New sets the four informers' transform (cache.TransformFunc) so that
// their caches keep only what a plan reads (see PlanningView): the factory
// must not have started them, and code sharing it sees the same trimmed
// objects.
func New(client kubernetes.Interface, factory informers.SharedInformerFactory, cfg Config, logger klog.Logger) *Syncer {
	cfg = cfg.withDefaults()
	s := &Syncer{
		Client:  client,
		Config:  cfg,
		Logger:  logger,
		factory: factory,
		Queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "daemonset", Clock: tickerOf(cfg.Clock)}),
		Expectations: newExpectations(cfg.Clock, cfg.ExpectationsTimeout),
		placement:    newPlacementCache(cfg.EnableTaintTolerationComparisonOperators),
		Planners:     newPlannerPool(cfg.Workers),
		spacing:      newSyncSpacer(cfg.SyncSpacing),
		warnings:     newWarnings(),
		Recorder:     cfg.Recorder,
	}
	s.Metrics = newMetrics(cfg.Registerer, s.Queue)

	dsInf := factory.Apps().V1().DaemonSets()
	nodeInf := factory.Core().V1().Nodes()
	podInf := factory.Core().V1().Pods()
	revInf := factory.Apps().V1().ControllerRevisions()
	s.daemonSets, s.nodes, s.Pods, s.revisions = dsInf.Lister(), nodeInf.Lister(), podInf.Lister(), revInf.Lister()
	s.Fence = NewWriteFence(map[string]RVSource{
		FencePods:       podInf.Informer().GetStore(),
		FenceDaemonSets: dsInf.Informer().GetStore(),
	})
	for _, inf := range []cache.SharedIndexInformer{dsInf.Informer(), nodeInf.Informer(), podInf.Informer(), revInf.Informer()} {
		// SetTransform fails only on a started informer, whose cache
		// then keeps whole objects: more memory, the same plans.
		if err := inf.SetTransform(PlanningView); err != nil {
			logger.Error(err, "Informer already started: its cache keeps whole objects")
		}
	}
	s.synced = []cache.InformerSynced{
		dsInf.Informer().HasSynced, nodeInf.Informer().HasSynced,
		podInf.Informer().HasSynced, revInf.Informer().HasSynced,
	}
	// AddEventHandler only fails on a stopped informer, which a new
	// syncer is not given.
	_, _ = dsInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: s.addDaemonSet, UpdateFunc: s.updateDaemonSet, DeleteFunc: s.deleteDaemonSet,
	})
	_, _ = nodeInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: s.addNode, UpdateFunc: s.updateNode, DeleteFunc: s.deleteNode,
	})
	_, _ = podInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: s.AddPod, UpdateFunc: s.updatePod, DeleteFunc: s.DeletePod,
	})
	_, _ = revInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: s.addRevision, UpdateFunc: s.updateRevision, DeleteFunc: s.deleteRevision,
	})
	return s
}

// Run starts the informers, waits for their caches, runs the workers and
// blocks until ctx is done; then it stops taking work, waits for the syncs
// under way to finish and returns. It returns an error only when the caches
// never sync. mode names the mode in the log. Call it once, after setting
// Sync.
func (s *Syncer) Run(ctx context.Context, mode string) error {
	defer utilruntime.HandleCrash()
	defer s.Queue.ShutDown()

	if s.Recorder == nil {
		broadcaster := record.NewBroadcaster(record.WithContext(ctx),
			record.WithCorrelatorOptions(record.CorrelatorOptions{SpamKeyFunc: spamKeyByReason}))
		broadcaster.StartStructuredLogging(3)
		broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: s.Client.CoreV1().Events("")})
		defer broadcaster.Shutdown()
		s.Recorder = broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: ComponentName})
	}

	s.Logger.Info("Starting controller", "mode", mode, "workers", s.Config.Workers, "burstReplicas", s.Config.BurstReplicas)
	s.factory.Start(ctx.Done())
	if !cache.WaitForNamedCacheSync(ComponentName, ctx.Done(), s.synced...) {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("%s: informer caches did not sync", ComponentName)
	}

	var wg sync.WaitGroup
	for range s.Config.Workers {
		wg.Go(func() { wait.UntilWithContext(ctx, s.runWorker, time.Second) })
	}
	<-ctx.Done()
	s.Logger.Info("Shutting down controller")
	s.Queue.ShutDown()
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

func (s *Syncer) runWorker(ctx context.Context) {
	for s.ProcessNextItem(ctx) {
	}
}

// ProcessNextItem syncs one key; it returns false when the queue is shut
// down. A key dequeued before the time its last plan's cost sets (see
// syncSpacer) is not synced now but requeued for that time: the events
// that come in meanwhile are all answered by that one sync. A sync that
// returns nil forgets the key's rate limit; one that returns an error
// requeues it with backoff (logged as an error unless it wraps
// ErrCacheBehind).
func (s *Syncer) ProcessNextItem(ctx context.Context) bool {
	key, quit := s.Queue.Get()
	if quit {
		return false
	}
	defer s.Queue.Done(key)
	if wait := s.spacing.wait(key, s.Config.Clock.Now()); wait > 0 {
		s.Queue.AddAfter(key, wait)
		return true
	}

	err := s.Sync(ctx, key)
	if err == nil {
		s.Queue.Forget(key)
		return true
	}
	if errors.Is(err, ErrCacheBehind) {
		s.Logger.V(2).Info("Cache behind own writes, requeued with backoff", "daemonset", key, "detail", err.Error())
		s.Queue.AddRateLimited(key)
		return true
	}
	s.Logger.Error(err, "Sync failed, requeued with backoff", "daemonset", key)
	s.Queue.AddRateLimited(key)
	return true
}

// enqueue adds the key of a DaemonSet.
func (s *Syncer) enqueue(key string) {
	s.Queue.Add(key)
}

// spamKeyByReason is client-go's spam key of an event (its source, the
// object it is about and its type) with the event's reason added, so that
// the spam filter's budget (a burst of 25 events, then one per five
// minutes) is kept per reason: the companion's RolloutReplace events, one
// per batch of deletes, cannot use up the budget of its milestones
// (WaveComplete, RolloutComplete) or its Warnings.
func spamKeyByReason(e *corev1.Event) string {
	return strings.Join([]string{
		e.Source.Component, e.Source.Host,
		e.InvolvedObject.Kind, e.InvolvedObject.Namespace, e.InvolvedObject.Name,
		string(e.InvolvedObject.UID), e.InvolvedObject.APIVersion,
		e.Type, e.Reason,
	}, "")
}
