package progressive_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/daemon/progressive/window"
	"github.com/daemonplan/daemonplan/rollout"
)

// zonedNodes returns nodes n1..n<len(zones)>, node i in zone zones[i].
func zonedNodes(zones string) []*corev1.Node {
	var nodes []*corev1.Node
	for i, z := range zones {
		nodes = append(nodes, dt.Node(fmt.Sprintf("n%d", i+1), dt.WithLabel(zone, string(z))))
	}
	return nodes
}

// planOf computes ds's plan with the standing and judges it.
func planOf(t *testing.T, ds *appsv1.DaemonSet, nodes []*corev1.Node, pods []*corev1.Pod, pol daemon.RolloutPolicy) (*daemon.Plan, progressive.Judgement) {
	t.Helper()
	plan, err := daemon.Compute(ds, nodes, pods, daemon.Options{Now: dt.Epoch, Rollout: pol, ReportStanding: true})
	if err != nil {
		t.Fatal(err)
	}
	j, err := progressive.Judge(ds, &plan)
	if err != nil {
		t.Fatal(err)
	}
	return &plan, j
}

func TestGatesHold(t *testing.T) {
	ds := dt.DaemonSet("agent", dt.WithMaxUnavailable("100%"))
	hash := dt.Hash(ds)
	waves := func(bake time.Duration) daemon.RolloutPolicy {
		return daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: zone}, Waves: &rollout.WaveBarrier{Bake: bake}}
	}
	on := progressive.HealthGates{On: true, MaxRestarts: 3, ReadyTimeout: 10 * time.Minute}
	health := progressive.Gates{Health: on}
	pauseAfter := func(approved *progressive.Approval, points ...string) progressive.Gates {
		return progressive.Gates{Health: on, PauseAfter: points, Approved: approved}
	}
	crash := withContainers(waiting(container("agent", 4), "CrashLoopBackOff"))
	tests := []struct {
		name     string
		zones    string // default "abab"
		kinds    []string
		readyAgo time.Duration // default an hour
		pol      daemon.RolloutPolicy
		gates    *progressive.Gates
		// pods changes the pod of node n<i+1> (index i).
		pods     map[int]dt.PodOption
		nodes    map[int]dt.NodeOption
		want     progressive.Hold
		wantText string
	}{
		{name: "nothing holds a rollout under way", kinds: []string{"new", "old", "new", "old"}, pol: waves(0), gates: &health,
			wantText: "not held"},
		{name: "nil gates hold nothing", kinds: []string{"new-unready", "old", "new", "old"}, pol: waves(0), pods: map[int]dt.PodOption{0: crash}},

		// Health gates.
		{name: "a new pod crash-loops", kinds: []string{"new-unready", "old", "new", "old"}, pol: waves(0), gates: &health, pods: map[int]dt.PodOption{0: crash},
			want: progressive.Hold{Cause: progressive.HoldHealthGate, Signals: []progressive.PodSignal{
				{Pod: "agent-n1-new-unready", Node: "n1", Signal: progressive.SignalCrashLoop, Container: "agent", Detail: "4 restarts"}}},
			wantText: "health gate failed: CrashLoopBackOff on pod agent-n1-new-unready (node n1, container agent: 4 restarts)"},
		{name: "an old pod's crash loop is no signal", kinds: []string{"old-unready", "old", "old", "old"}, pol: waves(0), gates: &health, pods: map[int]dt.PodOption{0: crash}},
		{name: "health gates off", kinds: []string{"new-unready", "old", "new", "old"}, pol: waves(0), gates: &progressive.Gates{}, pods: map[int]dt.PodOption{0: crash}},
		{name: "a new pod outside the scope is no signal", kinds: []string{"new", "new-unready", "old", "old"},
			pol: daemon.RolloutPolicy{Scope: &metav1.LabelSelector{MatchLabels: map[string]string{zone: "a"}}}, gates: &health, pods: map[int]dt.PodOption{1: crash}},
		{name: "a new pod being deleted is no signal", kinds: []string{"new-unready", "old", "old", "old"}, gates: &health,
			pods: map[int]dt.PodOption{0: func(p *corev1.Pod) { crash(p); dt.Deleting(dt.Epoch)(p) }}},
		{name: "several pods, sorted by node", kinds: []string{"new-unready", "new-unready", "new-unready", "old"}, gates: &health,
			pods: map[int]dt.PodOption{2: crash, 0: withContainers(waiting(container("agent", 0), "ErrImagePull"))},
			want: progressive.Hold{Cause: progressive.HoldHealthGate, Signals: []progressive.PodSignal{
				{Pod: "agent-n1-new-unready", Node: "n1", Signal: progressive.SignalImagePull, Container: "agent", Detail: "ErrImagePull"},
				{Pod: "agent-n2-new-unready", Node: "n2", Signal: progressive.SignalReadyTimeout, Detail: "not Ready within 10m0s"},
				{Pod: "agent-n3-new-unready", Node: "n3", Signal: progressive.SignalCrashLoop, Container: "agent", Detail: "4 restarts"},
			}}},
		{name: "a new pod not Ready within the timeout", kinds: []string{"new-unready", "old", "old", "old"}, gates: &health,
			want: progressive.Hold{Cause: progressive.HoldHealthGate, Signals: []progressive.PodSignal{
				{Pod: "agent-n1-new-unready", Node: "n1", Signal: progressive.SignalReadyTimeout, Detail: "not Ready within 10m0s"}}}},
		{name: "a pending ready timeout is when to look again", kinds: []string{"new-unready", "old", "old", "old"},
			gates: &progressive.Gates{Health: progressive.HealthGates{On: true, ReadyTimeout: 2 * time.Hour}},
			want:  progressive.Hold{Next: dt.Epoch.Add(time.Hour)}},
		{name: "a pod on a NotReady node does not time out", kinds: []string{"new-unready", "old", "old", "old"}, gates: &health,
			nodes: map[int]dt.NodeOption{0: dt.NotReady()}},
		{name: "a restart during the bake", kinds: []string{"new", "old", "new", "old"}, readyAgo: 10 * time.Minute, pol: waves(time.Hour), gates: &health,
			pods: map[int]dt.PodOption{2: withContainers(lastTerminated(container("agent", 1), "Error", dt.Epoch.Add(-5*time.Minute)))},
			want: progressive.Hold{Cause: progressive.HoldHealthGate, Signals: []progressive.PodSignal{
				{Pod: "agent-n3-new", Node: "n3", Signal: progressive.SignalRestartedDuringBake, Container: "agent",
					Detail: "restarted at 2025-06-01T11:55:00Z, during the bake of wave topology.kubernetes.io/zone=a"}}}},
		{name: "a restart before the bake", kinds: []string{"new", "old", "new", "old"}, readyAgo: 10 * time.Minute, pol: waves(time.Hour), gates: &health,
			pods: map[int]dt.PodOption{2: withContainers(lastTerminated(container("agent", 1), "Error", dt.Epoch.Add(-20*time.Minute)))}},
		// A pod of zone a crashes after it was Ready, zone a's other node
		// available for 10 minutes: the wave is no longer done, so it does
		// not bake, but the restart came within the bake of its being done.
		{name: "a crash out of a done wave, within its bake", kinds: []string{"new", "old", "new-unready", "old"}, readyAgo: 10 * time.Minute, pol: waves(time.Hour),
			gates: &progressive.Gates{Health: on, Bake: time.Hour}, pods: map[int]dt.PodOption{2: crashedAfterReady(-30*time.Minute, -2*time.Minute, -2*time.Minute)},
			want: progressive.Hold{Cause: progressive.HoldHealthGate, Signals: []progressive.PodSignal{
				{Pod: "agent-n3-new-unready", Node: "n3", Signal: progressive.SignalRestartedDuringBake, Container: "agent",
					Detail: "restarted at 2025-06-01T11:58:00Z after being Ready, within the bake of wave topology.kubernetes.io/zone=a"}}}},
		{name: "a crash of a pod never Ready is no bake failure", kinds: []string{"new", "old", "new-unready", "old"}, readyAgo: 10 * time.Minute, pol: waves(time.Hour),
			gates: &progressive.Gates{Health: progressive.HealthGates{On: true, MaxRestarts: 3, ReadyTimeout: 2 * time.Hour}, Bake: time.Hour},
			pods:  map[int]dt.PodOption{2: crashedAfterReady(-30*time.Minute, -2*time.Minute, -40*time.Minute)},
			want:  progressive.Hold{Next: dt.Epoch.Add(80 * time.Minute)}},
		{name: "a crash after the bake's length is no bake failure", kinds: []string{"new", "old", "new-unready", "old"}, readyAgo: 10 * time.Minute, pol: waves(5 * time.Minute),
			gates: &progressive.Gates{Health: on, Bake: 5 * time.Minute}, pods: map[int]dt.PodOption{2: crashedAfterReady(-30*time.Minute, -2*time.Minute, -2*time.Minute)},
			want: progressive.Hold{Next: dt.Epoch.Add(8 * time.Minute)}},
		{name: "without a bake a crash out of a done wave is no bake failure", kinds: []string{"new", "old", "new-unready", "old"}, readyAgo: 10 * time.Minute, pol: waves(0),
			gates: &health, pods: map[int]dt.PodOption{2: crashedAfterReady(-30*time.Minute, -2*time.Minute, -2*time.Minute)},
			want: progressive.Hold{Next: dt.Epoch.Add(8 * time.Minute)}},
		{name: "a complete rollout is never held", kinds: []string{"new", "new", "new", "new"}, pol: waves(0),
			gates: &progressive.Gates{Health: on, PauseAfter: []string{"every-wave"}}, pods: map[int]dt.PodOption{0: withContainers(container("agent", 9))}},

		// Approval.
		{name: "waiting for approval after a wave", kinds: []string{"new", "old", "new", "old"}, pol: waves(0), gates: ptr(pauseAfter(nil, "a")),
			want:     progressive.Hold{Cause: progressive.HoldApproval, Wave: zone + "=a"},
			wantText: "waiting for approval after wave topology.kubernetes.io/zone=a"},
		{name: "approved", kinds: []string{"new", "old", "new", "old"}, pol: waves(0),
			gates: ptr(pauseAfter(&progressive.Approval{Hash: hash, Wave: zone + "=a"}, "a"))},
		{name: "an approval of an older revision does not carry over", kinds: []string{"new", "old", "new", "old"}, pol: waves(0),
			gates: ptr(pauseAfter(&progressive.Approval{Hash: "older", Wave: zone + "=a"}, "a")),
			want:  progressive.Hold{Cause: progressive.HoldApproval, Wave: zone + "=a"}},
		{name: "a wave not done is no point yet", kinds: []string{"new", "old", "new-unready", "old"}, pol: waves(0), gates: &progressive.Gates{PauseAfter: []string{"a"}}},
		{name: "every-wave: the latest done wave", zones: "abc", kinds: []string{"new", "new", "old"}, pol: waves(0), gates: ptr(pauseAfter(nil, "every-wave")),
			want: progressive.Hold{Cause: progressive.HoldApproval, Wave: zone + "=b"}},
		{name: "an approval of an earlier point does not cover a later one", zones: "abc", kinds: []string{"new", "new", "old"}, pol: waves(0),
			gates: ptr(pauseAfter(&progressive.Approval{Hash: hash, Wave: zone + "=a"}, "every-wave")),
			want:  progressive.Hold{Cause: progressive.HoldApproval, Wave: zone + "=b"}},
		{name: "an approval of a later point covers an earlier one", zones: "abc", kinds: []string{"new", "old", "old"}, pol: waves(0),
			gates: ptr(pauseAfter(&progressive.Approval{Hash: hash, Wave: zone + "=b"}, "every-wave"))},
		// An approval of the current revision naming no wave holds at
		// once, naming it (before, it waited for an approval it
		// seemed to have).
		{name: "an approval of an unknown wave holds", zones: "abc", kinds: []string{"new", "old", "old"}, pol: waves(0),
			gates: ptr(pauseAfter(&progressive.Approval{Hash: hash, Wave: "rack=x"}, "every-wave")),
			want: progressive.Hold{Cause: progressive.HoldUnresolved, Unresolved: []progressive.Unresolved{{
				Key: progressive.AnnotationApproved, Value: "rack=x", What: "wave", Of: "waves",
				Exist: []string{zone + "=a", zone + "=b", zone + "=c"}}}}},
		{name: "an approval of another revision is not read", zones: "abc", kinds: []string{"new", "old", "old"}, pol: waves(0),
			gates: ptr(pauseAfter(&progressive.Approval{Hash: "other", Wave: "rack=x"}, "every-wave")),
			want:  progressive.Hold{Cause: progressive.HoldApproval, Wave: zone + "=a"}},
		// Every wave is done, but the plan still deletes the pod of n5,
		// which may no longer run there: not complete.
		{name: "every-wave excludes the last wave", zones: "ababb", kinds: []string{"new", "new", "new", "new", "new"}, pol: waves(0),
			nodes: map[int]dt.NodeOption{4: dt.WithTaint("dedicated", "other", corev1.TaintEffectNoExecute)},
			gates: ptr(pauseAfter(&progressive.Approval{Hash: hash, Wave: zone + "=a"}, "every-wave"))},
		{name: "every-wave after the last wave but one", zones: "ababb", kinds: []string{"new", "new", "new", "new", "new"}, pol: waves(0),
			nodes: map[int]dt.NodeOption{4: dt.WithTaint("dedicated", "other", corev1.TaintEffectNoExecute)},
			gates: ptr(pauseAfter(nil, "every-wave")),
			want:  progressive.Hold{Cause: progressive.HoldApproval, Wave: zone + "=a"}},
		{name: "a value naming the last wave is no point", zones: "ababb", kinds: []string{"new", "new", "new", "new", "new"}, pol: waves(0),
			nodes: map[int]dt.NodeOption{4: dt.WithTaint("dedicated", "other", corev1.TaintEffectNoExecute)},
			gates: ptr(pauseAfter(nil, "b"))},
		{name: "the health gates go before approval", kinds: []string{"new", "old", "new", "old"}, pol: waves(0), gates: ptr(pauseAfter(nil, "a")),
			pods: map[int]dt.PodOption{0: withContainers(container("agent", 4))},
			want: progressive.Hold{Cause: progressive.HoldHealthGate, Signals: []progressive.PodSignal{
				{Pod: "agent-n1-new", Node: "n1", Signal: progressive.SignalRestarts, Container: "agent", Detail: "4 restarts, more than 3"}}}},
		{name: "waiting for approval counts a pending ready timeout", kinds: []string{"new", "new-unready", "new", "old"}, pol: waves(0),
			gates: &progressive.Gates{Health: progressive.HealthGates{On: true, ReadyTimeout: 2 * time.Hour}, PauseAfter: []string{"a"}},
			want:  progressive.Hold{Cause: progressive.HoldApproval, Wave: zone + "=a", Next: dt.Epoch.Add(time.Hour)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			zones := tt.zones
			if zones == "" {
				zones = "abab"
			}
			nodes := zonedNodes(zones)
			for i, o := range tt.nodes {
				o(nodes[i])
			}
			readyAgo := tt.readyAgo
			if readyAgo == 0 {
				readyAgo = time.Hour
			}
			pods := dt.PodsByKind(ds, dt.Epoch.Add(-readyAgo), tt.kinds...)
			for i, o := range tt.pods {
				o(pods[i])
			}
			plan, j := planOf(t, ds, nodes, pods, tt.pol)
			var beforeGates *progressive.Gates
			if tt.gates != nil {
				c := *tt.gates
				beforeGates = &c
			}
			beforePods := make([]*corev1.Pod, len(pods))
			for i, p := range pods {
				beforePods[i] = p.DeepCopy()
			}
			got, err := tt.gates.Hold(ds, plan, j, dt.Epoch, nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Hold() (-want +got):\n%s\njudgement: %s", diff, j.Reason)
			}
			if got.Held() != (got.Cause != progressive.HoldNone) {
				t.Errorf("Held() = %v with cause %q", got.Held(), got.Cause)
			}
			if tt.wantText != "" && got.String() != tt.wantText {
				t.Errorf("String() = %q, want %q", got.String(), tt.wantText)
			}
			if diff := cmp.Diff(beforeGates, tt.gates); diff != "" {
				t.Errorf("Hold() modified the gates (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(beforePods, pods); diff != "" {
				t.Errorf("Hold() modified the pods (-before +after):\n%s", diff)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestGatesHoldWindows: outside every window the rollout is held until
// the next opening; inside, Next is the closing.
func TestGatesHoldWindows(t *testing.T) {
	ws, err := window.Parse("Mon-Fri 08:00-17:00 UTC")
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) == 0 {
		t.Skip("ParseWindows is not implemented yet")
	}
	ds := dt.DaemonSet("agent")
	plan, j := planOf(t, ds, zonedNodes("ab"), dt.PodsByKind(ds, dt.Epoch.Add(-time.Hour), "new", "old"), daemon.RolloutPolicy{})
	zones := func(name string) (*time.Location, error) {
		if name == "UTC" {
			return time.UTC, nil
		}
		return nil, fmt.Errorf("unknown time zone %q", name)
	}
	g := &progressive.Gates{Windows: ws}
	// dt.Epoch is Sunday 2025-06-01 12:00 UTC: closed until Monday 08:00.
	monday := time.Date(2025, 6, 2, 8, 0, 0, 0, time.UTC)
	got, err := g.Hold(ds, plan, j, dt.Epoch, zones)
	if err != nil {
		t.Fatal(err)
	}
	want := progressive.Hold{Cause: progressive.HoldWindow, Until: monday, Next: monday}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Hold() on Sunday (-want +got):\n%s", diff)
	}
	if got, want := got.String(), "outside the maintenance windows until 2025-06-02T08:00:00Z"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	got, err = g.Hold(ds, plan, j, monday.Add(time.Hour), zones)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(progressive.Hold{Next: monday.Add(9 * time.Hour)}, got); diff != "" {
		t.Errorf("Hold() on Monday 09:00 (-want +got):\n%s", diff)
	}
	if _, err := g.Hold(ds, plan, j, dt.Epoch, nil); err == nil || !errors.Is(err, daemon.ErrInvalidInput) {
		t.Errorf("Hold() without zones: error %v, want an invalid-input error", err)
	}
}

func TestGatesHoldErrors(t *testing.T) {
	ds := dt.DaemonSet("agent")
	g := &progressive.Gates{Health: progressive.HealthGates{On: true}}
	if _, err := g.Hold(ds, nil, progressive.Judgement{}, dt.Epoch, nil); !errors.Is(err, daemon.ErrInvalidInput) {
		t.Errorf("nil plan: error %v, want ErrInvalidInput", err)
	}
	if _, err := g.Hold(ds, &daemon.Plan{}, progressive.Judgement{}, dt.Epoch, nil); !errors.Is(err, daemon.ErrInvalidInput) {
		t.Errorf("no standing: error %v, want ErrInvalidInput", err)
	}
	skipped := &daemon.Plan{Skip: daemon.SkipDeleting}
	if got, err := g.Hold(ds, skipped, progressive.Judgement{}, dt.Epoch, nil); err != nil || got.Held() {
		t.Errorf("skipped plan: %+v, %v; want not held", got, err)
	}
}

func TestHoldString(t *testing.T) {
	var many []progressive.PodSignal
	for i := 1; i <= 7; i++ {
		many = append(many, progressive.PodSignal{Pod: fmt.Sprintf("agent-%d", i), Node: fmt.Sprintf("n%d", i), Signal: progressive.SignalOOMKilled, Container: "agent", Detail: "1 restart"})
	}
	for _, c := range []struct {
		h    progressive.Hold
		want string
	}{
		{progressive.Hold{}, "not held"},
		{progressive.Hold{Cause: progressive.HoldHealthGate, Signals: many},
			"health gate failed: OOMKilled on pod agent-1 (node n1, container agent: 1 restart), OOMKilled on pod agent-2 (node n2, container agent: 1 restart), " +
				"OOMKilled on pod agent-3 (node n3, container agent: 1 restart), OOMKilled on pod agent-4 (node n4, container agent: 1 restart), " +
				"OOMKilled on pod agent-5 (node n5, container agent: 1 restart) and 2 more"},
		{progressive.Hold{Cause: progressive.HoldApproval, Wave: daemon.CanaryWave}, "waiting for approval after wave canary"},
		{progressive.Hold{Cause: progressive.HoldWindow}, "outside the maintenance windows"},
	} {
		if got := c.h.String(); got != c.want {
			t.Errorf("String() =\n %q\nwant\n %q", got, c.want)
		}
	}
}

// crashedAfterReady gives the pod one restart of container agent whose
// run started and finished at those offsets from dt.Epoch, running
// again, and its Ready condition False since readyFalse.
func crashedAfterReady(started, finished, readyFalse time.Duration) dt.PodOption {
	return func(p *corev1.Pod) {
		cs := container("agent", 1)
		cs.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Error", ExitCode: 1,
			StartedAt: metav1.Time{Time: dt.Epoch.Add(started)}, FinishedAt: metav1.Time{Time: dt.Epoch.Add(finished)}}}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{cs}
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, LastTransitionTime: metav1.Time{Time: dt.Epoch.Add(readyFalse)}}}
	}
}
