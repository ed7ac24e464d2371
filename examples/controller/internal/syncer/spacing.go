package syncer

import (
	"sync"
	"time"
)

// DefaultSyncSpacing is Config.SyncSpacing's default: planning one
// DaemonSet takes at most about a tenth of a core however fast its pods
// change. In the 2,000-node scale scenario it used about the CPU a fixed
// 100 ms spacing did, a third of kube-controller-manager's, while a
// six-node rollout converges as fast as without spacing (README, "Syncs
// and status writes").
const DefaultSyncSpacing = 10

// maxSyncSpacing bounds the wait between two syncs of a DaemonSet that
// SyncSpacing asks for.
const maxSyncSpacing = time.Second

// syncSpacer spaces the syncs of each DaemonSet by the cost of its plans:
// after a plan that took d, the next sync of that DaemonSet starts no
// sooner than factor×d (at most maxSyncSpacing) after the plan started.
// A DaemonSet planned in microseconds is synced on every event; one of
// 5,000 nodes, planned in about 8 ms, at most every 80 ms, so that a
// stream of pod events is answered by one sync per spacing instead of one
// per event. A key dequeued sooner is requeued for its time, never
// dropped.
type syncSpacer struct {
	factor int

	mu   sync.Mutex
	next map[string]time.Time
}

// newSyncSpacer returns a spacer of factor (Config.SyncSpacing).
func newSyncSpacer(factor int) *syncSpacer {
	return &syncSpacer{factor: factor, next: map[string]time.Time{}}
}

// wait returns how long the sync of key must wait at now; 0 when it may
// run.
func (s *syncSpacer) wait(key string, now time.Time) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if next, ok := s.next[key]; ok && next.After(now) {
		return next.Sub(now)
	}
	return 0
}

// planned records that a plan of key started at start and took took. A
// factor of 0 or less spaces nothing.
func (s *syncSpacer) planned(key string, start time.Time, took time.Duration) {
	if s.factor <= 0 {
		return
	}
	gap := min(time.Duration(s.factor)*took, maxSyncSpacing)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next[key] = start.Add(gap)
}

// forget drops what was recorded for key.
func (s *syncSpacer) forget(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.next, key)
}
