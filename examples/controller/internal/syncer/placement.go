package syncer

import (
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonplan/daemonplan/daemon/eligibility"
)

// PlacementCache keeps, per DaemonSet UID, the compiled placement check and
// the parsed selector of its current spec, so that event handlers judge a
// node or a pod without parsing or allocating anything. Entries are rebuilt
// when the DaemonSet's generation changes.
type PlacementCache struct {
	comparisonOperators bool

	mu      sync.Mutex
	entries map[types.UID]*DaemonSetPlacement
}

// DaemonSetPlacement is what the handlers need of one DaemonSet spec.
type DaemonSetPlacement struct {
	uid        types.UID
	generation int64
	version    string // resourceVersion, when generation is not set
	// Eligibility is the compiled placement check of the spec.
	Eligibility *eligibility.Check
	// Selector is nil when the selector is invalid or empty: such a DaemonSet
	// adopts nothing.
	Selector labels.Selector
}

// NewPlacementCache returns an empty cache; comparisonOperators is the
// TaintTolerationComparisonOperators feature gate.
func NewPlacementCache(comparisonOperators bool) *PlacementCache {
	return &PlacementCache{comparisonOperators: comparisonOperators, entries: map[types.UID]*DaemonSetPlacement{}}
}

// get returns the entry of ds, compiling it when missing or stale.
func (p *PlacementCache) Get(ds *appsv1.DaemonSet) *DaemonSetPlacement {
	version := ""
	if ds.Generation == 0 {
		version = ds.ResourceVersion
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if e, ok := p.entries[ds.UID]; ok && e.generation == ds.Generation && e.version == version {
		return e
	}
	e := &DaemonSetPlacement{uid: ds.UID, generation: ds.Generation, version: version, Eligibility: eligibility.New(ds, p.comparisonOperators)}
	if ds.Spec.Selector != nil && (len(ds.Spec.Selector.MatchLabels) > 0 || len(ds.Spec.Selector.MatchExpressions) > 0) {
		if sel, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector); err == nil {
			e.Selector = sel
		}
	}
	p.entries[ds.UID] = e
	return e
}

// Forget drops the entry of the DaemonSet with uid.
func (p *PlacementCache) Forget(uid types.UID) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.entries, uid)
}
