package tolerations_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	schedcorev1 "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"

	"github.com/daemonplan/daemonplan/tolerations"
)

// naiveMerge is the reference for the merge: a literal reading of upstream,
// which applies one default at a time and rebuilds the whole list on every
// pass, replacing each match and appending the default when nothing matched.
func naiveMerge(tols []corev1.Toleration, hostNetwork bool) []corev1.Toleration {
	cur := cloneTolerations(tols)
	for _, d := range tolerations.DaemonTolerations(hostNetwork) {
		var next []corev1.Toleration
		matched := false
		for _, t := range cur {
			if d.Key == t.Key && d.Operator == t.Operator && d.Value == t.Value && d.Effect == t.Effect {
				next = append(next, d)
				matched = true
				continue
			}
			next = append(next, t)
		}
		if !matched {
			next = append(next, d)
		}
		cur = next
	}
	return cur
}

// isDefault reports whether t matches one of defs by key, operator, value
// and effect.
func isDefault(defs []corev1.Toleration, t corev1.Toleration) bool {
	for i := range defs {
		if defs[i].MatchToleration(&t) {
			return true
		}
	}
	return false
}

func FuzzMerge(f *testing.F) {
	for _, tt := range mergeCases {
		f.Add(encodeTolerations(f, tt.tols), tt.hostNetwork)
	}
	f.Fuzz(func(t *testing.T, data []byte, hostNetwork bool) {
		tols := decodeTolerations(data)
		before := cloneTolerations(tols)

		got := tolerations.WithDaemonTolerations(tols, hostNetwork)
		if diff := cmp.Diff(before, tols); diff != "" {
			t.Fatalf("WithDaemonTolerations modified its input (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(naiveMerge(tols, hostNetwork), got); diff != "" {
			t.Fatalf("WithDaemonTolerations disagrees with the naive merge (-naive +got):\n%s", diff)
		}
		if sharesMemory(tols, got) {
			t.Fatalf("WithDaemonTolerations result shares memory with its input")
		}

		defs := tolerations.DaemonTolerations(hostNetwork)
		for _, d := range defs {
			found := false
			for _, g := range got {
				found = found || cmp.Equal(d, g)
			}
			if !found {
				t.Fatalf("result lacks default %v", d)
			}
		}
		var wantUser, gotUser []corev1.Toleration
		for _, x := range tols {
			if !isDefault(defs, x) {
				wantUser = append(wantUser, x)
			}
		}
		for _, x := range got {
			if !isDefault(defs, x) {
				gotUser = append(gotUser, x)
			}
		}
		if diff := cmp.Diff(wantUser, gotUser); diff != "" {
			t.Fatalf("user tolerations not kept in order (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(got, tolerations.WithDaemonTolerations(got, hostNetwork)); diff != "" {
			t.Fatalf("WithDaemonTolerations is not idempotent (-once +twice):\n%s", diff)
		}

		spec := &corev1.PodSpec{Tolerations: tols, HostNetwork: hostNetwork}
		changed := tolerations.AddOrUpdateDaemonPodTolerations(spec)
		if diff := cmp.Diff(before, tols); diff != "" {
			t.Fatalf("AddOrUpdateDaemonPodTolerations wrote the old slice (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(got, spec.Tolerations); diff != "" {
			t.Fatalf("AddOrUpdateDaemonPodTolerations disagrees with WithDaemonTolerations (-with +add):\n%s", diff)
		}
		if wantChanged := !cmp.Equal(before, got); changed != wantChanged {
			t.Fatalf("AddOrUpdateDaemonPodTolerations() = %v, want %v", changed, wantChanged)
		}
		if !changed && !sameHeader(tols, spec.Tolerations) {
			t.Fatalf("unchanged spec got a new slice header")
		}
		if tolerations.AddOrUpdateDaemonPodTolerations(spec) {
			t.Fatalf("second AddOrUpdateDaemonPodTolerations() = true, want false")
		}
	})
}

func FuzzFindUntoleratedTaint(f *testing.F) {
	for _, tt := range findCases {
		f.Add(encodeTaints(f, tt.taints), encodeTolerations(f, tt.tols), uint8(tt.effects), tt.enable)
	}
	f.Fuzz(func(t *testing.T, taintData, tolData []byte, effects uint8, enable bool) {
		taints := decodeTaints(taintData)
		tols := decodeTolerations(tolData)
		set := tolerations.EffectSet(effects)
		taintsBefore := decodeTaints(taintData)
		tolsBefore := decodeTolerations(tolData)

		got, gotOK := tolerations.FindUntoleratedTaint(taints, tols, set, enable)
		inSet := func(t *corev1.Taint) bool { return set.Has(t.Effect) }
		want, wantOK := schedcorev1.FindMatchingUntoleratedTaint(klog.Logger{}, taints, tols, inSet, enable)
		if gotOK != wantOK {
			t.Fatalf("FindUntoleratedTaint() ok = %v, component-helpers says %v", gotOK, wantOK)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("FindUntoleratedTaint() disagrees with component-helpers (-helpers +got):\n%s", diff)
		}
		// The daemon variant must agree with the check over the merged list.
		for _, hostNetwork := range []bool{false, true} {
			merged := tolerations.WithDaemonTolerations(tols, hostNetwork)
			want, wantOK := schedcorev1.FindMatchingUntoleratedTaint(klog.Logger{}, taints, merged, inSet, enable)
			got, gotOK := tolerations.FindUntoleratedDaemonTaint(taints, tols, hostNetwork, set, enable)
			if gotOK != wantOK {
				t.Fatalf("FindUntoleratedDaemonTaint(hostNetwork=%v) ok = %v, over the merged list %v", hostNetwork, gotOK, wantOK)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("FindUntoleratedDaemonTaint(hostNetwork=%v) disagrees (-merged +got):\n%s", hostNetwork, diff)
			}
		}
		if diff := cmp.Diff(taintsBefore, taints); diff != "" {
			t.Fatalf("taints modified (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(tolsBefore, tols); diff != "" {
			t.Fatalf("tolerations modified (-want +got):\n%s", diff)
		}
	})
}
