package syncer

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// warnings remembers the warnings already recorded, one per DaemonSet
// spec, rollout annotations and warning, so that a DaemonSet that stays
// wrong gets one Warning event, not one per sync. It keeps the last
// warning of each reason, so that two reasons warned in one sync do not
// displace each other.
type warnings struct {
	mu     sync.Mutex
	warned map[string]map[string]string
}

// newWarnings returns a warnings that remembers none.
func newWarnings() *warnings {
	return &warnings{warned: map[string]map[string]string{}}
}

// once reports whether the warning fingerprint fp (the DaemonSet's UID,
// generation, annotations and the warning) is new for key and reason.
func (w *warnings) once(key, reason, fp string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.warned[key][reason] == fp {
		return false
	}
	if w.warned[key] == nil {
		w.warned[key] = map[string]string{}
	}
	w.warned[key][reason] = fp
	return true
}

func (w *warnings) forget(key string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.warned, key)
}

// fingerprint identifies a DaemonSet spec and its rollout annotations.
func fingerprint(ds *appsv1.DaemonSet, what string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s/%d/%s", ds.UID, ds.Generation, what)
	for _, k := range slices.Sorted(maps.Keys(ds.Annotations)) {
		if strings.Contains(k, "daemonplan") {
			fmt.Fprintf(&b, "\x00%s=%s", k, ds.Annotations[k])
		}
	}
	return b.String()
}

// Warn records a Warning event on ds, the DaemonSet of key, once per spec,
// rollout annotations, reason and message, and logs it.
func (s *Syncer) Warn(key string, ds *appsv1.DaemonSet, reason, msg string) {
	if s.warnings.once(key, reason, fingerprint(ds, reason+"\x00"+msg)) {
		s.Recorder.Event(ds, corev1.EventTypeWarning, reason, msg)
		s.Logger.Info("DaemonSet not rolled out", "daemonset", key, "reason", reason, "detail", msg)
	}
}
