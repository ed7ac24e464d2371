package simulate_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/daemon/progressive/window"
	"github.com/daemonplan/daemonplan/daemon/simulate"
	"github.com/daemonplan/daemonplan/rollout"
)

const zoneKey = "topology.kubernetes.io/zone"

// zoneRollout is a rollout just started over six nodes, n1 to n6, two per
// zone (a, b, c): every pod runs the old template (v1), the DaemonSet the
// new one (v2), maxUnavailable 1, in waves by zone with no bake. dt.Epoch,
// its clock, is a Sunday, 12:00 UTC. pods, when given, replace the pods
// of the nodes they name.
func zoneRollout(pods ...*corev1.Pod) *simulate.Cluster {
	old := dt.DaemonSet("agent")
	ds := dt.DaemonSet("agent", dt.WithImage("registry.example/agent:v2"))
	ds.Generation = 2
	c := &simulate.Cluster{DaemonSet: ds, Now: dt.Epoch,
		Rollout: daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: zoneKey}, Waves: &rollout.WaveBarrier{}}}
	for i, zone := range []string{"a", "a", "b", "b", "c", "c"} {
		node := fmt.Sprintf("n%d", i+1)
		c.Nodes = append(c.Nodes, dt.Node(node, dt.WithLabel(zoneKey, zone)))
		pod := dt.Pod(old, "old-"+node, node)
		for _, p := range pods {
			if p.Spec.NodeName == node {
				pod = p
			}
		}
		c.Pods = append(c.Pods, pod)
	}
	return c
}

// newPod is a pod of zoneRollout's new template on node, created a minute
// before dt.Epoch, changed by opts.
func newPod(node string, opts ...dt.PodOption) *corev1.Pod {
	ds := dt.DaemonSet("agent", dt.WithImage("registry.example/agent:v2"))
	return dt.Pod(ds, "new-"+node, node, append([]dt.PodOption{dt.CreatedAt(dt.Epoch.Add(-time.Minute))}, opts...)...)
}

// crashLooping makes the pod's container wait in CrashLoopBackOff after
// restarts restarts, not Ready.
func crashLooping(restarts int32) dt.PodOption {
	return func(p *corev1.Pod) {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "agent", RestartCount: restarts,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}}}
		dt.NotReadyPod()(p)
	}
}

// restartedReady gives the pod's container restarts restarts; it stays
// Ready.
func restartedReady(restarts int32) dt.PodOption {
	return func(p *corev1.Pod) {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "agent", RestartCount: restarts, Ready: true,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}
	}
}

// days returns the weekdays of a Window.
func days(ds ...time.Weekday) (out [7]bool) {
	for _, d := range ds {
		out[d] = true
	}
	return out
}

// waitRow is a simulate.Wait as the tests compare it: time since the
// start, cause, wave, opening (as a time since the start) and the wait.
type waitRow struct {
	Step  int
	At    time.Duration
	Cause progressive.HoldCause
	Wave  string
	Until time.Duration
	For   time.Duration
}

func waitRows(res simulate.Result) []waitRow {
	var out []waitRow
	for _, w := range res.Waits {
		r := waitRow{Step: w.Step, At: w.At, Cause: w.Hold.Cause, Wave: w.Hold.Wave, For: w.For}
		if !w.Hold.Until.IsZero() {
			r.Until = w.Hold.Until.Sub(dt.Epoch)
		}
		out = append(out, r)
	}
	return out
}

// starts lists when each node's update started: "20h0m0s n1".
func starts(res simulate.Result) []string {
	var out []string
	for _, st := range res.Steps {
		for _, n := range st.UpdateNodes {
			out = append(out, fmt.Sprintf("%s %s", st.At, n))
		}
	}
	return out
}

const week = 7 * 24 * time.Hour

// utc resolves the zone "UTC" only.
func utc(name string) (*time.Location, error) {
	if name != "UTC" {
		return nil, fmt.Errorf("unknown zone %q", name)
	}
	return time.UTC, nil
}

// TestRunWindows: a closed window holds the deletes and moves the clock to
// its opening, which the run's time counts; a window that closes while a
// wave is under way stops it until the next opening.
func TestRunWindows(t *testing.T) {
	monday := days(time.Monday)
	cfg := simulate.Config{ReadyDelay: 10 * time.Second}
	tests := []struct {
		name       string
		windows    window.Windows
		wantWaits  []waitRow
		wantStarts []string
		wantTime   time.Duration
	}{{
		name:       "open: no wait",
		windows:    window.Windows{{Days: days(time.Sunday), Start: 0, End: 24 * time.Hour, Zone: "UTC"}},
		wantStarts: []string{"0s n1", "10s n2", "20s n3", "30s n4", "40s n5", "50s n6"},
		wantTime:   time.Minute,
	}, {
		name:       "closed on Sunday: waits for Monday 08:00",
		windows:    window.Windows{{Days: monday, Start: 8 * time.Hour, End: 17 * time.Hour, Zone: "UTC"}},
		wantWaits:  []waitRow{{Step: 0, At: 0, Cause: progressive.HoldWindow, Until: 20 * time.Hour, For: 20 * time.Hour}},
		wantStarts: []string{"20h0m0s n1", "20h0m10s n2", "20h0m20s n3", "20h0m30s n4", "20h0m40s n5", "20h0m50s n6"},
		wantTime:   20*time.Hour + time.Minute,
	}, {
		name:    "closes after 25s: the rest waits a week",
		windows: window.Windows{{Days: monday, Start: 8 * time.Hour, End: 8*time.Hour + 25*time.Second, Zone: "UTC"}},
		wantWaits: []waitRow{
			{Step: 0, At: 0, Cause: progressive.HoldWindow, Until: 20 * time.Hour, For: 20 * time.Hour},
			// n3 is Ready at 30s, after the window closed at 25s.
			{At: 20*time.Hour + 30*time.Second, Cause: progressive.HoldWindow, Until: week + 20*time.Hour, For: week - 30*time.Second},
		},
		wantStarts: []string{"20h0m0s n1", "20h0m10s n2", "20h0m20s n3", "188h0m0s n4", "188h0m10s n5", "188h0m20s n6"},
		wantTime:   week + 20*time.Hour + 30*time.Second,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := zoneRollout()
			c.Gates = &progressive.Gates{Windows: tt.windows}
			res := simulate.Run(c, cfg)
			if res.Outcome != simulate.OutcomeConverged {
				t.Fatalf("outcome %s (%s), want Converged", res.Outcome, res.Reason)
			}
			if diff := cmp.Diff(tt.wantWaits, waitRows(res), cmpopts.IgnoreFields(waitRow{}, "Step")); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantStarts, starts(res)); diff != "" {
				t.Errorf("updates started (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantTime, res.Duration()); diff != "" {
				t.Errorf("duration (-want +got):\n%s", diff)
			}
			for _, st := range res.Steps {
				open, _, err := tt.windows.At(dt.Epoch.Add(st.At), utc)
				if err != nil {
					t.Fatal(err)
				}
				// A complete rollout is held by nothing: it has nothing
				// to replace.
				if !open && len(st.UpdateNodes) > 0 || open && st.Held != progressive.HoldNone {
					t.Errorf("step %d at %s, window open %v: held %q, updates %v", st.Step, st.At, open, st.Held, st.UpdateNodes)
				}
			}
		})
	}
}

// TestRunApprovals: the approval points are recorded where each wave is
// done and taken as approved at once: they cost no time. An approval of
// the current revision given ahead of time covers its wave and the
// earlier ones; one of another revision covers nothing.
func TestRunApprovals(t *testing.T) {
	zoneA, zoneB := zoneKey+"=a", zoneKey+"=b"
	newHash := dt.Hash(zoneRollout().DaemonSet)
	tests := []struct {
		name      string
		canary    *daemon.CanarySpec
		gates     progressive.Gates
		wantWaits []waitRow
		wantTime  time.Duration
	}{{
		name:     "none",
		wantTime: time.Minute,
	}, {
		name:  "every wave but the last",
		gates: progressive.Gates{PauseAfter: []string{"every-wave"}},
		wantWaits: []waitRow{
			{At: 20 * time.Second, Cause: progressive.HoldApproval, Wave: zoneA},
			{At: 40 * time.Second, Cause: progressive.HoldApproval, Wave: zoneB},
		},
		wantTime: time.Minute,
	}, {
		name:      "after zone b",
		gates:     progressive.Gates{PauseAfter: []string{"b"}},
		wantWaits: []waitRow{{At: 40 * time.Second, Cause: progressive.HoldApproval, Wave: zoneB}},
		wantTime:  time.Minute,
	}, {
		name:     "approved ahead up to zone b",
		gates:    progressive.Gates{PauseAfter: []string{"every-wave"}, Approved: &progressive.Approval{Hash: newHash, Wave: zoneB}},
		wantTime: time.Minute,
	}, {
		name:  "approved for another revision",
		gates: progressive.Gates{PauseAfter: []string{"every-wave"}, Approved: &progressive.Approval{Hash: "0ld", Wave: zoneB}},
		wantWaits: []waitRow{
			{At: 20 * time.Second, Cause: progressive.HoldApproval, Wave: zoneA},
			{At: 40 * time.Second, Cause: progressive.HoldApproval, Wave: zoneB},
		},
		wantTime: time.Minute,
	}, {
		name:      "after the canary",
		canary:    &daemon.CanarySpec{Count: intstr.FromInt32(1)},
		gates:     progressive.Gates{PauseAfter: []string{"canary"}},
		wantWaits: []waitRow{{At: 10 * time.Second, Cause: progressive.HoldApproval, Wave: daemon.CanaryWave}},
		wantTime:  time.Minute,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := zoneRollout()
			c.Rollout.Canary = tt.canary
			c.Gates = &tt.gates
			before := c.DeepCopy()
			res := simulate.Run(c, simulate.Config{ReadyDelay: 10 * time.Second})
			if res.Outcome != simulate.OutcomeConverged {
				t.Fatalf("outcome %s (%s), want Converged", res.Outcome, res.Reason)
			}
			if diff := cmp.Diff(tt.wantWaits, waitRows(res), cmpopts.IgnoreFields(waitRow{}, "Step")); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
			for _, w := range res.Waits {
				if got := res.Steps[w.Step].At; got != w.At {
					t.Errorf("wait %+v: its step is at %s", w, got)
				}
			}
			if diff := cmp.Diff(tt.wantTime, res.Duration()); diff != "" {
				t.Errorf("duration (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before.Gates, c.Gates); diff != "" {
				t.Errorf("Run changed the cluster's gates (-before +after):\n%s", diff)
			}
		})
	}
}

// TestRunHealthGates: a new-revision pod the input shows failing stops the
// run at once, Blocked, naming the signal, pod and node, before any old
// pod is deleted; old pods failing, or the gates off, do not; a new pod
// that does not become Ready within the timeout stops it then.
func TestRunHealthGates(t *testing.T) {
	on := progressive.HealthGates{On: true, MaxRestarts: progressive.DefaultMaxRestarts, ReadyTimeout: progressive.DefaultReadyTimeout}
	tests := []struct {
		name        string
		pods        []*corev1.Pod
		health      progressive.HealthGates
		readyDelay  time.Duration
		wantOutcome simulate.Outcome
		wantGate    progressive.Hold
		wantAt      time.Duration
		wantStarts  []string
	}{{
		name:        "a new pod crash-looping in the capture",
		pods:        []*corev1.Pod{newPod("n3", crashLooping(5))},
		health:      on,
		wantOutcome: simulate.OutcomeBlocked,
		wantGate: progressive.Hold{Cause: progressive.HoldHealthGate, Signals: []progressive.PodSignal{
			{Pod: "new-n3", Node: "n3", Signal: progressive.SignalCrashLoop, Container: "agent"}}},
	}, {
		name:        "a Ready new pod restarted too often",
		pods:        []*corev1.Pod{newPod("n2", restartedReady(4))},
		health:      on,
		wantOutcome: simulate.OutcomeBlocked,
		wantGate: progressive.Hold{Cause: progressive.HoldHealthGate, Signals: []progressive.PodSignal{
			{Pod: "new-n2", Node: "n2", Signal: progressive.SignalRestarts, Container: "agent"}}},
	}, {
		name:        "an old pod crash-looping is replaced",
		pods:        []*corev1.Pod{dt.Pod(dt.DaemonSet("agent"), "old-n1", "n1", crashLooping(5))},
		health:      on,
		wantOutcome: simulate.OutcomeConverged,
		wantStarts:  []string{"0s n1", "10s n2", "20s n3", "30s n4", "40s n5", "50s n6"},
	}, {
		name:        "gates off",
		pods:        []*corev1.Pod{newPod("n2", restartedReady(4))},
		wantOutcome: simulate.OutcomeConverged,
		wantStarts:  []string{"0s n1", "10s n3", "20s n4", "30s n5", "40s n6"},
	}, {
		name:        "new pods slower than the ready timeout",
		health:      progressive.HealthGates{On: true, MaxRestarts: 3, ReadyTimeout: time.Minute},
		readyDelay:  2 * time.Minute,
		wantOutcome: simulate.OutcomeBlocked,
		wantGate: progressive.Hold{Cause: progressive.HoldHealthGate, Signals: []progressive.PodSignal{
			{Pod: "agent-00002", Node: "n1", Signal: progressive.SignalReadyTimeout}}},
		wantAt:     time.Minute,
		wantStarts: []string{"0s n1"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := zoneRollout(tt.pods...)
			c.Gates = &progressive.Gates{Health: tt.health}
			ready := tt.readyDelay
			if ready == 0 {
				ready = 10 * time.Second
			}
			res := simulate.Run(c, simulate.Config{ReadyDelay: ready})
			if res.Outcome != tt.wantOutcome {
				t.Fatalf("outcome %s (%s), want %s", res.Outcome, res.Reason, tt.wantOutcome)
			}
			if diff := cmp.Diff(tt.wantGate, res.Gate, cmpopts.IgnoreFields(progressive.PodSignal{}, "Detail"),
				cmpopts.IgnoreFields(progressive.Hold{}, "Next")); diff != "" {
				t.Errorf("gate (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantStarts, starts(res)); diff != "" {
				t.Errorf("updates started (-want +got):\n%s", diff)
			}
			if !res.Gate.Held() {
				return
			}
			last := res.Steps[len(res.Steps)-1]
			if last.At != tt.wantAt || last.Held != progressive.HoldHealthGate || len(last.UpdateNodes) > 0 {
				t.Errorf("last step at %s held %q updating %v, want at %s held by the health gate updating nothing", last.At, last.Held, last.UpdateNodes, tt.wantAt)
			}
			for _, sig := range tt.wantGate.Signals {
				if !strings.Contains(res.Reason, sig.Pod) || !strings.Contains(res.Reason, sig.Node) || !strings.Contains(res.Reason, string(sig.Signal)) {
					t.Errorf("reason %q does not name %s, %s and %s", res.Reason, sig.Signal, sig.Pod, sig.Node)
				}
			}
		})
	}
}

// TestRunZeroGates: gates that hold nothing leave the run as it is
// without them.
func TestRunZeroGates(t *testing.T) {
	c := zoneRollout(newPod("n2", restartedReady(4)))
	cfg := simulate.Config{ReadyDelay: 10 * time.Second, GracePeriod: 5 * time.Second}
	want := simulate.Run(c, cfg)
	c.Gates = &progressive.Gates{}
	got := simulate.Run(c, cfg)
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(simulate.Result{}, "Final")); diff != "" {
		t.Errorf("zero gates (-without +with):\n%s", diff)
	}
}

// TestRunGatesZones: a window's zone is resolved with Config.Zones; an
// unknown one (or one without Zones, other than UTC) leaves the cluster
// unsimulated, the zone named.
func TestRunGatesZones(t *testing.T) {
	c := zoneRollout()
	c.Gates = &progressive.Gates{Windows: window.Windows{{Days: days(time.Monday), Start: 8 * time.Hour, End: 17 * time.Hour, Zone: "Europe/Amsterdam"}}}
	res := simulate.Run(c, simulate.Config{})
	if res.Outcome != simulate.OutcomeStalled || len(res.Steps) > 0 || !strings.Contains(res.Reason, "Europe/Amsterdam") {
		t.Errorf("without Zones: %s after %d steps (%s), want Stalled at once naming the zone", res.Outcome, len(res.Steps), res.Reason)
	}
	amsterdam := time.FixedZone("CEST", 2*60*60)
	zones := func(name string) (*time.Location, error) {
		if name == "Europe/Amsterdam" {
			return amsterdam, nil
		}
		return nil, fmt.Errorf("unknown zone %q", name)
	}
	res = simulate.Run(c, simulate.Config{ReadyDelay: 10 * time.Second, Zones: zones})
	// Monday 08:00 CEST is 06:00 UTC: 18h after Sunday noon UTC.
	want := []waitRow{{At: 0, Cause: progressive.HoldWindow, Until: 18 * time.Hour, For: 18 * time.Hour}}
	if diff := cmp.Diff(want, waitRows(res)); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
}

// TestClusterDeepCopyGates: a copy's gates share nothing with the
// original's.
func TestClusterDeepCopyGates(t *testing.T) {
	c := zoneRollout()
	c.Gates = &progressive.Gates{PauseAfter: []string{"b"}, Approved: &progressive.Approval{Hash: "h", Wave: "w"},
		Windows: window.Windows{{Days: days(time.Monday), End: time.Hour, Zone: "UTC"}}}
	want := *c.Gates
	cp := c.DeepCopy()
	if diff := cmp.Diff(c.Gates, cp.Gates); diff != "" {
		t.Fatalf("copy's gates (-original +copy):\n%s", diff)
	}
	cp.Gates.PauseAfter[0], cp.Gates.Approved.Wave, cp.Gates.Windows[0].Zone = "x", "x", "x"
	if diff := cmp.Diff(want.PauseAfter, c.Gates.PauseAfter); diff != "" || c.Gates.Approved.Wave != "w" || c.Gates.Windows[0].Zone != "UTC" {
		t.Errorf("changing the copy's gates changed the original's: %+v", c.Gates)
	}
}

// TestRunGatesDeterministic: a gated run gives the same result twice.
func TestRunGatesDeterministic(t *testing.T) {
	c := zoneRollout()
	c.Rollout.Canary = &daemon.CanarySpec{Count: intstr.FromInt32(1)}
	c.Gates = &progressive.Gates{PauseAfter: []string{"canary", "every-wave"},
		Health:  progressive.HealthGates{On: true, MaxRestarts: 3, ReadyTimeout: time.Minute},
		Windows: window.Windows{{Days: days(time.Monday), Start: 8 * time.Hour, End: 8*time.Hour + 25*time.Second, Zone: "UTC"}}}
	cfg := simulate.Config{ReadyDelay: 10 * time.Second, GracePeriod: 2 * time.Second}
	a, b := simulate.Run(c, cfg), simulate.Run(c, cfg)
	if diff := cmp.Diff(a, b, cmpopts.IgnoreFields(simulate.Result{}, "Final")); diff != "" {
		t.Errorf("two runs differ (-first +second):\n%s", diff)
	}
	if len(a.Waits) < 3 {
		t.Errorf("waits %+v: want the window, the canary's approval and more", a.Waits)
	}
}
