package e2e

import (
	"fmt"

	"strings"
	"testing"
	"time"
)

// faultDowntime is how long a stopped control-plane component stays down
// before it is started again: the shape of the fault, not a wait for a
// condition.
const faultDowntime = 3 * time.Second

// killPlan are the moments the controller is SIGKILLed at, one after the
// other, each seen in the store after the previous instance was replaced:
// just after a status write, mid-delete (the first pod of a wave got its
// deletion timestamp, the others of the wave may still be on their way),
// mid-create-batch (the first pod of a slow-start batch exists).
var killPlan = []string{actionStatus, actionDelete, actionCreate, actionStatus, actionDelete, actionCreate}

// minKills is the fewest kills a SIGKILL run must inject.
const minKills = 5

// killWait bounds the wait for the next moment to kill the controller at.
const killWait = time.Minute

// TestFaultSIGKILL: the controller is SIGKILLed at six moments of a rolling
// update (after a status write, mid-delete, mid-create-batch, twice each)
// and started again at once each time; nothing is duplicated, no bound is
// broken, and the rollout ends as kube-controller-manager's does.
func TestFaultSIGKILL(t *testing.T) {
	runFault(t, faultScenario{kind: "sigkill", upstreamMayBreak: upstreamOverBudgetAfterKill, inject: injectKills})
}

// upstreamOverBudgetAfterKill is what kube-controller-manager was seen to
// do under TestFaultSIGKILL: each new instance starts with no expectations
// and may act on a cache that has not yet seen its predecessor's last
// writes. Its violations are reported in the fault table, not failures.
const upstreamOverBudgetAfterKill = "kube-controller-manager, SIGKILLed six times mid-rollout and started again each time, broke a bound " +
	"in 8 pod states once on v1.37.2 (2026-12-02, CI on a clean clone, the fault table's row sigkill/upstream; it had passed in every " +
	"earlier run); the example controller broke none in the same run"

// injectKills kills the controller at each moment of killPlan and starts a
// new instance.
func injectKills(f *faultEnv) {
	f.t.Helper()
	at := f.atEachAction("kill", killPlan, killWait, func(ev faultEvent) (time.Time, string) {
		f.current().kill()
		// Writes the killed instance had sent before it died may still
		// be committed; the next kill waits for the new instance's.
		next := time.Now().Add(50 * time.Millisecond)
		note := fmt.Sprintf("%s %s (+%s)", ev.kind, ev.what, time.Since(ev.at).Round(time.Millisecond))
		f.startInstance()
		return next, note
	})
	if f.injected < minKills {
		f.t.Errorf("%d kills injected, want at least %d", f.injected, minKills)
	}
	f.note("SIGKILL after %s", strings.Join(at, ", "))
}

// TestFaultAPIServerRestart: kube-apiserver is stopped (SIGTERM) twice
// during the rollout, mid-delete and mid-create, and started again after
// faultDowntime with the same flags on the same port.
func TestFaultAPIServerRestart(t *testing.T) {
	runFault(t, faultScenario{kind: "apiserver-restart", upstreamMayBreak: upstreamOverBudgetAfterAPIServer, inject: func(f *faultEnv) {
		restartAt(f, "kube-apiserver", []string{actionDelete, actionCreate}, (*process).stop)
	}})
}

// TestFaultEtcdRestart: etcd is stopped twice during the rollout, just
// as the controller has deleted (then created) pods, so that some of its
// writes are in flight, and started again after faultDowntime with the
// same data directory and ports. A write in flight can then fail with 500
// although etcd committed it (it did, often, with etcd SIGKILLed); the
// example controller waits until its cache agrees with the API server
// before it plans again (see writeFence in internal/syncer: before
// that fix it once created a second pod for a node here). etcd is stopped
// with SIGTERM: SIGKILLed, it restarted with every write the store watch
// had seen, but in some runs both controllers' rollouts then stalled (in
// the one examined, kwok never made a new pod Ready).
func TestFaultEtcdRestart(t *testing.T) {
	runFault(t, faultScenario{kind: "etcd-restart", upstreamMayBreak: upstreamStaleAfterEtcd, inject: func(f *faultEnv) {
		restartAt(f, "etcd", []string{actionDelete, actionCreate}, (*process).stop)
	}})
}

// upstreamStaleAfterEtcd is what kube-controller-manager v1.36 was seen to
// do under variants of TestFaultEtcdRestart while the scenario was
// written.
const upstreamStaleAfterEtcd = "kube-controller-manager v1.36, with etcd SIGKILLed mid-delete and mid-create, made a second pod for a node " +
	"after a create answered 500 that etcd had committed (1 of 7 runs); with etcd stopped just after status writes it deleted a pod " +
	"beyond maxUnavailable (2 of 7 runs); at this scenario's moments it broke no bound in 5 runs"

// upstreamOverBudgetAfterAPIServer is what kube-controller-manager v1.36
// was seen to do under TestFaultAPIServerRestart.
const upstreamOverBudgetAfterAPIServer = "kube-controller-manager v1.36, with kube-apiserver stopped mid-delete and mid-create, deleted a pod " +
	"beyond maxUnavailable (4 desired nodes without an available pod, budget 3, over 8 pod states) in 2 of the 5 runs counted on 2026-11-27, " +
	"one of them a CI run; the bound it broke under etcd-restart"

// restartAt stops the control-plane component at each moment, keeps it
// down for faultDowntime and starts it again, then waits until
// kube-apiserver is ready.
func restartAt(f *faultEnv, component string, moments []string, stop func(*process)) {
	f.t.Helper()
	at := f.atEachAction(component+" restart", moments, faultTimeout, func(ev faultEvent) (time.Time, string) {
		stop(f.procs[component])
		time.Sleep(faultDowntime)
		f.respawn(component)
		// The controller may act as soon as the component is back, before
		// kube-apiserver reports ready: the next moment counts from here.
		next := time.Now()
		f.waitReady()
		return next, fmt.Sprintf("%s %s", ev.kind, ev.what)
	})
	f.note("%s down %s after %s", component, faultDowntime, strings.Join(at, ", "))
}
