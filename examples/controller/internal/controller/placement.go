package controller

import (
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonplan/daemonplan/daemon"
)

// placementCache keeps, per DaemonSet UID, the compiled placement check and
// the parsed selector of its current spec, so that event handlers judge a
// node or a pod without parsing or allocating anything. Entries are rebuilt
// when the DaemonSet's generation changes.
type placementCache struct {
	comparisonOperators bool

	mu      sync.Mutex
	entries map[types.UID]*dsInfo
}

// dsInfo is what the handlers need of one DaemonSet spec.
type dsInfo struct {
	uid        types.UID
	generation int64
	version    string // resourceVersion, when generation is not set
	elig       *daemon.Eligibility
	// sel is nil when the selector is invalid or empty: such a DaemonSet
	// adopts nothing.
	sel labels.Selector
}

func newPlacementCache(comparisonOperators bool) *placementCache {
	return &placementCache{comparisonOperators: comparisonOperators, entries: map[types.UID]*dsInfo{}}
}

// get returns the entry of ds, compiling it when missing or stale.
func (p *placementCache) get(ds *appsv1.DaemonSet) *dsInfo {
	version := ""
	if ds.Generation == 0 {
		version = ds.ResourceVersion
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if e, ok := p.entries[ds.UID]; ok && e.generation == ds.Generation && e.version == version {
		return e
	}
	e := &dsInfo{uid: ds.UID, generation: ds.Generation, version: version, elig: daemon.NewEligibility(ds, p.comparisonOperators)}
	if ds.Spec.Selector != nil && (len(ds.Spec.Selector.MatchLabels) > 0 || len(ds.Spec.Selector.MatchExpressions) > 0) {
		if sel, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector); err == nil {
			e.sel = sel
		}
	}
	p.entries[ds.UID] = e
	return e
}

func (p *placementCache) forget(uid types.UID) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.entries, uid)
}
