package syncer

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	"github.com/daemonplan/daemonplan/daemon"
)

// defaultExpectationsTimeout is how long a sync waits for the informers to
// observe the creates and deletes it issued before it acts again anyway (as
// kube-controller-manager, five minutes).
const defaultExpectationsTimeout = 5 * time.Minute

// Config tunes a controller, in either mode. The zero value works: one
// worker, the default burst, no metrics, the real clock and an event
// recorder of its own.
type Config struct {
	// Workers is the number of DaemonSets synced at once; values below 1
	// mean 1.
	Workers int
	// BurstReplicas caps the creates and, separately, the deletes of one
	// sync; values below 1 mean daemon.DefaultBurstReplicas. It also bounds
	// the size of a slow-start batch of creates.
	BurstReplicas int
	// ExpectationsTimeout is how long a sync waits for its creates and
	// deletes to be observed before acting again; 0 means
	// five minutes (as kube-controller-manager).
	ExpectationsTimeout time.Duration
	// EnableTaintTolerationComparisonOperators is the
	// TaintTolerationComparisonOperators feature gate (Gt and Lt
	// tolerations).
	EnableTaintTolerationComparisonOperators bool
	// Registerer receives the controller's Prometheus metrics; nil means no
	// metrics.
	Registerer prometheus.Registerer
	// Recorder records the events of the plans; nil means the controller
	// starts its own broadcaster to the API server when Run starts and stops
	// it when Run returns.
	Recorder record.EventRecorder
	// Clock is the controller clock, passed to daemon.Compute as Options.Now
	// and used for the expectations' timeout; nil means the real clock.
	Clock clock.Clock
	// StatusWriteInterval is read by the replace controller only: the
	// least time between two status writes of one DaemonSet that only move
	// its counters while pods are changing; a change of the observed
	// generation, the collision count or the conditions, and a settled
	// status, are written at once, and a held status is written by a sync
	// at the end of the interval. 0 means
	// controller.DefaultStatusWriteInterval; a negative value holds nothing
	// (a write per changed sync, as kube-controller-manager).
	StatusWriteInterval time.Duration
	// SyncSpacing spaces the syncs of one DaemonSet by the cost of its
	// plans: the next sync starts no sooner than SyncSpacing times the time
	// the last plan took after that plan started (at most 1s), so that
	// planning one DaemonSet takes at most about 1/SyncSpacing of a core
	// however fast its pods change; a key dequeued sooner is requeued for
	// that time. 0 means DefaultSyncSpacing; a negative value
	// syncs a key as soon as it is dequeued.
	SyncSpacing int
}

func (c Config) withDefaults() Config {
	if c.Workers < 1 {
		c.Workers = 1
	}
	if c.BurstReplicas < 1 {
		c.BurstReplicas = daemon.DefaultBurstReplicas
	}
	if c.ExpectationsTimeout <= 0 {
		c.ExpectationsTimeout = defaultExpectationsTimeout
	}
	if c.Clock == nil {
		c.Clock = clock.RealClock{}
	}
	if c.SyncSpacing == 0 {
		c.SyncSpacing = DefaultSyncSpacing
	}
	return c
}
