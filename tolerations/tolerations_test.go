package tolerations_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/tolerations"
)

// The default tolerations, spelled out once so that the tables read as data.
var (
	notReady           = tol(corev1.TaintNodeNotReady, corev1.TolerationOpExists, "", corev1.TaintEffectNoExecute)
	unreachable        = tol(corev1.TaintNodeUnreachable, corev1.TolerationOpExists, "", corev1.TaintEffectNoExecute)
	diskPressure       = tol(corev1.TaintNodeDiskPressure, corev1.TolerationOpExists, "", corev1.TaintEffectNoSchedule)
	memoryPressure     = tol(corev1.TaintNodeMemoryPressure, corev1.TolerationOpExists, "", corev1.TaintEffectNoSchedule)
	pidPressure        = tol(corev1.TaintNodePIDPressure, corev1.TolerationOpExists, "", corev1.TaintEffectNoSchedule)
	unschedulable      = tol(corev1.TaintNodeUnschedulable, corev1.TolerationOpExists, "", corev1.TaintEffectNoSchedule)
	networkUnavailable = tol(corev1.TaintNodeNetworkUnavailable, corev1.TolerationOpExists, "", corev1.TaintEffectNoSchedule)

	user1 = tol("example.com/dedicated", corev1.TolerationOpEqual, "infra", corev1.TaintEffectNoSchedule)
	user2 = tol("gpu", corev1.TolerationOpExists, "", "")
)

// defaultsPlus returns tols followed by the defaults for hostNetwork.
func defaultsPlus(hostNetwork bool, tols ...corev1.Toleration) []corev1.Toleration {
	out := append([]corev1.Toleration(nil), tols...)
	out = append(out, notReady, unreachable, diskPressure, memoryPressure, pidPressure, unschedulable)
	if hostNetwork {
		out = append(out, networkUnavailable)
	}
	return out
}

func TestDaemonTolerations(t *testing.T) {
	tests := []struct {
		name        string
		hostNetwork bool
		want        []corev1.Toleration
	}{
		{
			name: "a pod network pod gets six defaults in upstream order",
			want: []corev1.Toleration{notReady, unreachable, diskPressure, memoryPressure, pidPressure, unschedulable},
		},
		{
			name:        "a host network pod also tolerates network-unavailable, last",
			hostNetwork: true,
			want:        []corev1.Toleration{notReady, unreachable, diskPressure, memoryPressure, pidPressure, unschedulable, networkUnavailable},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tolerations.DaemonTolerations(tt.hostNetwork)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("DaemonTolerations(%v) mismatch (-want +got):\n%s", tt.hostNetwork, diff)
			}
		})
	}
}

func TestDaemonTolerationsReturnsFreshSlices(t *testing.T) {
	a := tolerations.DaemonTolerations(true)
	a[0].Key = "changed"
	a[1].TolerationSeconds = int64Ptr(1)
	b := tolerations.DaemonTolerations(true)
	if diff := cmp.Diff(defaultsPlus(true), b); diff != "" {
		t.Errorf("DaemonTolerations(true) after editing an earlier result mismatch (-want +got):\n%s", diff)
	}
}

// mergeCases are shared by the tests of AddOrUpdateDaemonPodTolerations and
// WithDaemonTolerations and seed FuzzMerge.
var mergeCases = []struct {
	name        string
	tols        []corev1.Toleration
	hostNetwork bool
	want        []corev1.Toleration
	wantChanged bool
}{
	{
		name:        "nil tolerations get every default",
		want:        defaultsPlus(false),
		wantChanged: true,
	},
	{
		name:        "empty non-nil tolerations get every default",
		tols:        []corev1.Toleration{},
		want:        defaultsPlus(false),
		wantChanged: true,
	},
	{
		name:        "host network adds network-unavailable after the others",
		hostNetwork: true,
		want:        defaultsPlus(true),
		wantChanged: true,
	},
	{
		name:        "user tolerations keep their order ahead of the appended defaults",
		tols:        []corev1.Toleration{user1, user2},
		want:        defaultsPlus(false, user1, user2),
		wantChanged: true,
	},
	{
		name:        "a complete list in upstream order is unchanged",
		tols:        defaultsPlus(false, user1),
		want:        defaultsPlus(false, user1),
		wantChanged: false,
	},
	{
		name: "a complete list in another order is unchanged",
		tols: []corev1.Toleration{unschedulable, user1, pidPressure, memoryPressure, diskPressure, user2, unreachable, notReady},
		want: []corev1.Toleration{unschedulable, user1, pidPressure, memoryPressure, diskPressure, user2, unreachable, notReady},
	},
	{
		name: "a default with tolerationSeconds is replaced in place, dropping the seconds",
		tols: []corev1.Toleration{user1, withSeconds(notReady, 300), user2},
		want: []corev1.Toleration{user1, notReady, user2, unreachable, diskPressure, memoryPressure, pidPressure, unschedulable},
		// Upstream drops the seconds even though the pod then never gets
		// evicted for a not-ready node.
		wantChanged: true,
	},
	{
		name:        "zero tolerationSeconds is a value too and is dropped",
		tols:        defaultsWithSeconds(false, 0),
		want:        defaultsPlus(false),
		wantChanged: true,
	},
	{
		name:        "a complete list whose only difference is tolerationSeconds 0 changes",
		tols:        append(defaultsPlus(false)[:5:5], withSeconds(unschedulable, 0)),
		want:        defaultsPlus(false),
		wantChanged: true,
	},
	{
		name: "duplicated matches stay duplicated",
		tols: []corev1.Toleration{notReady, withSeconds(notReady, 300), notReady},
		want: []corev1.Toleration{notReady, notReady, notReady, unreachable, diskPressure, memoryPressure, pidPressure, unschedulable},
		// The second copy had seconds: that is the change.
		wantChanged: true,
	},
	{
		name: "an empty operator is not Exists, so the default is appended",
		tols: []corev1.Toleration{tol(corev1.TaintNodeNotReady, "", "", corev1.TaintEffectNoExecute)},
		want: defaultsPlus(false, tol(corev1.TaintNodeNotReady, "", "", corev1.TaintEffectNoExecute)),
		// Equal with an empty value tolerates the same taints, but upstream
		// compares the operator as a string.
		wantChanged: true,
	},
	{
		name:        "the same key with another effect is a user toleration",
		tols:        []corev1.Toleration{tol(corev1.TaintNodeNotReady, corev1.TolerationOpExists, "", corev1.TaintEffectNoSchedule)},
		want:        defaultsPlus(false, tol(corev1.TaintNodeNotReady, corev1.TolerationOpExists, "", corev1.TaintEffectNoSchedule)),
		wantChanged: true,
	},
	{
		name:        "the same key and effect with a value is a user toleration",
		tols:        []corev1.Toleration{tol(corev1.TaintNodeUnreachable, corev1.TolerationOpExists, "true", corev1.TaintEffectNoExecute)},
		want:        defaultsPlus(false, tol(corev1.TaintNodeUnreachable, corev1.TolerationOpExists, "true", corev1.TaintEffectNoExecute)),
		wantChanged: true,
	},
	{
		name:        "a wildcard toleration does not stand in for the defaults",
		tols:        []corev1.Toleration{tol("", corev1.TolerationOpExists, "", "")},
		want:        defaultsPlus(false, tol("", corev1.TolerationOpExists, "", "")),
		wantChanged: true,
	},
	{
		name:        "network-unavailable is a user toleration without host network",
		tols:        defaultsPlus(true),
		want:        defaultsPlus(true),
		wantChanged: false,
	},
	{
		name:        "network-unavailable with seconds is kept as is without host network",
		tols:        append(defaultsPlus(false), withSeconds(networkUnavailable, 300)),
		want:        append(defaultsPlus(false), withSeconds(networkUnavailable, 300)),
		wantChanged: false,
	},
	{
		name:        "host network appends network-unavailable to an otherwise complete list",
		tols:        defaultsPlus(false, user1),
		hostNetwork: true,
		want:        defaultsPlus(true, user1),
		wantChanged: true,
	},
	{
		name:        "host network replaces network-unavailable with seconds in place",
		tols:        []corev1.Toleration{withSeconds(networkUnavailable, 0), user2},
		hostNetwork: true,
		want:        []corev1.Toleration{networkUnavailable, user2, notReady, unreachable, diskPressure, memoryPressure, pidPressure, unschedulable},
		wantChanged: true,
	},
	{
		name:        "user tolerationSeconds are kept",
		tols:        []corev1.Toleration{withSeconds(user1, 300)},
		want:        defaultsPlus(false, withSeconds(user1, 300)),
		wantChanged: true,
	},
}

// defaultsWithSeconds returns the defaults for hostNetwork, each with
// tolerationSeconds s.
func defaultsWithSeconds(hostNetwork bool, s int64) []corev1.Toleration {
	out := defaultsPlus(hostNetwork)
	for i := range out {
		out[i] = withSeconds(out[i], s)
	}
	return out
}

func TestAddOrUpdateDaemonPodTolerations(t *testing.T) {
	for _, tt := range mergeCases {
		t.Run(tt.name, func(t *testing.T) {
			spec := &corev1.PodSpec{Tolerations: cloneTolerations(tt.tols), HostNetwork: tt.hostNetwork}
			old := spec.Tolerations
			gotChanged := tolerations.AddOrUpdateDaemonPodTolerations(spec)
			if gotChanged != tt.wantChanged {
				t.Errorf("AddOrUpdateDaemonPodTolerations() = %v, want %v", gotChanged, tt.wantChanged)
			}
			if diff := cmp.Diff(tt.want, spec.Tolerations); diff != "" {
				t.Errorf("spec.Tolerations mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.tols, old); diff != "" {
				t.Errorf("old tolerations slice was written (-want +got):\n%s", diff)
			}
			if gotChanged {
				if sharesMemory(old, spec.Tolerations) {
					t.Errorf("spec.Tolerations shares memory with the old slice")
				}
			} else if !sameHeader(old, spec.Tolerations) {
				t.Errorf("unchanged spec.Tolerations got a new slice header")
			}
			// A second application is a no-op.
			again := spec.Tolerations
			if tolerations.AddOrUpdateDaemonPodTolerations(spec) {
				t.Errorf("second AddOrUpdateDaemonPodTolerations() = true, want false")
			}
			if !sameHeader(again, spec.Tolerations) {
				t.Errorf("second AddOrUpdateDaemonPodTolerations() replaced the slice header")
			}
		})
	}
}

func TestAddOrUpdateDaemonPodTolerationsNilSpec(t *testing.T) {
	if tolerations.AddOrUpdateDaemonPodTolerations(nil) {
		t.Errorf("AddOrUpdateDaemonPodTolerations(nil) = true, want false")
	}
}

func TestAddOrUpdateDaemonPodTolerationsOnlyTouchesTolerations(t *testing.T) {
	spec := &corev1.PodSpec{
		NodeName:     "node-1",
		HostNetwork:  true,
		NodeSelector: map[string]string{"role": "infra"},
		Tolerations:  []corev1.Toleration{user1},
		Containers:   []corev1.Container{{Name: "agent", Image: "agent:1"}},
	}
	want := spec.DeepCopy()
	want.Tolerations = defaultsPlus(true, user1)
	tolerations.AddOrUpdateDaemonPodTolerations(spec)
	if diff := cmp.Diff(want, spec); diff != "" {
		t.Errorf("spec mismatch (-want +got):\n%s", diff)
	}
}

// TestAddOrUpdateDaemonPodTolerationsSpareCapacity checks that a slice with
// room to grow is not appended to in place: another holder of the same
// backing array would see the write.
func TestAddOrUpdateDaemonPodTolerationsSpareCapacity(t *testing.T) {
	backing := make([]corev1.Toleration, 20)
	for i := range backing {
		backing[i] = user2
	}
	spec := &corev1.PodSpec{Tolerations: backing[:1:20]}
	tolerations.AddOrUpdateDaemonPodTolerations(spec)
	for i := range backing {
		if diff := cmp.Diff(user2, backing[i]); diff != "" {
			t.Fatalf("backing[%d] was written (-want +got):\n%s", i, diff)
		}
	}
}

func TestWithDaemonTolerations(t *testing.T) {
	for _, tt := range mergeCases {
		t.Run(tt.name, func(t *testing.T) {
			in := cloneTolerations(tt.tols)
			got := tolerations.WithDaemonTolerations(in, tt.hostNetwork)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("WithDaemonTolerations() mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.tols, in); diff != "" {
				t.Errorf("WithDaemonTolerations() modified its input (-want +got):\n%s", diff)
			}
			if got == nil {
				t.Errorf("WithDaemonTolerations() = nil")
			}
			if sharesMemory(in, got) {
				t.Errorf("WithDaemonTolerations() result shares memory with its input")
			}
		})
	}
}

func cloneTolerations(tols []corev1.Toleration) []corev1.Toleration {
	if tols == nil {
		return nil
	}
	out := make([]corev1.Toleration, len(tols))
	for i := range tols {
		tols[i].DeepCopyInto(&out[i])
	}
	return out
}

// sameHeader reports whether a and b are the same slice header.
func sameHeader(a, b []corev1.Toleration) bool {
	if len(a) != len(b) || cap(a) != cap(b) {
		return false
	}
	return cap(a) == 0 || &a[:cap(a)][0] == &b[:cap(b)][0]
}

// sharesMemory reports whether a and b share a backing array or a
// tolerationSeconds pointer.
func sharesMemory(a, b []corev1.Toleration) bool {
	for i := range a[:cap(a)] {
		for j := range b[:cap(b)] {
			if &a[:cap(a)][i] == &b[:cap(b)][j] {
				return true
			}
		}
	}
	for i := range a {
		for j := range b {
			if a[i].TolerationSeconds != nil && a[i].TolerationSeconds == b[j].TolerationSeconds {
				return true
			}
		}
	}
	return false
}
