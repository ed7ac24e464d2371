package syncer

import (
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonplan/daemonplan/daemon/eligibility"
)

// placementCache keeps, per DaemonSet UID, the compiled placement check and
// the parsed selector of its current spec, so that event handlers judge a
// node or a pod without parsing or allocating anything. Entries are rebuilt
// when the DaemonSet's generation changes.
type placementCache struct {
	comparisonOperators bool

	mu      sync.Mutex
	entries map[types.UID]*daemonSetPlacement
}

// daemonSetPlacement is what the handlers need of one DaemonSet spec.
type daemonSetPlacement struct {
	uid        types.UID
	generation int64
	version    string // resourceVersion, when generation is not set
	// eligibility is the compiled placement check of the spec.
	eligibility *eligibility.Check
	// selector is nil when the selector is invalid or empty: such a DaemonSet
	// adopts nothing.
	selector labels.Selector
}

// newPlacementCache returns an empty cache; comparisonOperators is the
// TaintTolerationComparisonOperators feature gate.
func newPlacementCache(comparisonOperators bool) *placementCache {
	return &placementCache{comparisonOperators: comparisonOperators, entries: map[types.UID]*daemonSetPlacement{}}
}

// get returns the entry of ds, compiling it when missing or stale.
func (p *placementCache) get(ds *appsv1.DaemonSet) *daemonSetPlacement {
	version := ""
	if ds.Generation == 0 {
		version = ds.ResourceVersion
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if e, ok := p.entries[ds.UID]; ok && e.generation == ds.Generation && e.version == version {
		return e
	}
	e := &daemonSetPlacement{uid: ds.UID, generation: ds.Generation, version: version, eligibility: eligibility.New(ds, p.comparisonOperators)}
	if ds.Spec.Selector != nil && (len(ds.Spec.Selector.MatchLabels) > 0 || len(ds.Spec.Selector.MatchExpressions) > 0) {
		if sel, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector); err == nil {
			e.selector = sel
		}
	}
	p.entries[ds.UID] = e
	return e
}

// forget drops the entry of the DaemonSet with uid.
func (p *placementCache) forget(uid types.UID) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.entries, uid)
}
