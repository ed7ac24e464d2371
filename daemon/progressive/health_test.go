package progressive_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// container returns the status of a running container name with restarts.
func container(name string, restarts int32) corev1.ContainerStatus {
	return corev1.ContainerStatus{Name: name, RestartCount: restarts, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}
}

// waiting makes cs wait for reason.
func waiting(cs corev1.ContainerStatus, reason string) corev1.ContainerStatus {
	cs.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason}}
	return cs
}

// lastTerminated gives cs a last termination for reason, finished at.
func lastTerminated(cs corev1.ContainerStatus, reason string, at time.Time) corev1.ContainerStatus {
	cs.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: reason, ExitCode: 1, FinishedAt: metav1.Time{Time: at}}}
	return cs
}

// withContainers sets the pod's container statuses.
func withContainers(cs ...corev1.ContainerStatus) dt.PodOption {
	return func(p *corev1.Pod) { p.Status.ContainerStatuses = cs }
}

// withInitContainers sets the pod's init container statuses.
func withInitContainers(cs ...corev1.ContainerStatus) dt.PodOption {
	return func(p *corev1.Pod) { p.Status.InitContainerStatuses = cs }
}

func TestHealthGatesCheck(t *testing.T) {
	ds := dt.DaemonSet("agent")
	now := dt.Epoch
	on := progressive.HealthGates{On: true, MaxRestarts: 3, ReadyTimeout: 10 * time.Minute}
	pod := func(opts ...dt.PodOption) *corev1.Pod { return dt.Pod(ds, "agent-x", "n1", opts...) }
	// created returns a pod created ago before now, not Ready.
	created := func(ago time.Duration, opts ...dt.PodOption) *corev1.Pod {
		return pod(append([]dt.PodOption{dt.CreatedAt(now.Add(-ago)), dt.NotReadyPod()}, opts...)...)
	}
	signal := func(s progressive.Signal, container, detail string) *progressive.PodSignal {
		return &progressive.PodSignal{Pod: "agent-x", Node: "n1", Signal: s, Container: container, Detail: detail}
	}
	tests := []struct {
		name  string
		gates progressive.HealthGates
		pod   *corev1.Pod
		want  *progressive.PodSignal
	}{
		{name: "a Ready pod without restarts", gates: on, pod: pod(withContainers(container("agent", 0)))},
		{name: "a Ready pod whose stale status says CrashLoopBackOff, no restarts", gates: on, pod: pod(withContainers(waiting(container("agent", 0), "CrashLoopBackOff")))},
		{name: "crash loop", gates: on, pod: created(time.Minute, withContainers(waiting(container("agent", 2), "CrashLoopBackOff"))),
			want: signal(progressive.SignalCrashLoop, "agent", "2 restarts")},
		{name: "crash loop of a Ready pod that restarted", gates: on, pod: pod(withContainers(waiting(container("agent", 1), "CrashLoopBackOff"))),
			want: signal(progressive.SignalCrashLoop, "agent", "1 restart")},
		{name: "OOMKilled", gates: on, pod: pod(withContainers(lastTerminated(container("agent", 1), "OOMKilled", now))),
			want: signal(progressive.SignalOOMKilled, "agent", "1 restart")},
		{name: "an error exit is no signal by itself", gates: on, pod: pod(withContainers(lastTerminated(container("agent", 1), "Error", now)))},
		{name: "image pull back-off", gates: on, pod: created(time.Minute, withContainers(waiting(container("agent", 0), "ImagePullBackOff"))),
			want: signal(progressive.SignalImagePull, "agent", "ImagePullBackOff")},
		{name: "image pull error", gates: on, pod: created(time.Minute, withContainers(waiting(container("agent", 0), "ErrImagePull"))),
			want: signal(progressive.SignalImagePull, "agent", "ErrImagePull")},
		{name: "config error", gates: on, pod: created(time.Minute, withContainers(waiting(container("agent", 0), "CreateContainerConfigError"))),
			want: signal(progressive.SignalCreateError, "agent", "CreateContainerConfigError")},
		{name: "create error", gates: on, pod: created(time.Minute, withContainers(waiting(container("agent", 0), "CreateContainerError"))),
			want: signal(progressive.SignalCreateError, "agent", "")},
		{name: "starting is no signal", gates: on, pod: created(time.Minute, withContainers(waiting(container("agent", 0), "ContainerCreating")))},
		{name: "restarts at the threshold", gates: on, pod: pod(withContainers(container("agent", 3)))},
		{name: "restarts past the threshold", gates: on, pod: pod(withContainers(container("agent", 4))),
			want: signal(progressive.SignalRestarts, "agent", "4 restarts, more than 3")},
		{name: "max restarts 0: one restart is a signal", gates: progressive.HealthGates{On: true}, pod: pod(withContainers(container("agent", 1))),
			want: signal(progressive.SignalRestarts, "agent", "1 restart, more than 0")},
		{name: "an init container's restarts", gates: on, pod: pod(withInitContainers(container("sidecar", 9)), withContainers(container("agent", 0))),
			want: signal(progressive.SignalRestarts, "sidecar", "9 restarts, more than 3")},
		// Signals in order: crash loop before restarts, whichever container.
		{name: "crash loop first, over containers", gates: on,
			pod:  created(time.Minute, withInitContainers(container("sidecar", 9)), withContainers(waiting(container("agent", 5), "CrashLoopBackOff"))),
			want: signal(progressive.SignalCrashLoop, "agent", "5 restarts")},
		{name: "OOMKilled before an image pull error", gates: on,
			pod:  created(time.Minute, withContainers(waiting(container("a", 0), "ErrImagePull"), lastTerminated(container("b", 1), "OOMKilled", now))),
			want: signal(progressive.SignalOOMKilled, "b", "1 restart")},
		{name: "not Ready within the timeout", gates: on, pod: created(9 * time.Minute)},
		{name: "not Ready at the timeout", gates: on, pod: created(10 * time.Minute),
			want: signal(progressive.SignalReadyTimeout, "", "not Ready within 10m0s")},
		{name: "not Ready again, since less than the timeout", gates: on,
			pod: created(time.Hour, func(p *corev1.Pod) {
				p.Status.Conditions[0].LastTransitionTime = metav1.Time{Time: now.Add(-time.Minute)}
			})},
		{name: "no creation time never times out", gates: on, pod: created(time.Hour, dt.CreatedAt(time.Time{}))},
		{name: "no ready timeout", gates: progressive.HealthGates{On: true, MaxRestarts: 3}, pod: created(time.Hour)},
		{name: "off", gates: progressive.HealthGates{}, pod: created(time.Hour, withContainers(waiting(container("agent", 7), "CrashLoopBackOff")))},
		{name: "nil pod", gates: on},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before *corev1.Pod
			if tt.pod != nil {
				before = tt.pod.DeepCopy()
			}
			s, failing := tt.gates.Check(tt.pod, now)
			var got *progressive.PodSignal
			if failing {
				got = &s
			} else if s != (progressive.PodSignal{}) {
				t.Errorf("not failing, but a signal %+v", s)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Check() (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tt.pod); diff != "" {
				t.Errorf("Check() modified the pod (-before +after):\n%s", diff)
			}
		})
	}
}

func TestWaitingSignal(t *testing.T) {
	for reason, want := range map[string]progressive.Signal{
		"CrashLoopBackOff": progressive.SignalCrashLoop, "ImagePullBackOff": progressive.SignalImagePull, "ErrImagePull": progressive.SignalImagePull,
		"ErrImageNeverPull": progressive.SignalImagePull, "InvalidImageName": progressive.SignalImagePull,
		"CreateContainerConfigError": progressive.SignalCreateError, "CreateContainerError": progressive.SignalCreateError,
		"RunContainerError": progressive.SignalCreateError, "PreCreateHookError": progressive.SignalCreateError, "PreStartHookError": progressive.SignalCreateError,
		"ContainerCreating": "", "PodInitializing": "", "": "",
	} {
		got, ok := progressive.WaitingSignal(reason)
		if got != want || ok != (want != "") {
			t.Errorf("WaitingSignal(%q) = %q, %v; want %q", reason, got, ok, want)
		}
	}
}

func TestPodSignalString(t *testing.T) {
	for _, c := range []struct {
		s    progressive.PodSignal
		want string
	}{
		{progressive.PodSignal{Pod: "agent-x", Node: "n1", Signal: progressive.SignalCrashLoop, Container: "agent", Detail: "5 restarts"},
			"CrashLoopBackOff on pod agent-x (node n1, container agent: 5 restarts)"},
		{progressive.PodSignal{Pod: "agent-x", Node: "n1", Signal: progressive.SignalReadyTimeout, Detail: "not Ready within 10m0s"},
			"ReadyTimeout on pod agent-x (node n1: not Ready within 10m0s)"},
		{progressive.PodSignal{Pod: "agent-x", Node: "n1", Signal: progressive.SignalCreateError, Container: "agent"},
			"CreateContainerError on pod agent-x (node n1, container agent)"},
	} {
		if got := c.s.String(); got != c.want {
			t.Errorf("String() = %q, want %q", got, c.want)
		}
	}
}
