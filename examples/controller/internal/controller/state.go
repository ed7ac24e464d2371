package controller

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonplan/daemonplan/daemon/backoff"
	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// stateStore keeps what connects one sync of a DaemonSet to the next: the
// failed-pod backoff returned by the last plan, the generation whose
// invalid spec was already reported (so a bad DaemonSet gets one Warning
// event, not one per sync), and what held its rollout in the last sync
// that judged it (so a hold is said once, when it begins).
type stateStore struct {
	mu      sync.Mutex
	backoff map[string]backoff.State
	invalid map[string]specVersion
	held    map[string]heldBy
}

// heldBy is what a hold is said by: its cause and, for an approval point,
// the wave it waits after (a later point is a new wait).
type heldBy struct {
	cause progressive.HoldCause
	wave  string
}

// specVersion identifies one spec of one DaemonSet.
type specVersion struct {
	uid        types.UID
	generation int64
}

func newStateStore() *stateStore {
	return &stateStore{backoff: map[string]backoff.State{}, invalid: map[string]specVersion{}, held: map[string]heldBy{}}
}

func (s *stateStore) getBackoff(key string) backoff.State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.backoff[key]
}

func (s *stateStore) setBackoff(key string, b backoff.State) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b.Len() == 0 {
		delete(s.backoff, key)
		return
	}
	s.backoff[key] = b
}

// markInvalid records that v of key was reported invalid; it returns false
// when it already was.
func (s *stateStore) markInvalid(key string, v specVersion) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.invalid[key] == v {
		return false
	}
	s.invalid[key] = v
	return true
}

// clearInvalid forgets the invalid mark of key (its spec is valid again).
func (s *stateStore) clearInvalid(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.invalid, key)
}

// noteHold records h as what holds key's rollout now; it reports whether
// that is a change: a hold begins, or its cause or approval wave changes.
// A hold that ends is a change too (said by nothing).
func (s *stateStore) noteHold(key string, h progressive.Hold) bool {
	b := heldBy{cause: h.Cause, wave: h.Wave}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held[key] == b {
		return false
	}
	if b == (heldBy{}) {
		delete(s.held, key)
	} else {
		s.held[key] = b
	}
	return true
}

func (s *stateStore) forget(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.backoff, key)
	delete(s.invalid, key)
	delete(s.held, key)
}
