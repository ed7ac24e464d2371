package app

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fixedReadiness is a readiness that always answers the same.
type fixedReadiness struct {
	ok  bool
	why string
}

func (f fixedReadiness) ready() (bool, string) { return f.ok, f.why }

// TestReplicaReadiness walks a replica through its life: without leader
// election it is ready once the caches have synced; with it, a standby is
// ready and says so, and a leader is ready once its caches have synced.
func TestReplicaReadiness(t *testing.T) {
	type state struct {
		leaderElect, leading bool
		controller           bool // the controller exists (setSynced was called)
		synced               bool
	}
	tests := []struct {
		name string
		in   state
		want int
		body string
	}{
		{"no leader election, no controller yet", state{}, 503, "not ready: informer caches not synced yet\n"},
		{"no leader election, caches syncing", state{controller: true}, 503, "not ready: informer caches not synced yet\n"},
		{"no leader election, caches synced", state{controller: true, synced: true}, 200, "ok: caches synced\n"},
		{"standby", state{leaderElect: true}, 200, "ok: standby, another replica leads (the caches start when this one leads)\n"},
		{"just elected, no controller yet", state{leaderElect: true, leading: true}, 503, "not ready: leading, informer caches not synced yet\n"},
		{"leading, caches syncing", state{leaderElect: true, leading: true, controller: true}, 503, "not ready: leading, informer caches not synced yet\n"},
		{"leading, caches synced", state{leaderElect: true, leading: true, controller: true, synced: true}, 200, "ok: caches synced, leading\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &replicaReadiness{leaderElect: tt.in.leaderElect}
			r.leading.Store(tt.in.leading)
			if tt.in.controller {
				r.setSynced(func() bool { return tt.in.synced })
			}
			rec := httptest.NewRecorder()
			readyz(r)(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
			body, _ := io.ReadAll(rec.Result().Body)
			if diff := cmp.Diff(tt.want, rec.Code); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.body, string(body)); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReadinessFollowsSync: the same readiness turns ready when the caches
// sync, without being told again.
func TestReadinessFollowsSync(t *testing.T) {
	r := &replicaReadiness{}
	var synced bool
	r.setSynced(func() bool { return synced })
	if ok, why := r.ready(); ok {
		t.Fatalf("ready before the caches synced: %q", why)
	}
	synced = true
	if ok, why := r.ready(); !ok {
		t.Fatalf("not ready after the caches synced: %q", why)
	}
}
