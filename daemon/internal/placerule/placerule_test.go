package placerule_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/affinity"
	"github.com/daemonplan/daemonplan/daemon/internal/placerule"
	"github.com/daemonplan/daemonplan/tolerations"
)

// TestDecide walks the rule order: a Never decides at once, a Sometimes
// only when no later check is Never, a NoExecute taint before a
// NoSchedule one, and the checks after a Never are not asked.
func TestDecide(t *testing.T) {
	noSchedule := corev1.Taint{Key: "a", Effect: corev1.TaintEffectNoSchedule}
	noExecute := corev1.Taint{Key: "b", Effect: corev1.TaintEffectNoExecute}
	tests := []struct {
		name      string
		nameT     affinity.Truth
		affinityT affinity.Truth
		taints    []corev1.Taint // untolerated, in node order
		want      placerule.Verdict
		// asked are the checks called: "affinity", then the effect sets.
		wantAsked []string
	}{
		{name: "every check passes", nameT: affinity.Always, affinityT: affinity.Always,
			want: placerule.Verdict{Truth: affinity.Always}, wantAsked: []string{"affinity", "NoSchedule|NoExecute"}},
		{name: "an unset nodeName passes (Unknown is not a failure)", nameT: affinity.Unknown, affinityT: affinity.Always,
			want: placerule.Verdict{Truth: affinity.Always}, wantAsked: []string{"affinity", "NoSchedule|NoExecute"}},
		{name: "nodeName Never decides before the affinity is asked", nameT: affinity.Never, affinityT: affinity.Always,
			want: placerule.Verdict{Truth: affinity.Never, Check: placerule.NodeName}},
		{name: "affinity Never decides before the taints", nameT: affinity.Always, affinityT: affinity.Never, taints: []corev1.Taint{noExecute},
			want: placerule.Verdict{Truth: affinity.Never, Check: placerule.NodeAffinity}, wantAsked: []string{"affinity"}},
		{name: "a NoSchedule taint alone", nameT: affinity.Always, affinityT: affinity.Always, taints: []corev1.Taint{noSchedule},
			want:      placerule.Verdict{Truth: affinity.Never, Check: placerule.Taint, Taint: noSchedule},
			wantAsked: []string{"affinity", "NoSchedule|NoExecute", "NoExecute"}},
		{name: "a later NoExecute taint wins over the first NoSchedule one", nameT: affinity.Always, affinityT: affinity.Always, taints: []corev1.Taint{noSchedule, noExecute},
			want:      placerule.Verdict{Truth: affinity.Never, Check: placerule.NoExecuteTaint, Taint: noExecute},
			wantAsked: []string{"affinity", "NoSchedule|NoExecute", "NoExecute"}},
		{name: "nodeName Sometimes, then affinity Never: Never", nameT: affinity.Sometimes, affinityT: affinity.Never,
			want: placerule.Verdict{Truth: affinity.Never, Check: placerule.NodeAffinity}, wantAsked: []string{"affinity"}},
		{name: "the first Sometimes decides when nothing is Never", nameT: affinity.Sometimes, affinityT: affinity.Sometimes,
			want: placerule.Verdict{Truth: affinity.Sometimes, Check: placerule.NodeName}, wantAsked: []string{"affinity", "NoSchedule|NoExecute"}},
		{name: "affinity Sometimes", nameT: affinity.Always, affinityT: affinity.Sometimes,
			want: placerule.Verdict{Truth: affinity.Sometimes, Check: placerule.NodeAffinity}, wantAsked: []string{"affinity", "NoSchedule|NoExecute"}},
		{name: "a taint wins over a Sometimes", nameT: affinity.Sometimes, affinityT: affinity.Sometimes, taints: []corev1.Taint{noExecute},
			want: placerule.Verdict{Truth: affinity.Never, Check: placerule.NoExecuteTaint, Taint: noExecute}, wantAsked: []string{"affinity", "NoSchedule|NoExecute"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked []string
			got := placerule.Decide(tt.nameT,
				func() affinity.Truth { asked = append(asked, "affinity"); return tt.affinityT },
				func(effects tolerations.EffectSet) (corev1.Taint, bool) {
					name := "NoExecute"
					if effects&tolerations.NoSchedule != 0 {
						name = "NoSchedule|NoExecute"
					}
					asked = append(asked, name)
					for _, taint := range tt.taints {
						if taint.Effect == corev1.TaintEffectNoExecute || effects&tolerations.NoSchedule != 0 {
							return taint, true
						}
					}
					return corev1.Taint{}, false
				})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Decide() mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantAsked, asked); diff != "" {
				t.Errorf("checks asked (-want +got):\n%s", diff)
			}
		})
	}
}

// TestOf: a two-valued check is Always or Never.
func TestOf(t *testing.T) {
	if got := placerule.Of(true); got != affinity.Always {
		t.Errorf("Of(true) = %v, want Always", got)
	}
	if got := placerule.Of(false); got != affinity.Never {
		t.Errorf("Of(false) = %v, want Never", got)
	}
}
