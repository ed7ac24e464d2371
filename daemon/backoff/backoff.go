package backoff

import (
	"cmp"
	"maps"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// The failed-pod backoff of upstream's controller: the first deletion of a
// failed pod on a node is immediate, then the delay doubles from Initial up
// to Max. An entry not updated for twice Max is forgotten.
const (
	Initial = time.Second
	Max     = 15 * time.Minute
)

// State is the failed-pod backoff state that connects one plan to the
// next: daemon.Compute reads Options.FailedPodBackoff and returns the
// updated state in Plan.FailedPodBackoff. It may hold the entries of many
// DaemonSets; Compute only changes those of the DaemonSet it plans for,
// and forgets expired ones.
//
// A State is an immutable value: Compute never modifies the one it is
// given, and copies share nothing that changes. The zero value is empty.
type State struct {
	entries map[Key]Entry
}

// Key identifies one backoff: upstream keys it by the DaemonSet's UID, its
// status.observedGeneration and the node name.
type Key struct {
	UID                types.UID
	ObservedGeneration int64
	NodeName           string
}

// Entry is the state of one backoff: the current delay and when it was
// last raised.
type Entry struct {
	Key        Key
	Delay      time.Duration
	LastUpdate time.Time
}

// New returns a State holding entries; a later entry with the same key
// replaces an earlier one. It is how a controller restores state it
// persisted from Entries.
func New(entries ...Entry) State {
	if len(entries) == 0 {
		return State{}
	}
	m := make(map[Key]Entry, len(entries))
	for _, e := range entries {
		m[e.Key] = e
	}
	return State{entries: m}
}

// Len returns the number of entries.
func (b State) Len() int { return len(b.entries) }

// Get returns the entry for key.
func (b State) Get(key Key) (Entry, bool) {
	e, ok := b.entries[key]
	return e, ok
}

// Entries returns the entries sorted by UID, observed generation and node
// name.
func (b State) Entries() []Entry {
	out := slices.Collect(maps.Values(b.entries))
	slices.SortFunc(out, func(x, y Entry) int {
		return cmp.Or(
			cmp.Compare(x.Key.UID, y.Key.UID),
			cmp.Compare(x.Key.ObservedGeneration, y.Key.ObservedGeneration),
			cmp.Compare(x.Key.NodeName, y.Key.NodeName))
	})
	return out
}

// Equal reports whether b and o hold the same entries.
func (b State) Equal(o State) bool {
	return maps.EqualFunc(b.entries, o.entries, func(x, y Entry) bool {
		return x.Key == y.Key && x.Delay == y.Delay && x.LastUpdate.Equal(y.LastUpdate)
	})
}

func expired(e Entry, now time.Time) bool {
	return now.Sub(e.LastUpdate) > 2*Max
}

// Update is the working copy of a State during one plan, judged at one
// instant: it answers whether a key is waiting (Wait), raises a key's
// delay (Raise) and gives the resulting State. It copies the entries on
// the first write only, so an Update that raises nothing allocates
// nothing and the State it came from is never modified. An Update is not
// safe for concurrent use.
type Update struct {
	entries map[Key]Entry
	copied  bool
	now     time.Time
}

// Start begins an Update of b at now, with the entries expired at now
// already forgotten.
func (b State) Start(now time.Time) *Update {
	u := &Update{entries: b.entries, now: now}
	for _, e := range b.entries {
		if expired(e, now) {
			u.write()
			break
		}
	}
	if u.copied {
		for k, e := range u.entries {
			if expired(e, now) {
				delete(u.entries, k)
			}
		}
	}
	return u
}

func (u *Update) write() {
	if u.copied {
		return
	}
	m := make(map[Key]Entry, len(u.entries)+1)
	maps.Copy(m, u.entries)
	u.entries, u.copied = m, true
}

// Wait reports whether key is still waiting at the Update's instant, and
// for how long: the rest of the delay, at most the whole delay (upstream
// requeues after the whole delay; a LastUpdate after the instant, from
// clock skew, does not make the wait longer).
func (u *Update) Wait(key Key) (wait time.Duration, ok bool) {
	e, found := u.entries[key]
	if !found || expired(e, u.now) {
		return 0, false
	}
	if since := u.now.Sub(e.LastUpdate); since < e.Delay {
		return min(e.Delay-since, e.Delay), true
	}
	return 0, false
}

// Raise raises the backoff of key at the Update's instant: the initial
// delay for a new or expired entry, otherwise double the delay, at most
// Max.
func (u *Update) Raise(key Key) {
	u.write()
	e, found := u.entries[key]
	if !found || expired(e, u.now) {
		e = Entry{Key: key, Delay: Initial}
	} else {
		e.Delay = min(2*e.Delay, Max)
	}
	e.LastUpdate = u.now
	u.entries[key] = e
}

// State returns the state the Update has reached. The Update must not be
// used after.
func (u *Update) State() State {
	if len(u.entries) == 0 {
		return State{}
	}
	return State{entries: u.entries}
}
