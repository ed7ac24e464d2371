package progressive_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/rollout"
)

// fuzzReasons are the waiting and termination reasons the fuzz targets
// pick from: signals, near misses and reasons that are no signal.
var fuzzReasons = []string{
	"", "CrashLoopBackOff", "OOMKilled", "ImagePullBackOff", "ErrImagePull", "InvalidImageName", "CreateContainerConfigError",
	"RunContainerError", "ContainerCreating", "PodInitializing", "Error", "Completed", "crashloopbackoff",
}

// fuzzPod builds a pod with two containers from the fuzz inputs: ready or
// not, created and last changed minutes before now, each container's
// restarts, waiting reason and last termination reason (indexes into
// fuzzReasons) finished minutes before now.
func fuzzPod(ready bool, createdAgo, changedAgo uint16, restarts [2]int32, waitingIdx, lastIdx [2]uint8, finishedAgo uint16, now time.Time) *corev1.Pod {
	ds := dt.DaemonSet("agent")
	p := dt.Pod(ds, "agent-x", "n1", dt.CreatedAt(now.Add(-time.Duration(createdAgo)*time.Minute)))
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: status, LastTransitionTime: metav1.Time{Time: now.Add(-time.Duration(changedAgo) * time.Minute)}}}
	for i := range 2 {
		cs := corev1.ContainerStatus{Name: fmt.Sprintf("c%d", i), RestartCount: restarts[i]}
		if r := fuzzReasons[int(waitingIdx[i])%len(fuzzReasons)]; r != "" {
			cs.State.Waiting = &corev1.ContainerStateWaiting{Reason: r}
		} else {
			cs.State.Running = &corev1.ContainerStateRunning{}
		}
		if r := fuzzReasons[int(lastIdx[i])%len(fuzzReasons)]; r != "" {
			cs.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{Reason: r, FinishedAt: metav1.Time{Time: now.Add(-time.Duration(finishedAgo) * time.Minute)}}
		}
		if i == 0 {
			p.Status.InitContainerStatuses = append(p.Status.InitContainerStatuses, cs)
		} else {
			p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, cs)
		}
	}
	return p
}

// FuzzHealthCheck checks HealthGates.Check on pods built from the inputs:
// it never panics and never modifies the pod; the same input gives the
// same answer; a Ready pod whose containers never restarted never
// signals, nor does any pod with the gates off; a signal names the pod,
// its node and one of the signals Check looks for, and no signal is the
// zero PodSignal.
func FuzzHealthCheck(f *testing.F) {
	f.Add(true, uint16(60), uint16(60), int32(0), int32(0), uint8(0), uint8(0), uint8(0), uint8(0), uint16(0), true, int32(3), uint16(10))
	f.Add(false, uint16(5), uint16(5), int32(0), int32(7), uint8(0), uint8(1), uint8(0), uint8(2), uint16(3), true, int32(3), uint16(10))
	f.Add(true, uint16(60), uint16(1), int32(1), int32(0), uint8(0), uint8(0), uint8(2), uint8(0), uint16(1), true, int32(0), uint16(0))
	f.Add(false, uint16(600), uint16(600), int32(0), int32(0), uint8(3), uint8(9), uint8(0), uint8(0), uint16(0), true, int32(3), uint16(10))
	f.Fuzz(func(t *testing.T, ready bool, createdAgo, changedAgo uint16, r0, r1 int32, w0, w1, l0, l1 uint8, finishedAgo uint16, on bool, maxRestarts int32, timeoutMin uint16) {
		now := dt.Epoch
		pod := fuzzPod(ready, createdAgo, changedAgo, [2]int32{r0, r1}, [2]uint8{w0, w1}, [2]uint8{l0, l1}, finishedAgo, now)
		before := pod.DeepCopy()
		g := progressive.HealthGates{On: on, MaxRestarts: maxRestarts, ReadyTimeout: time.Duration(timeoutMin) * time.Minute}
		s, failing := g.Check(pod, now)
		if diff := cmp.Diff(before, pod); diff != "" {
			t.Fatalf("Check modified the pod (-before +after):\n%s", diff)
		}
		s2, failing2 := g.Check(pod, now)
		if s != s2 || failing != failing2 {
			t.Fatalf("Check is not deterministic: %+v %v, then %+v %v", s, failing, s2, failing2)
		}
		if !failing {
			if s != (progressive.PodSignal{}) {
				t.Fatalf("no signal, but %+v", s)
			}
			return
		}
		if !on {
			t.Fatalf("gates off, signal %+v", s)
		}
		if ready && r0 == 0 && r1 == 0 {
			t.Fatalf("a Ready pod that never restarted signals %+v", s)
		}
		known := []progressive.Signal{progressive.SignalCrashLoop, progressive.SignalOOMKilled, progressive.SignalImagePull,
			progressive.SignalCreateError, progressive.SignalRestarts, progressive.SignalReadyTimeout}
		if s.Pod != pod.Name || s.Node != pod.Spec.NodeName || !slices.Contains(known, s.Signal) {
			t.Fatalf("signal %+v does not name the pod, its node and a signal", s)
		}
		if (s.Signal == progressive.SignalReadyTimeout) != (s.Container == "") {
			t.Fatalf("signal %+v: only the ready timeout is the pod's", s)
		}
	})
}

// FuzzHold checks Gates.Hold on clusters built from the inputs (up to 8
// nodes in zones a-c, each with an old or new pod, ready or not,
// restarting, crash-looping or not; waves by zone, gates from the
// inputs): it never fails on a valid plan; Held iff Cause is not
// HoldNone; Signals (sorted by node, then pod) iff a health gate holds,
// Wave iff approval, Until only outside a window; a complete rollout is
// never held; and the same cluster given in reverse node and pod order
// gives the same Hold.
func FuzzHold(f *testing.F) {
	f.Add([]byte{0x01, 0x12, 0x23, 0x04, 0x15}, uint8(0), uint8(3), false, uint16(10))
	f.Add([]byte{0x04, 0x05, 0x06, 0x04, 0x15, 0x4c}, uint8(1), uint8(1), false, uint16(13))
	f.Add([]byte{0x04, 0x01, 0x04, 0x01}, uint8(2), uint8(2), true, uint16(0))
	f.Add([]byte{0x11, 0x11, 0x30, 0x30, 0x22}, uint8(1), uint8(1), true, uint16(0))
	f.Add([]byte{0x51, 0x41, 0x70, 0x60, 0x02, 0x12}, uint8(2), uint8(0), false, uint16(5))
	f.Fuzz(func(t *testing.T, cluster []byte, points, maxRestarts uint8, approved bool, bakeMin uint16) {
		if len(cluster) == 0 || len(cluster) > 8 {
			return
		}
		ds := dt.DaemonSet("agent", dt.WithMaxUnavailable("100%"))
		now := dt.Epoch
		var nodes []*corev1.Node
		var pods []*corev1.Pod
		for i, b := range cluster {
			name := fmt.Sprintf("n%d", i+1)
			nodes = append(nodes, dt.Node(name, dt.WithLabel(zone, string(rune('a'+int(b&0x3)%3)))))
			// Bits: 2 new, 3 not ready, 4-5 restarts, 6 crash loop.
			opts := []dt.PodOption{dt.ReadySince(now.Add(-time.Duration(b>>4) * time.Minute))}
			if b&0x4 == 0 {
				opts = append(opts, dt.WithHash("v1"))
			}
			if b&0x8 != 0 {
				opts = append(opts, dt.NotReadyPod())
			}
			cs := container("agent", int32(b>>4&0x3))
			if cs.RestartCount > 0 {
				cs = lastTerminated(cs, "Error", now.Add(-time.Duration(b&0xf)*time.Minute))
			}
			if b&0x40 != 0 {
				cs = waiting(cs, "CrashLoopBackOff")
			}
			opts = append(opts, withContainers(cs))
			pods = append(pods, dt.Pod(ds, "agent-"+name, name, opts...))
		}
		pol := daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: zone}, Waves: &rollout.WaveBarrier{Bake: time.Duration(bakeMin%30) * time.Minute}}
		g := &progressive.Gates{
			Health:     progressive.HealthGates{On: maxRestarts%4 != 0, MaxRestarts: int32(maxRestarts % 4), ReadyTimeout: time.Duration(bakeMin%20) * time.Minute},
			PauseAfter: [][]string{nil, {"every-wave"}, {"a"}, {"b", "a"}}[points%4],
		}
		hold := func(nodes []*corev1.Node, pods []*corev1.Pod) (progressive.Hold, progressive.Judgement) {
			plan, err := daemon.Compute(ds, nodes, pods, daemon.Options{Now: now, Rollout: pol, ReportStanding: true})
			if err != nil {
				t.Skip(err)
			}
			j, err := progressive.Judge(ds, &plan)
			if err != nil {
				t.Fatal(err)
			}
			if approved && len(j.Waves) > 0 {
				g.Approved = &progressive.Approval{Hash: plan.Hash, Wave: j.Waves[0].Wave}
			}
			h, err := g.Hold(ds, &plan, j, now, nil)
			if err != nil {
				t.Fatalf("Hold: %v", err)
			}
			return h, j
		}
		got, j := hold(nodes, pods)
		if got.Held() != (got.Cause != progressive.HoldNone) {
			t.Fatalf("Held() = %v, cause %q", got.Held(), got.Cause)
		}
		if (got.Cause == progressive.HoldHealthGate) != (len(got.Signals) > 0) || (got.Cause == progressive.HoldApproval) != (got.Wave != "") ||
			(got.Cause != progressive.HoldWindow && !got.Until.IsZero()) || (got.Cause == progressive.HoldUnresolved) != (len(got.Unresolved) > 0) {
			t.Fatalf("hold %+v: fields do not match the cause", got)
		}
		// An unresolved reference holds a complete rollout too (its next
		// revision); nothing else does.
		if j.Complete && got.Held() && got.Cause != progressive.HoldUnresolved {
			t.Fatalf("a complete rollout is held: %+v", got)
		}
		if !slices.IsSortedFunc(got.Signals, func(a, b progressive.PodSignal) int {
			if c := strings.Compare(a.Node, b.Node); c != 0 {
				return c
			}
			return strings.Compare(a.Pod, b.Pod)
		}) {
			t.Fatalf("signals not sorted: %+v", got.Signals)
		}
		if !got.Next.IsZero() && !got.Next.After(now) {
			t.Fatalf("Next %v is not after now %v", got.Next, now)
		}
		slices.Reverse(nodes)
		slices.Reverse(pods)
		g.Approved = nil
		again, _ := hold(nodes, pods)
		if diff := cmp.Diff(got, again); diff != "" {
			t.Fatalf("reversed input gives another Hold (-first +reversed):\n%s", diff)
		}
	})
}
