package controller

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/util/workqueue"
)

// Metric names, under the namespace "daemonplan_controller".
const metricsNamespace = "daemonplan_controller"

// Sync results, the values of the "result" label of syncs_total.
const (
	resultSuccess = "success"
	resultError   = "error"
	resultInvalid = "invalid"
	resultWaiting = "waiting" // expectations not yet satisfied
	resultGone    = "gone"    // the DaemonSet no longer exists
	resultBehind  = "behind"  // a cache has not yet seen the controller's own writes
)

// metrics are the controller's Prometheus collectors. They work unregistered
// when Config.Registerer is nil.
type metrics struct {
	syncs        *prometheus.CounterVec
	syncDuration prometheus.Histogram
	actions      *prometheus.CounterVec
	actionErrors *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer, queue workqueue.TypedRateLimitingInterface[string]) *metrics {
	m := &metrics{
		syncs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: metricsNamespace, Name: "syncs_total",
			Help: "DaemonSet syncs by result (success, error, invalid, waiting, gone, behind).",
		}, []string{"result"}),
		syncDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: metricsNamespace, Name: "sync_duration_seconds",
			Help:    "Time to compute and carry out the plan of one DaemonSet.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 16),
		}),
		actions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: metricsNamespace, Name: "plan_actions_total",
			Help: "Plan actions carried out, by action and reason.",
		}, []string{"action", "reason"}),
		actionErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: metricsNamespace, Name: "plan_action_errors_total",
			Help: "Plan actions the API server refused, by action.",
		}, []string{"action"}),
	}
	if reg == nil {
		return m
	}
	depth := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: metricsNamespace, Name: "queue_depth",
		Help: "DaemonSet keys waiting in the work queue.",
	}, func() float64 { return float64(queue.Len()) })
	m.syncs = register(reg, m.syncs)
	m.syncDuration = register(reg, m.syncDuration)
	m.actions = register(reg, m.actions)
	m.actionErrors = register(reg, m.actionErrors)
	register(reg, prometheus.Collector(depth))
	return m
}

// register registers c, or returns the collector already registered under
// its name (two controllers in one process share their counters).
func register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing
			}
		}
	}
	return c
}
