package companion

import (
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/utils/clock"

	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// rolloutMetrics are the companion's per-DaemonSet rollout gauges, kept
// from the last sync of each DaemonSet and read at scrape time (a
// prometheus.Collector): nodes desired and updated, waves and waves
// complete, how long the rollout has been blocked, whether it waits for an
// approval or a window; and the counter of health-gate failures, by
// signal.
type rolloutMetrics struct {
	clock clock.PassiveClock

	desired, updated, waves, wavesDone, blocked, held *prometheus.Desc
	// healthGateFailures counts the rollouts stopped by a health gate,
	// once per signal found when it stopped.
	healthGateFailures *prometheus.CounterVec

	mu    sync.Mutex
	byKey map[string]rolloutGauges
}

// rolloutGauges are one DaemonSet's figures.
type rolloutGauges struct {
	namespace, name                    string
	desired, updated, waves, wavesDone int
	// blockedSince is when RolloutBlocked became True, blockedReason its
	// reason; zero when it is not.
	blockedSince  time.Time
	blockedReason string
	// held is the reason of an approval or window hold
	// (ReasonWaitingForApproval, ReasonOutsideWindow), "" for none.
	held string
}

func newRolloutMetrics(reg prometheus.Registerer, clk clock.PassiveClock) *rolloutMetrics {
	labels := []string{"namespace", "daemonset"}
	desc := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName(syncer.MetricsNamespace, "rollout", name), help, labels, nil)
	}
	blockedLabels := append(labels[:len(labels):len(labels)], "reason")
	m := &rolloutMetrics{
		clock:     clk,
		desired:   desc("nodes_desired", "Desired nodes in the rollout policy's scope of a companion-managed DaemonSet."),
		updated:   desc("nodes_updated", "Desired nodes in scope running an updated, available pod and no old one."),
		waves:     desc("waves", "Values of the rollout's order label (0 without one)."),
		wavesDone: desc("waves_completed", "Waves whose desired nodes all run an updated, available pod."),
		blocked: prometheus.NewDesc(prometheus.BuildFQName(syncer.MetricsNamespace, "rollout", "blocked_seconds"),
			"Seconds since the rollout stopped itself at its progress deadline or on a failed health gate (RolloutBlocked, whose reason is the reason label); 0 when it is not blocked.",
			blockedLabels, nil),
		held: prometheus.NewDesc(prometheus.BuildFQName(syncer.MetricsNamespace, "rollout", "held"),
			"1 while the rollout waits for an approval (reason WaitingForApproval) or a maintenance window (OutsideWindow), 0 otherwise.",
			blockedLabels, nil),
		healthGateFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: syncer.MetricsNamespace, Subsystem: "rollout", Name: "health_gate_failures_total",
			Help: "Rollouts a health gate stopped (RolloutBlocked HealthGateFailed), once per signal of the new revision's pods when it stopped.",
		}, []string{"namespace", "daemonset", "signal"}),
		byKey: map[string]rolloutGauges{},
	}
	if reg != nil {
		syncer.Register(reg, prometheus.Collector(m))
		m.healthGateFailures = syncer.Register(reg, m.healthGateFailures)
	}
	return m
}

// healthGateFailed counts a rollout of namespace/name stopped by a health
// gate on signals: one for each distinct signal.
func (m *rolloutMetrics) healthGateFailed(namespace, name string, signals []progressive.PodSignal) {
	seen := map[progressive.Signal]bool{}
	for _, s := range signals {
		if !seen[s.Signal] {
			seen[s.Signal] = true
			m.healthGateFailures.WithLabelValues(namespace, name, string(s.Signal)).Inc()
		}
	}
}

func (m *rolloutMetrics) set(key string, g rolloutGauges) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.byKey[key] = g
}

func (m *rolloutMetrics) forget(key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.byKey, key)
	if ns, name, ok := strings.Cut(key, "/"); ok {
		m.healthGateFailures.DeletePartialMatch(prometheus.Labels{"namespace": ns, "daemonset": name})
	}
}

// Describe implements prometheus.Collector.
func (m *rolloutMetrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{m.desired, m.updated, m.waves, m.wavesDone, m.blocked, m.held} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (m *rolloutMetrics) Collect(ch chan<- prometheus.Metric) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.clock.Now()
	for _, g := range m.byKey {
		blocked := 0.0
		if !g.blockedSince.IsZero() {
			blocked = now.Sub(g.blockedSince).Seconds()
		}
		for _, v := range []struct {
			d *prometheus.Desc
			v float64
		}{{m.desired, float64(g.desired)}, {m.updated, float64(g.updated)}, {m.waves, float64(g.waves)}, {m.wavesDone, float64(g.wavesDone)}} {
			ch <- prometheus.MustNewConstMetric(v.d, prometheus.GaugeValue, v.v, g.namespace, g.name)
		}
		ch <- prometheus.MustNewConstMetric(m.blocked, prometheus.GaugeValue, blocked, g.namespace, g.name, g.blockedReason)
		held := 0.0
		if g.held != "" {
			held = 1
		}
		ch <- prometheus.MustNewConstMetric(m.held, prometheus.GaugeValue, held, g.namespace, g.name, g.held)
	}
}
