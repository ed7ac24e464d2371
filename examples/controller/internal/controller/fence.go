package controller

import (
	"errors"
	"fmt"
	"sort"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/resourceversion"
)

// Resources whose writes the fence tracks.
const (
	fencePods       = "pods"
	fenceDaemonSets = "daemonsets"
)

// errCacheBehind is returned by a sync that did not run because an informer
// cache has not yet seen one of the controller's own writes for the
// DaemonSet; the key is requeued with backoff and without an error log.
var errCacheBehind = errors.New("informer cache behind the controller's own writes")

// rvSource is an informer store that knows the newest resourceVersion it
// has applied (client-go's cache.Store does, with its AtomicFIFO feature,
// on by default since v0.36).
type rvSource interface {
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
type writeFence struct {
	stores map[string]rvSource

	mu      sync.Mutex
	written map[string]map[string]string // key → resource → newest version written
}

func newWriteFence(stores map[string]rvSource) *writeFence {
	return &writeFence{stores: stores, written: map[string]map[string]string{}}
}

// wrote records that a write for the DaemonSet key returned version rv of
// resource. An empty or malformed version is ignored.
func (f *writeFence) wrote(key, resource, rv string) {
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
// key, an error wrapping errCacheBehind that names the resource and both
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
			return fmt.Errorf("%w: %s cache at resourceVersion %s, wrote %s", errCacheBehind, r, read, w[r])
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
}

// dsKey is the queue key of ds, as cache.MetaNamespaceKeyFunc makes it.
func dsKey(ds *appsv1.DaemonSet) string {
	if ds.Namespace == "" {
		return ds.Name
	}
	return ds.Namespace + "/" + ds.Name
}
