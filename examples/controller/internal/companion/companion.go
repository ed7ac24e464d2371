package companion

import (
	"context"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/daemon/progressive/window"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// fieldManager is the field manager of the companion's status patches.
const fieldManager = "daemonplan-companion"

// Companion is the companion controller (see the package doc).
type Companion struct {
	*syncer.Syncer

	memory  *memory
	metrics *rolloutMetrics
	// zones resolves the maintenance windows' time zones (zoneCache).
	zones window.Zones
}

// New returns a companion that reads the cluster through factory's
// informers and writes through client (see syncer.New, which says what it
// sets on the factory). cfg.StatusWriteInterval is not read. Run starts
// it.
func New(client kubernetes.Interface, factory informers.SharedInformerFactory, cfg syncer.Config, logger klog.Logger) *Companion {
	c := &Companion{
		Syncer: syncer.New(client, factory, cfg, logger),
		memory: newMemory(),
		zones:  syncer.NewZoneCache(time.LoadLocation),
	}
	c.metrics = newRolloutMetrics(cfg.Registerer, c.Config.Clock)
	c.Sync = c.sync
	c.ForgetGone = func(key string) {
		c.memory.forget(key)
		c.metrics.forget(key)
	}
	return c
}

// Run runs the companion until ctx is done (syncer.Syncer.Run).
func (c *Companion) Run(ctx context.Context) error {
	return c.Syncer.Run(ctx, "companion")
}

// memory is what the companion keeps in memory between syncs: the waves
// already announced and when a progress message was last written.
// Everything a restart must not forget (a self-pause, the progress clock)
// lives in the DaemonSet's conditions.
type memory struct {
	mu    sync.Mutex
	waves map[string]*waveMemory
	// messages holds back the condition writes that change only a
	// message (messageInterval).
	messages *syncer.KeyThrottle
}

// messageInterval is the least time between two condition writes of one
// DaemonSet that change only a message (the progress summary); a change
// of a condition's status or reason is written at once.
const messageInterval = 5 * time.Second

// waveMemory is, for one revision of one DaemonSet, the waves seen with
// old pods (rolling) and those announced complete.
type waveMemory struct {
	uid           types.UID
	hash          string
	rolling, done map[string]bool
}

func newMemory() *memory {
	return &memory{waves: map[string]*waveMemory{}, messages: syncer.NewKeyThrottle(messageInterval)}
}

// newlyComplete returns the waves of j that are done now, were seen with
// old pods before (for this uid and hash) and were not announced yet, and
// remembers them. A wave that never had an old pod (a new DaemonSet's
// first placement), or whose old pods were all replaced while the
// companion was not running, is not announced.
func (s *memory) newlyComplete(key string, uid types.UID, hash string, j progressive.Judgement) []progressive.Tally {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.waves[key]
	if m == nil || m.uid != uid || m.hash != hash {
		m = &waveMemory{uid: uid, hash: hash, rolling: map[string]bool{}, done: map[string]bool{}}
		s.waves[key] = m
	}
	var out []progressive.Tally
	for _, w := range j.Waves {
		if w.Old > 0 {
			m.rolling[w.Wave] = true
		}
		if w.Done() && m.rolling[w.Wave] && !m.done[w.Wave] {
			m.done[w.Wave] = true
			out = append(out, w)
		}
	}
	return out
}

func (s *memory) forget(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.waves, key)
	s.messages.Forget(key)
}

// holdMessage returns how long to wait before writing changes, conditions
// of key that differ from have: 0 when some status or reason changes or
// messageInterval has passed since the last write (which it then records
// as now), the rest of the interval otherwise.
func (s *memory) holdMessage(key string, have, changes []appsv1.DaemonSetCondition, now time.Time) time.Duration {
	if len(changes) == 0 {
		return 0
	}
	messageOnly := true
	for _, ch := range changes {
		if h := findCondition(have, ch.Type); h == nil || h.Status != ch.Status || h.Reason != ch.Reason {
			messageOnly = false
		}
	}
	return s.messages.Hold(key, messageOnly, now)
}
