package syncer

import (
	"errors"
	"fmt"
	"sort"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/resourceversion"
)

// Resources whose writes the fence tracks.
const (
	FencePods       = "pods"
	FenceDaemonSets = "daemonsets"
)

// ErrCacheBehind is returned by a sync that did not run because an informer
// cache has not yet seen one of the controller's own writes for the
// DaemonSet; the key is requeued with backoff and without an error log.
var ErrCacheBehind = errors.New("informer cache behind the controller's own writes")

// RVSource is an informer store that knows the newest resourceVersion it
// has applied (client-go's cache.Store does, with its AtomicFIFO feature,
// on by default since v0.36).
type RVSource interface {
	LastStoreSyncResourceVersion() string
}

// writeFence makes a sync read its own writes. It remembers, per DaemonSet
// key, the newest resourceVersion the API server returned for the
// controller's pod creates and patches and for its DaemonSet status writes;
// a sync of that key waits until the pod and DaemonSet informer caches have
// reached those versions. Without it, a sync that starts between a write
// and the watch event that reports it plans from a cache that misses the
// write: it writes a status computed from stale pods and, from a stale
// DaemonSet, meets a 409 Conflict. kube-controller-manager v1.36 does the
// same (its StaleControllerConsistencyDaemonSet feature, beta and on by
// default); like it, deletes are not tracked (a delete returns no version).
//
// A pod write that fails without saying it was not applied (the
// connection broke, a timeout, a server error such as etcd failing after
// it committed) leaves no version to wait for, and the pod it created or
// deleted may reach the cache only later: a sync planning from the cache
// before then creates a second pod for the node, or spends the rollout
// budget again. Such a key is marked unsure; its next sync plans only once
// the cache agrees with the API server on the DaemonSet's pods (see
// Syncer.CachedDaemonSet), and then clears the mark.
type writeFence struct {
	stores map[string]RVSource

	mu      sync.Mutex
	written map[string]map[string]string // key → resource → newest version written
	unsure  map[string]bool              // keys with a pod write of unknown outcome
}

// NewWriteFence returns a fence reading the newest versions of stores, by
// resource (FencePods, FenceDaemonSets).
func NewWriteFence(stores map[string]RVSource) *writeFence {
	return &writeFence{stores: stores, written: map[string]map[string]string{}, unsure: map[string]bool{}}
}

// MarkUnsure records that a pod write for key failed in a way that does
// not tell whether the API server applied it.
func (f *writeFence) MarkUnsure(key string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.unsure[key] = true
}

// isUnsure reports whether key has a pod write of unknown outcome not yet
// settled.
func (f *writeFence) isUnsure(key string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.unsure[key]
}

// clearUnsure drops the mark of key.
func (f *writeFence) clearUnsure(key string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.unsure, key)
}

// MayHaveApplied reports whether a write that failed with err may
// nevertheless have been applied: the API server sent no status (the
// connection broke, the client gave up) or a server error (5xx, as when
// etcd fails after it committed). A status below 500 (a conflict, a
// rejection, 429 Too Many Requests) means it was not.
func MayHaveApplied(err error) bool {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		code := status.Status().Code
		return code == 0 || code >= 500
	}
	return true
}

// Wrote records that a write for the DaemonSet key returned version rv of
// resource. An empty or malformed version is ignored.
func (f *writeFence) Wrote(key, resource, rv string) {
	if rv == "" {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	w := f.written[key]
	if w == nil {
		w = map[string]string{}
		f.written[key] = w
	}
	if old, ok := w[resource]; ok {
		if cmp, err := resourceversion.CompareResourceVersion(old, rv); err != nil || cmp >= 0 {
			return
		}
	}
	w[resource] = rv
}

// behind returns, when a cache has not yet reached a version written for
// key, an error wrapping ErrCacheBehind that names the resource and both
// versions. Once every cache has caught up the key's record is dropped. A
// cache that reports no version, or versions that cannot be compared, do
// not hold a sync back.
func (f *writeFence) behind(key string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	w := f.written[key]
	resources := make([]string, 0, len(w))
	for r := range w {
		resources = append(resources, r)
	}
	sort.Strings(resources)
	for _, r := range resources {
		src := f.stores[r]
		if src == nil {
			continue
		}
		read := src.LastStoreSyncResourceVersion()
		if read == "" {
			continue
		}
		if cmp, err := resourceversion.CompareResourceVersion(w[r], read); err == nil && cmp > 0 {
			return fmt.Errorf("%w: %s cache at resourceVersion %s, wrote %s", ErrCacheBehind, r, read, w[r])
		}
	}
	delete(f.written, key)
	return nil
}

// forget drops what was recorded for key.
func (f *writeFence) forget(key string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.written, key)
	delete(f.unsure, key)
}
