package controller

import (
	"errors"
	"time"

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

// syncFacts are what a sync found out that decides its result label, besides
// the error it returns. The zero value is a sync that found its DaemonSet,
// valid, with its expectations satisfied.
type syncFacts struct {
	// gone: the key names no DaemonSet of the cache (or is malformed).
	gone bool
	// invalid: the spec or the rollout annotations cannot be planned.
	invalid bool
	// waiting: the expectations were not satisfied; no pod was created or
	// deleted.
	waiting bool
}

// result is the syncs_total label of a sync that found f and returned err:
// the one place a sync's result is decided. A cache behind the controller's
// own writes wins (nothing was planned), then a DaemonSet gone, an invalid
// spec (whatever else failed), an error, expectations not satisfied.
func (f syncFacts) result(err error) string {
	switch {
	case errors.Is(err, errCacheBehind):
		return resultBehind
	case f.gone && err == nil:
		return resultGone
	case f.invalid:
		return resultInvalid
	case err != nil:
		return resultError
	case f.waiting:
		return resultWaiting
	}
	return resultSuccess
}

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

// observeSync counts a sync that ended with result and took d.
func (m *metrics) observeSync(result string, d time.Duration) {
	m.syncs.WithLabelValues(result).Inc()
	m.syncDuration.Observe(d.Seconds())
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
