package tolerations_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/tolerations"
)

// TestEffectSetHas checks every set against every effect: the algebra is
// small enough to enumerate.
func TestEffectSetHas(t *testing.T) {
	effects := []corev1.TaintEffect{
		corev1.TaintEffectNoSchedule,
		corev1.TaintEffectPreferNoSchedule,
		corev1.TaintEffectNoExecute,
	}
	bits := []tolerations.EffectSet{tolerations.NoSchedule, tolerations.PreferNoSchedule, tolerations.NoExecute}
	for s := tolerations.EffectSet(0); s < 1<<len(bits); s++ {
		for i, e := range effects {
			want := s&bits[i] != 0
			if got := s.Has(e); got != want {
				t.Errorf("EffectSet(%s).Has(%q) = %v, want %v", s, e, got, want)
			}
		}
		for _, e := range []corev1.TaintEffect{"", "Bogus", "noschedule", "NoExecute "} {
			if s.Has(e) {
				t.Errorf("EffectSet(%s).Has(%q) = true, want false for an unknown effect", s, e)
			}
		}
	}
	if all := ^tolerations.EffectSet(0); all.Has("Bogus") {
		t.Errorf("a set with every bit Has(%q) = true, want false", "Bogus")
	}
}

func TestEffectSetString(t *testing.T) {
	tests := []struct {
		name string
		set  tolerations.EffectSet
		want string
	}{
		{name: "the empty set", set: 0, want: "none"},
		{name: "one effect", set: tolerations.NoExecute, want: "NoExecute"},
		{name: "the scheduling effects", set: tolerations.NoSchedule | tolerations.NoExecute, want: "NoSchedule|NoExecute"},
		{name: "every effect", set: tolerations.NoSchedule | tolerations.PreferNoSchedule | tolerations.NoExecute, want: "NoSchedule|PreferNoSchedule|NoExecute"},
		{name: "unknown bits are ignored", set: 0xF8 | tolerations.PreferNoSchedule, want: "PreferNoSchedule"},
		{name: "only unknown bits", set: 0x80, want: "none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.set.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

const scheduling = tolerations.NoSchedule | tolerations.NoExecute

var (
	dedicated    = taint("example.com/dedicated", "infra", corev1.TaintEffectNoSchedule)
	gpuPrefer    = taint("gpu", "true", corev1.TaintEffectPreferNoSchedule)
	notReadyExec = taint(corev1.TaintNodeNotReady, "", corev1.TaintEffectNoExecute)
	cordoned     = taint(corev1.TaintNodeUnschedulable, "", corev1.TaintEffectNoSchedule)
	gpu10        = taint("gpu", "10", corev1.TaintEffectNoSchedule)
	gpuABC       = taint("gpu", "abc", corev1.TaintEffectNoSchedule)
)

// findCases seed FuzzFindUntoleratedTaint too.
var findCases = []struct {
	name    string
	taints  []corev1.Taint
	tols    []corev1.Toleration
	effects tolerations.EffectSet
	enable  bool
	want    corev1.Taint
	wantOK  bool
}{
	{
		name:    "no taints means nothing is untolerated",
		tols:    []corev1.Toleration{user1},
		effects: scheduling,
	},
	{
		name:    "no tolerations leave the first taint in the set untolerated",
		taints:  []corev1.Taint{dedicated, cordoned},
		effects: scheduling,
		want:    dedicated,
		wantOK:  true,
	},
	{
		name:   "an empty effect set looks at no taint",
		taints: []corev1.Taint{dedicated, cordoned},
	},
	{
		name:    "taints outside the set are skipped",
		taints:  []corev1.Taint{gpuPrefer, cordoned},
		effects: scheduling,
		want:    cordoned,
		wantOK:  true,
	},
	{
		name:    "PreferNoSchedule counts when it is in the set",
		taints:  []corev1.Taint{gpuPrefer, cordoned},
		effects: scheduling | tolerations.PreferNoSchedule,
		want:    gpuPrefer,
		wantOK:  true,
	},
	{
		name:    "a taint with an unknown effect is never in the set",
		taints:  []corev1.Taint{taint("gpu", "true", "Bogus")},
		effects: ^tolerations.EffectSet(0),
	},
	{
		name:    "the first untolerated taint in slice order wins",
		taints:  []corev1.Taint{notReadyExec, dedicated, cordoned, gpu10},
		tols:    tolerations.DaemonTolerations(false),
		effects: scheduling,
		want:    dedicated,
		wantOK:  true,
	},
	{
		name:    "the daemon defaults and a user toleration cover every taint",
		taints:  []corev1.Taint{notReadyExec, dedicated, cordoned},
		tols:    defaultsPlus(false, user1),
		effects: scheduling,
	},
	{
		name:    "an Equal toleration needs the same value",
		taints:  []corev1.Taint{taint("example.com/dedicated", "true", corev1.TaintEffectNoSchedule)},
		tols:    []corev1.Toleration{user1},
		effects: scheduling,
		want:    taint("example.com/dedicated", "true", corev1.TaintEffectNoSchedule),
		wantOK:  true,
	},
	{
		name:    "an empty operator means Equal",
		taints:  []corev1.Taint{dedicated},
		tols:    []corev1.Toleration{tol("example.com/dedicated", "", "infra", corev1.TaintEffectNoSchedule)},
		effects: scheduling,
	},
	{
		name:    "a toleration without effect tolerates every effect",
		taints:  []corev1.Taint{gpu10, taint("gpu", "1", corev1.TaintEffectNoExecute)},
		tols:    []corev1.Toleration{user2},
		effects: scheduling,
	},
	{
		name:    "an empty key with Exists tolerates every taint",
		taints:  []corev1.Taint{dedicated, notReadyExec, gpuABC},
		tols:    []corev1.Toleration{tol("", corev1.TolerationOpExists, "", "")},
		effects: scheduling,
	},
	{
		name:    "an unknown operator tolerates nothing",
		taints:  []corev1.Taint{gpu10},
		tols:    []corev1.Toleration{tol("gpu", "exists", "", "")},
		effects: scheduling,
		want:    gpu10,
		wantOK:  true,
	},
	{
		name:    "Gt tolerates nothing while comparison operators are off",
		taints:  []corev1.Taint{gpu10},
		tols:    []corev1.Toleration{tol("gpu", corev1.TolerationOpGt, "1", corev1.TaintEffectNoSchedule)},
		effects: scheduling,
		want:    gpu10,
		wantOK:  true,
	},
	{
		name:    "Gt tolerates a larger taint value when comparison operators are on",
		taints:  []corev1.Taint{gpu10},
		tols:    []corev1.Toleration{tol("gpu", corev1.TolerationOpGt, "1", corev1.TaintEffectNoSchedule)},
		effects: scheduling,
		enable:  true,
	},
	{
		name:    "Gt is strict: an equal taint value is untolerated",
		taints:  []corev1.Taint{gpu10},
		tols:    []corev1.Toleration{tol("gpu", corev1.TolerationOpGt, "10", corev1.TaintEffectNoSchedule)},
		effects: scheduling,
		enable:  true,
		want:    gpu10,
		wantOK:  true,
	},
	{
		name:    "Lt tolerates a smaller taint value when comparison operators are on",
		taints:  []corev1.Taint{taint("gpu", "-3", corev1.TaintEffectNoSchedule)},
		tols:    []corev1.Toleration{tol("gpu", corev1.TolerationOpLt, "1", "")},
		effects: scheduling,
		enable:  true,
	},
	{
		name:    "Gt never tolerates a taint value that is not an integer",
		taints:  []corev1.Taint{gpuABC},
		tols:    []corev1.Toleration{tol("gpu", corev1.TolerationOpGt, "1", "")},
		effects: scheduling,
		enable:  true,
		want:    gpuABC,
		wantOK:  true,
	},
	{
		name:    "Lt never tolerates with a leading-zero toleration value",
		taints:  []corev1.Taint{taint("gpu", "1", corev1.TaintEffectNoSchedule)},
		tols:    []corev1.Toleration{tol("gpu", corev1.TolerationOpLt, "007", "")},
		effects: scheduling,
		enable:  true,
		want:    taint("gpu", "1", corev1.TaintEffectNoSchedule),
		wantOK:  true,
	},
}

func TestFindUntoleratedTaint(t *testing.T) {
	for _, tt := range findCases {
		t.Run(tt.name, func(t *testing.T) {
			got, gotOK := tolerations.FindUntoleratedTaint(tt.taints, tt.tols, tt.effects, tt.enable)
			if gotOK != tt.wantOK {
				t.Errorf("FindUntoleratedTaint() ok = %v, want %v", gotOK, tt.wantOK)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("FindUntoleratedTaint() taint mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFindUntoleratedTaintDoesNotModifyInput(t *testing.T) {
	for _, tt := range findCases {
		t.Run(tt.name, func(t *testing.T) {
			taints := make([]corev1.Taint, len(tt.taints))
			for i := range tt.taints {
				tt.taints[i].DeepCopyInto(&taints[i])
			}
			tols := cloneTolerations(tt.tols)
			tolerations.FindUntoleratedTaint(taints, tols, tt.effects, tt.enable)
			if diff := cmp.Diff(tt.taints, taints, cmpEmpty); diff != "" {
				t.Errorf("taints modified (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.tols, tols); diff != "" {
				t.Errorf("tolerations modified (-want +got):\n%s", diff)
			}
		})
	}
}

// cmpEmpty treats nil and empty slices alike where the test copies a nil
// slice into an empty one.
var cmpEmpty = cmp.FilterValues(func(a, b []corev1.Taint) bool { return len(a) == 0 && len(b) == 0 }, cmp.Ignore())

// TestFindUntoleratedTaintAllocs locks the zero-allocation promise on the
// fixture of a node with two taints and a daemon pod with three user
// tolerations plus the seven defaults.
func TestFindUntoleratedTaintAllocs(t *testing.T) {
	tols := tolerations.WithDaemonTolerations([]corev1.Toleration{
		user1,
		user2,
		tol("example.com/zone", corev1.TolerationOpGt, "3", corev1.TaintEffectNoSchedule),
	}, true)
	if len(tols) != 10 {
		t.Fatalf("fixture has %d tolerations, want 10", len(tols))
	}
	fixtures := []struct {
		name   string
		taints []corev1.Taint
	}{
		{name: "every taint tolerated", taints: []corev1.Taint{dedicated, notReadyExec}},
		{name: "one taint untolerated", taints: []corev1.Taint{taint("example.com/maintenance", "", corev1.TaintEffectNoExecute), cordoned}},
		{name: "numeric comparison", taints: []corev1.Taint{taint("example.com/zone", "7", corev1.TaintEffectNoSchedule), taint("example.com/zone", "2", corev1.TaintEffectNoSchedule)}},
	}
	for _, fx := range fixtures {
		for _, enable := range []bool{false, true} {
			allocs := testing.AllocsPerRun(100, func() {
				tolerations.FindUntoleratedTaint(fx.taints, tols, scheduling, enable)
			})
			// Budget: zero.
			if allocs != 0 {
				t.Errorf("%s, comparison operators %v: FindUntoleratedTaint allocates %v times per call, want 0", fx.name, enable, allocs)
			}
			user := tols[:3]
			allocs = testing.AllocsPerRun(100, func() {
				tolerations.FindUntoleratedDaemonTaint(fx.taints, user, true, scheduling, enable)
			})
			if allocs != 0 {
				t.Errorf("%s, comparison operators %v: FindUntoleratedDaemonTaint allocates %v times per call, want 0", fx.name, enable, allocs)
			}
		}
	}
}
