package app

import (
	"net/http"
	"sync/atomic"
)

// readiness is what /readyz reports: whether this replica is ready, and
// why, in one line.
type readiness interface {
	ready() (bool, string)
}

// replicaReadiness is the controller process's readiness. Without leader
// election it is ready once the controller's informer caches have synced.
// With it, a replica that does not lead is ready too, and says so
// ("standby"): its caches start only when it leads, and it serves
// /healthz and /metrics meanwhile. Were a standby unready, a Deployment's
// rolling update would wait forever for the new replica (it cannot lead
// while the old one holds the Lease) and a PodDisruptionBudget would count
// the standby as disrupted. The leader is ready once its caches have
// synced.
type replicaReadiness struct {
	leaderElect bool
	leading     atomic.Bool
	// synced is the controller's HasSynced once it exists.
	synced atomic.Pointer[func() bool]
}

// setSynced gives the readiness the running controller's HasSynced.
func (r *replicaReadiness) setSynced(synced func() bool) { r.synced.Store(&synced) }

func (r *replicaReadiness) cachesSynced() bool {
	s := r.synced.Load()
	return s != nil && (*s)()
}

func (r *replicaReadiness) ready() (bool, string) {
	switch {
	case r.leaderElect && !r.leading.Load():
		return true, "ok: standby, another replica leads (the caches start when this one leads)"
	case !r.cachesSynced() && r.leaderElect:
		return false, "not ready: leading, informer caches not synced yet"
	case !r.cachesSynced():
		return false, "not ready: informer caches not synced yet"
	case r.leaderElect:
		return true, "ok: caches synced, leading"
	default:
		return true, "ok: caches synced"
	}
}

// readyz answers /readyz from r: 200 when ready, 503 when not, the reason
// as the body either way.
func readyz(r readiness) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		ok, why := r.ready()
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if !ok {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		_, _ = w.Write([]byte(why + "\n"))
	}
}
