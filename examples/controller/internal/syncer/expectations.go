package syncer

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
)

// expectations remember, per DaemonSet key, the pod creates and deletes a
// sync has issued and the informers have not yet observed. A sync acts on
// pods only when its DaemonSet's expectations are satisfied: every create
// and delete observed, or the timeout passed since they were set (a watch
// event can be lost). Creates are counted, as their pods' names are not known
// in advance (generateName); deletes are tracked by pod UID, so observing
// one twice (an update with a deletion timestamp, then the delete) counts
// once.
//
// An expectations is safe for concurrent use.
type expectations struct {
	clock   clock.PassiveClock
	timeout time.Duration

	mu      sync.Mutex
	entries map[string]*expectation
}

type expectation struct {
	creates int
	deletes map[types.UID]struct{}
	set     time.Time
}

// newExpectations returns empty expectations judged by clk with timeout.
func newExpectations(clk clock.PassiveClock, timeout time.Duration) *expectations {
	return &expectations{clock: clk, timeout: timeout, entries: map[string]*expectation{}}
}

// Expect records that the DaemonSet key is about to issue creates pod creates
// and to delete the pods deleteUIDs, replacing what was expected before.
func (e *expectations) Expect(key string, creates int, deleteUIDs []types.UID) {
	e.mu.Lock()
	defer e.mu.Unlock()
	x := &expectation{creates: max(creates, 0), deletes: make(map[types.UID]struct{}, len(deleteUIDs)), set: e.clock.Now()}
	for _, uid := range deleteUIDs {
		x.deletes[uid] = struct{}{}
	}
	e.entries[key] = x
}

// CreationObserved lowers the creates expected for key by one: the informer
// saw a new pod of the DaemonSet, or a create failed and will not be seen.
func (e *expectations) CreationObserved(key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if x, ok := e.entries[key]; ok && x.creates > 0 {
		x.creates--
	}
}

// DeletionObserved marks the delete of pod uid as observed for key: the
// informer saw the pod deleted or being deleted, or the delete failed and
// will not be seen. Unexpected UIDs are ignored.
func (e *expectations) DeletionObserved(key string, uid types.UID) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if x, ok := e.entries[key]; ok {
		delete(x.deletes, uid)
	}
}

// Satisfied reports whether the DaemonSet key may act on pods: nothing is
// expected for it, everything expected was observed, or the expectations
// are older than the timeout.
func (e *expectations) Satisfied(key string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	x, ok := e.entries[key]
	if !ok {
		return true
	}
	if x.creates <= 0 && len(x.deletes) == 0 {
		return true
	}
	return e.clock.Since(x.set) > e.timeout
}

// Pending returns the creates and deletes still expected for key.
func (e *expectations) Pending(key string) (creates, deletes int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if x, ok := e.entries[key]; ok {
		return x.creates, len(x.deletes)
	}
	return 0, 0
}

// Forget drops the expectations of key (its DaemonSet is gone).
func (e *expectations) Forget(key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.entries, key)
}
