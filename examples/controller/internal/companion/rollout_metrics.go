package companion

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/utils/clock"

	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// rolloutMetrics are the companion's per-DaemonSet rollout gauges, kept
// from the last sync of each DaemonSet and read at scrape time (a
// prometheus.Collector): nodes desired and updated, waves and waves
// complete, and how long the rollout has been blocked.
type rolloutMetrics struct {
	clock clock.PassiveClock

	desired, updated, waves, wavesDone, blocked *prometheus.Desc

	mu    sync.Mutex
	byKey map[string]rolloutGauges
}

// rolloutGauges are one DaemonSet's figures.
type rolloutGauges struct {
	namespace, name                    string
	desired, updated, waves, wavesDone int
	// blockedSince is when RolloutBlocked became True; zero when it is not.
	blockedSince time.Time
}

func newRolloutMetrics(reg prometheus.Registerer, clk clock.PassiveClock) *rolloutMetrics {
	labels := []string{"namespace", "daemonset"}
	desc := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName(syncer.MetricsNamespace, "rollout", name), help, labels, nil)
	}
	m := &rolloutMetrics{
		clock:     clk,
		desired:   desc("nodes_desired", "Desired nodes in the rollout policy's scope of a companion-managed DaemonSet."),
		updated:   desc("nodes_updated", "Desired nodes in scope running an updated, available pod and no old one."),
		waves:     desc("waves", "Values of the rollout's order label (0 without one)."),
		wavesDone: desc("waves_completed", "Waves whose desired nodes all run an updated, available pod."),
		blocked:   desc("blocked_seconds", "Seconds since the rollout stopped itself at its progress deadline (RolloutBlocked); 0 when it is not blocked."),
		byKey:     map[string]rolloutGauges{},
	}
	if reg != nil {
		syncer.Register(reg, prometheus.Collector(m))
	}
	return m
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
}

// Describe implements prometheus.Collector.
func (m *rolloutMetrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{m.desired, m.updated, m.waves, m.wavesDone, m.blocked} {
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
		}{{m.desired, float64(g.desired)}, {m.updated, float64(g.updated)}, {m.waves, float64(g.waves)}, {m.wavesDone, float64(g.wavesDone)}, {m.blocked, blocked}} {
			ch <- prometheus.MustNewConstMetric(v.d, prometheus.GaugeValue, v.v, g.namespace, g.name)
		}
	}
}
