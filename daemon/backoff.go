package daemon

import (
	"cmp"
	"maps"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// The failed-pod backoff of upstream's controller: the first deletion of a
// failed pod on a node is immediate, then the delay doubles from
// FailedPodBackoffInitial up to FailedPodBackoffMax. An entry not updated
// for twice FailedPodBackoffMax is forgotten.
const (
	FailedPodBackoffInitial = time.Second
	FailedPodBackoffMax     = 15 * time.Minute
)

// Backoff is the failed-pod backoff state that connects one plan to the
// next: Compute reads Options.FailedPodBackoff and returns the updated state
// in Plan.FailedPodBackoff. It may hold the entries of many DaemonSets;
// Compute only changes those of the DaemonSet it plans for, and forgets
// expired ones.
//
// A Backoff is an immutable value: Compute never modifies the one it is
// given, and copies share nothing that changes. The zero value is empty.
type Backoff struct {
	entries map[BackoffKey]BackoffEntry
}

// BackoffKey identifies one backoff: upstream keys it by the DaemonSet's
// UID, its status.observedGeneration and the node name.
type BackoffKey struct {
	UID                types.UID
	ObservedGeneration int64
	NodeName           string
}

// BackoffEntry is the state of one backoff: the current delay and when it
// was last raised.
type BackoffEntry struct {
	Key        BackoffKey
	Delay      time.Duration
	LastUpdate time.Time
}

// NewBackoff returns a Backoff holding entries; a later entry with the
// same key replaces an earlier one. It is how a controller restores state it
// persisted from Entries.
func NewBackoff(entries ...BackoffEntry) Backoff {
	if len(entries) == 0 {
		return Backoff{}
	}
	m := make(map[BackoffKey]BackoffEntry, len(entries))
	for _, e := range entries {
		m[e.Key] = e
	}
	return Backoff{entries: m}
}

// Len returns the number of entries.
func (b Backoff) Len() int { return len(b.entries) }

// Get returns the entry for key.
func (b Backoff) Get(key BackoffKey) (BackoffEntry, bool) {
	e, ok := b.entries[key]
	return e, ok
}

// Entries returns the entries sorted by UID, observed generation and node
// name.
func (b Backoff) Entries() []BackoffEntry {
	out := slices.Collect(maps.Values(b.entries))
	slices.SortFunc(out, func(x, y BackoffEntry) int {
		return cmp.Or(
			cmp.Compare(x.Key.UID, y.Key.UID),
			cmp.Compare(x.Key.ObservedGeneration, y.Key.ObservedGeneration),
			cmp.Compare(x.Key.NodeName, y.Key.NodeName))
	})
	return out
}

// Equal reports whether b and o hold the same entries.
func (b Backoff) Equal(o Backoff) bool {
	return maps.EqualFunc(b.entries, o.entries, func(x, y BackoffEntry) bool {
		return x.Key == y.Key && x.Delay == y.Delay && x.LastUpdate.Equal(y.LastUpdate)
	})
}

func expired(e BackoffEntry, now time.Time) bool {
	return now.Sub(e.LastUpdate) > 2*FailedPodBackoffMax
}

// backoffState is the working copy of a Backoff during one Compute. It
// copies the map on the first write only.
type backoffState struct {
	entries map[BackoffKey]BackoffEntry
	copied  bool
	now     time.Time
}

func newBackoffState(b Backoff, now time.Time) *backoffState {
	s := &backoffState{entries: b.entries, now: now}
	for _, e := range b.entries {
		if expired(e, now) {
			s.write()
			break
		}
	}
	if s.copied {
		for k, e := range s.entries {
			if expired(e, now) {
				delete(s.entries, k)
			}
		}
	}
	return s
}

func (s *backoffState) write() {
	if s.copied {
		return
	}
	m := make(map[BackoffKey]BackoffEntry, len(s.entries)+1)
	maps.Copy(m, s.entries)
	s.entries, s.copied = m, true
}

// inBackoff reports whether key is still waiting at now, and for how long:
// the rest of the delay, at most the whole delay (upstream requeues after
// the whole delay; a LastUpdate after now, from clock skew, does not make
// the wait longer).
func (s *backoffState) inBackoff(key BackoffKey) (wait time.Duration, ok bool) {
	e, found := s.entries[key]
	if !found || expired(e, s.now) {
		return 0, false
	}
	if since := s.now.Sub(e.LastUpdate); since < e.Delay {
		return min(e.Delay-since, e.Delay), true
	}
	return 0, false
}

// next raises the backoff of key at now: the initial delay for a new or
// expired entry, otherwise double the delay, at most the maximum.
func (s *backoffState) next(key BackoffKey) {
	s.write()
	e, found := s.entries[key]
	if !found || expired(e, s.now) {
		e = BackoffEntry{Key: key, Delay: FailedPodBackoffInitial}
	} else {
		e.Delay = min(2*e.Delay, FailedPodBackoffMax)
	}
	e.LastUpdate = s.now
	s.entries[key] = e
}

func (s *backoffState) backoff() Backoff {
	if len(s.entries) == 0 {
		return Backoff{}
	}
	return Backoff{entries: s.entries}
}
