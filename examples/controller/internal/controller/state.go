package controller

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonplan/daemonplan/daemon"
)

// stateStore keeps what connects one sync of a DaemonSet to the next: the
// failed-pod backoff returned by the last plan, and the generation whose
// invalid spec was already reported (so a bad DaemonSet gets one Warning
// event, not one per sync).
type stateStore struct {
	mu      sync.Mutex
	backoff map[string]daemon.Backoff
	invalid map[string]specVersion
}

// specVersion identifies one spec of one DaemonSet.
type specVersion struct {
	uid        types.UID
	generation int64
}

func newStateStore() *stateStore {
	return &stateStore{backoff: map[string]daemon.Backoff{}, invalid: map[string]specVersion{}}
}

func (s *stateStore) getBackoff(key string) daemon.Backoff {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.backoff[key]
}

func (s *stateStore) setBackoff(key string, b daemon.Backoff) {
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

func (s *stateStore) forget(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.backoff, key)
	delete(s.invalid, key)
}
