package controller

import (
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// DefaultStatusWriteInterval is the least time between two status writes
// of one DaemonSet whose only change is in its counters, in replace mode
// (Config.StatusWriteInterval); README, "Status writes", says how it was
// chosen.
const DefaultStatusWriteInterval = 500 * time.Millisecond

// writeThrottle holds back minor writes of a DaemonSet's status so that
// there is at most one per interval, and lets every other write through
// at once. A held write is never dropped: the caller requeues the key for
// when the interval ends, and that sync writes what it finds then (its
// own, newer, status). The companion holds progress messages with it, the
// replace mode status counters.
type writeThrottle struct {
	interval time.Duration

	mu      sync.Mutex
	written map[string]time.Time
}

func newWriteThrottle(interval time.Duration) *writeThrottle {
	return &writeThrottle{interval: interval, written: map[string]time.Time{}}
}

// hold returns how long the write of key at now must wait: 0 when it is
// not minor, or when the interval has passed since the last write of key
// let through (or there was none), and hold then records now as that
// write; otherwise the rest of the interval. An interval of 0 or less
// holds nothing.
func (t *writeThrottle) hold(key string, minor bool, now time.Time) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	if last, ok := t.written[key]; minor && ok && now.Sub(last) < t.interval {
		return t.interval - now.Sub(last)
	}
	t.written[key] = now
	return 0
}

// forget drops what was recorded for key.
func (t *writeThrottle) forget(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.written, key)
}

// minorStatusChange reports whether writing want over stored only moves
// counters while the rollout or placement is under way: the generation,
// the collision count and the conditions are the same, and want is not
// settled (every desired node runs an updated, available pod, none is
// misscheduled). A settled status is the one readers wait for (kubectl
// rollout status, helm --wait): it is never held.
func minorStatusChange(stored, want appsv1.DaemonSetStatus) bool {
	settled := want.NumberMisscheduled == 0 && want.NumberUnavailable == 0 &&
		want.CurrentNumberScheduled == want.DesiredNumberScheduled &&
		want.UpdatedNumberScheduled == want.DesiredNumberScheduled &&
		want.NumberReady == want.DesiredNumberScheduled &&
		want.NumberAvailable == want.DesiredNumberScheduled
	if settled {
		return false
	}
	return stored.ObservedGeneration == want.ObservedGeneration &&
		equality.Semantic.DeepEqual(stored.CollisionCount, want.CollisionCount) &&
		equality.Semantic.DeepEqual(stored.Conditions, want.Conditions)
}
