package syncer

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/util/workqueue"
)

// MetricsNamespace is the namespace of the controller's metric names.
const MetricsNamespace = "daemonplan_controller"

// Sync results, the values of the "result" label of syncs_total.
const (
	resultSuccess = "success"
	resultError   = "error"
	resultInvalid = "invalid"
	resultWaiting = "waiting" // expectations not yet satisfied
	resultGone    = "gone"    // the DaemonSet no longer exists
	resultBehind  = "behind"  // a cache has not yet seen the controller's own writes
)

// SyncFacts are what a sync found out that decides its result label, besides
// the error it returns. The zero value is a sync that found its DaemonSet,
// valid, with its expectations satisfied.
type SyncFacts struct {
	// Gone: the key names no DaemonSet of the cache (or is malformed).
	Gone bool
	// Invalid: the spec or the rollout annotations cannot be planned, or
	// this build cannot plan the template (a template skew, IsTemplateSkew).
	Invalid bool
	// Waiting: the expectations were not satisfied; no pod was created or
	// deleted.
	Waiting bool
}

// Result is the syncs_total label of a sync that found f and returned err:
// the one place a sync's result is decided. A cache behind the controller's
// own writes wins (nothing was planned), then a DaemonSet gone, an invalid
// spec (whatever else failed), an error, expectations not satisfied.
func (f SyncFacts) Result(err error) string {
	switch {
	case errors.Is(err, ErrCacheBehind):
		return resultBehind
	case f.Gone && err == nil:
		return resultGone
	case f.Invalid:
		return resultInvalid
	case err != nil:
		return resultError
	case f.Waiting:
		return resultWaiting
	}
	return resultSuccess
}

// metrics are the controller's Prometheus collectors. They work unregistered
// when Config.Registerer is nil.
type metrics struct {
	syncs        *prometheus.CounterVec
	syncDuration prometheus.Histogram
	// Actions counts the plan actions carried out, by action and reason;
	// ActionErrors those the API server refused, by action.
	Actions, ActionErrors *prometheus.CounterVec
}

// newMetrics returns the collectors, registered with reg unless it is nil,
// with a gauge of queue's depth.
func newMetrics(reg prometheus.Registerer, queue workqueue.TypedRateLimitingInterface[string]) *metrics {
	m := &metrics{
		syncs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: MetricsNamespace, Name: "syncs_total",
			Help: "DaemonSet syncs by result (success, error, invalid, waiting, gone, behind).",
		}, []string{"result"}),
		syncDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: MetricsNamespace, Name: "sync_duration_seconds",
			Help:    "Time to compute and carry out the plan of one DaemonSet.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 16),
		}),
		Actions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: MetricsNamespace, Name: "plan_actions_total",
			Help: "Plan actions carried out, by action and reason.",
		}, []string{"action", "reason"}),
		ActionErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: MetricsNamespace, Name: "plan_action_errors_total",
			Help: "Plan actions the API server refused, by action.",
		}, []string{"action"}),
	}
	if reg == nil {
		return m
	}
	depth := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: MetricsNamespace, Name: "queue_depth",
		Help: "DaemonSet keys waiting in the work queue.",
	}, func() float64 { return float64(queue.Len()) })
	m.syncs = Register(reg, m.syncs)
	m.syncDuration = Register(reg, m.syncDuration)
	m.Actions = Register(reg, m.Actions)
	m.ActionErrors = Register(reg, m.ActionErrors)
	Register(reg, prometheus.Collector(depth))
	return m
}

// ObserveSync counts a sync that ended with result and took d.
func (m *metrics) ObserveSync(result string, d time.Duration) {
	m.syncs.WithLabelValues(result).Inc()
	m.syncDuration.Observe(d.Seconds())
}

// Register registers c, or returns the collector already registered under
// its name (two controllers in one process share their counters).
func Register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
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
