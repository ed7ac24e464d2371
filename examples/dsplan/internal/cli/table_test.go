package cli

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/rollout"
)

// TestTableLongNames: a name longer than its column's header widens the
// column; every later column still starts at one offset in every row
// (the fixed-width Printf tables shifted the rest of a row with a long
// wave name), and lines between rows stay where they were put.
func TestTableLongNames(t *testing.T) {
	tab := newTable("  ", "WAVE", "NODES", "START")
	tab.row("topology.kubernetes.io/zone=a-very-long-zone-name-indeed", 3, "0s")
	tab.line("  -- between")
	tab.row("z", 12345, "1m5s")
	var b bytes.Buffer
	if err := tab.flush(&b); err != nil {
		t.Fatal(err)
	}
	want := `  WAVE                                                      NODES  START
  topology.kubernetes.io/zone=a-very-long-zone-name-indeed  3      0s
  -- between
  z                                                         12345  1m5s
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
}

// TestFlagErrors: RolloutPolicy.Validate's field paths are said as the
// flags that set them.
func TestFlagErrors(t *testing.T) {
	pct := intstr.FromString("150%")
	tests := []struct {
		name string
		pol  daemon.RolloutPolicy
		want string
	}{
		{"partition", daemon.RolloutPolicy{Partition: &pct},
			`--partition "150%": must be an integer or a percentage between 0% and 100%`},
		{"wave bake without an order label", daemon.RolloutPolicy{Waves: &rollout.WaveBarrier{}},
			"--order-label (or the rollout.daemonplan.io/order-by annotation) is required: waves are the values of an order label (or a canary and the rest)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.pol.Validate()
			if err == nil {
				t.Fatal("Validate() = nil, want an error")
			}
			if diff := cmp.Diff(tt.want, flagErrors(err)); diff != "" {
				t.Errorf("flagErrors (-want +got):\n%s", diff)
			}
		})
	}
}
