package progressive

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/daemon"
)

func TestGatesPoints(t *testing.T) {
	zones := []string{daemon.CanaryWave, "zone=a", "zone=b", "zone=c"}
	tests := []struct {
		name       string
		pauseAfter []string
		waves      []string
		want       []string
	}{
		{name: "none", waves: zones},
		{name: "every wave but the last", pauseAfter: []string{"every-wave"}, waves: zones, want: []string{"canary", "zone=a", "zone=b"}},
		{name: "the canary", pauseAfter: []string{"canary"}, waves: zones, want: []string{"canary"}},
		{name: "values, in wave order", pauseAfter: []string{"b", "a"}, waves: zones, want: []string{"zone=a", "zone=b"}},
		{name: "the last wave is never a point: nothing follows it", pauseAfter: []string{"c"}, waves: zones},
		{name: "no waves", pauseAfter: []string{"every-wave"}},
		{name: "a value no wave has", pauseAfter: []string{"d"}, waves: zones},
		{name: "canary and every wave once each", pauseAfter: []string{"canary", "every-wave"}, waves: zones, want: []string{"canary", "zone=a", "zone=b"}},
		{name: "canary without an order label", pauseAfter: []string{"canary"}, waves: []string{daemon.CanaryWave, daemon.RestWave}, want: []string{"canary"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := Gates{PauseAfter: tt.pauseAfter}
			if diff := cmp.Diff(tt.want, g.Points(tt.waves)); diff != "" {
				t.Errorf("Points (-want +got):\n%s", diff)
			}
		})
	}
}
