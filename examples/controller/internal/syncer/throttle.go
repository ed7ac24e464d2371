package syncer

import (
	"sync"
	"time"
)

// KeyThrottle lets through at most one minor event of a DaemonSet key per
// interval, and every other event at once (each restarting the interval).
// An event held back is never dropped: the caller requeues the key for
// when the interval ends, and that sync does what it finds to do then.
// One mechanism for two things: the replace mode's status writes that
// only move counters (Config.StatusWriteInterval) and the companion's
// progress messages.
type KeyThrottle struct {
	interval time.Duration

	mu   sync.Mutex
	last map[string]time.Time // the last event let through, by key
}

// NewKeyThrottle returns a KeyThrottle of interval.
func NewKeyThrottle(interval time.Duration) *KeyThrottle {
	return &KeyThrottle{interval: interval, last: map[string]time.Time{}}
}

// Hold returns how long an event of key at now must wait: 0 when it is
// not minor, or when the interval has passed since the last event of key
// let through (or there was none), and Hold then records now as that
// event; otherwise the rest of the interval. An interval of 0 or less
// holds nothing.
func (t *KeyThrottle) Hold(key string, minor bool, now time.Time) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	if last, ok := t.last[key]; minor && ok && now.Sub(last) < t.interval {
		return t.interval - now.Sub(last)
	}
	t.last[key] = now
	return 0
}

// Forget drops what was recorded for key.
func (t *KeyThrottle) Forget(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.last, key)
}
