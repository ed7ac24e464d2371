package cli

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonplan/daemonplan/daemon"
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

// TestFlagErrors: RolloutPolicy.Validate's error about the per-domain
// surge, the one control without an annotation, names its flag.
func TestFlagErrors(t *testing.T) {
	pct := intstr.FromString("-1%")
	pol := daemon.RolloutPolicy{DomainBudget: &daemon.DomainBudget{Label: "zone", MaxSurge: &pct}}
	err := pol.Validate()
	if err == nil {
		t.Fatal("Validate() = nil, want an error")
	}
	want := `--domain-max-surge "-1%": must be a non-negative integer or percentage`
	if diff := cmp.Diff(want, flagErrors(err)); diff != "" {
		t.Errorf("flagErrors (-want +got):\n%s", diff)
	}
}
