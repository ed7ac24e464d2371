package cli

import (
	"bytes"
	"io"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/simulate"
)

// TestCompletion: each shell gets cobra's script, and cobra's completion
// (what the scripts call) offers every command, the commands a program
// adds, and every flag of a command with the program's own.
func TestCompletion(t *testing.T) {
	extra := Options{
		Flags: func(fs *pflag.FlagSet) { fs.String("kubeconfig", "", "") },
		Commands: func() []*cobra.Command {
			return []*cobra.Command{{Use: "dump", Short: "print the listing", Run: func(*cobra.Command, []string) {}}}
		},
	}
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		var out bytes.Buffer
		if code := Run([]string{"completion", shell}, nil, &out, &out, extra); code != 0 || !strings.Contains(out.String(), "dsplan") {
			t.Fatalf("completion %s: exit %d\n%s", shell, code, out.String())
		}
	}
	complete := func(args ...string) string {
		var out bytes.Buffer
		if code := Run(append([]string{cobra.ShellCompRequestCmd}, args...), nil, &out, io.Discard, extra); code != 0 {
			t.Fatalf("__complete %v: exit %d", args, code)
		}
		return out.String()
	}
	got := complete("")
	for _, w := range []string{"plan", "explain", "simulate", "version", "completion", "dump"} {
		if !strings.Contains(got, w+"\t") {
			t.Errorf("command %s not offered:\n%s", w, got)
		}
	}
	for _, c := range commands {
		got := complete(c.name, "--")
		root := NewCommand(extra, nil, io.Discard, io.Discard)
		sub, _, err := root.Find([]string{c.name})
		if err != nil {
			t.Fatal(err)
		}
		sub.InheritedFlags().VisitAll(func(f *pflag.Flag) {}) // merges the persistent flags
		sub.Flags().VisitAll(func(f *pflag.Flag) {
			if !f.Hidden && !strings.Contains(got, "--"+f.Name) { // hidden: an older name (flagAliases)
				t.Errorf("%s: flag --%s not offered", c.name, f.Name)
			}
		})
		if !strings.Contains(got, "--kubeconfig") {
			t.Errorf("%s: the program's --kubeconfig not offered", c.name)
		}
	}
	if got := complete("plan", "-o", ""); !strings.Contains(got, "wide") {
		t.Errorf("plan -o: wide not offered:\n%s", got)
	}
}

func TestVersionLine(t *testing.T) {
	tests := []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"a release", &debug.BuildInfo{Main: debug.Module{Version: "v0.4.0"}}, "dsplan v0.4.0 GO"},
		{"a work tree", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "3f69806a1b2c3d4e5f60718293a4b5c6d7e8f901"}, {Key: "vcs.time", Value: "2026-11-25T13:00:00Z"},
			{Key: "vcs.modified", Value: "true"}}}, "dsplan (devel) (commit 3f69806a1b2c, 2026-11-25T13:00:00Z, modified) GO"},
		{"go run", &debug.BuildInfo{}, "dsplan (devel) GO"},
		{"no build info", nil, "dsplan (unknown) GO"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := versionLine("dsplan", tt.info)
			got = got[:strings.Index(got, " go")] + " GO"
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("versionLine() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestChartRows: one row per node while they fit; past 150, rows of
// consecutive nodes of one group, each group its share of rows.
func TestChartRows(t *testing.T) {
	cd := chartData{groupLabel: "topology.kubernetes.io/zone"}
	for i := range 5000 {
		cd.nodes = append(cd.nodes, "node-"+string(rune('a'+i%26)))
		g := "zone-a"
		if i >= 3000 {
			g = "zone-b"
		}
		cd.groups = append(cd.groups, g)
	}
	rows := chartRows(cd)
	if len(rows) > svgGridMaxH/svgMinRowH {
		t.Fatalf("%d rows, want at most %d", len(rows), svgGridMaxH/svgMinRowH)
	}
	covered, perGroup, firsts := 0, map[string]int{}, 0
	for i, r := range rows {
		if r.from != covered {
			t.Fatalf("row %d starts at node %d, want %d (rows must cover the nodes in order)", i, r.from, covered)
		}
		for j := r.from; j < r.to; j++ {
			if cd.groups[j] != r.group {
				t.Fatalf("row %d mixes groups", i)
			}
		}
		covered = r.to
		perGroup[r.group]++
		if r.first {
			firsts++
		}
	}
	if covered != 5000 || firsts != 2 {
		t.Errorf("rows cover %d nodes with %d group headers, want 5000 and 2", covered, firsts)
	}
	// Rows in proportion: 3000 and 2000 nodes.
	if a, b := perGroup["zone-a"], perGroup["zone-b"]; a*2000 < b*3000*9/10 || a*2000 > b*3000*11/10 {
		t.Errorf("zone-a %d rows, zone-b %d: not in proportion to 3000 and 2000 nodes", a, b)
	}
	small := chartData{nodes: []string{"a", "b"}, groups: []string{"", ""}}
	if got := chartRows(small); len(got) != 2 || got[0].first {
		t.Errorf("two nodes without a group: %+v, want a row each and no header", got)
	}
}

// TestChartGroups: the chart's rows are grouped by the label the rollout
// is ordered by (--order-label, else --domain-label, else the zone), the
// --order-values first and in that order, the other values sorted, nodes
// by name within a group.
func TestChartGroups(t *testing.T) {
	const zone, rack = "topology.kubernetes.io/zone", "rack"
	node := func(name, z, r string) *corev1.Node {
		return daemontest.Node(name, daemontest.WithLabel(zone, z), daemontest.WithLabel(rack, r))
	}
	cl := &simulate.Cluster{DaemonSet: daemontest.DaemonSet("agent"), Nodes: []*corev1.Node{
		node("n5", "a", "r2"), node("n1", "c", "r1"), node("n4", "b", "r1"), node("n2", "a", "r1"), node("n3", "c", "r2"),
	}}
	tests := []struct {
		name       string
		pol        daemon.RolloutPolicy
		wantLabel  string
		wantNodes  []string
		wantGroups []string
	}{
		{
			name:       "by the order label, its values first",
			pol:        daemon.RolloutPolicy{Order: daemon.UpdateOrder{Label: zone, Values: []string{"c", "a"}}},
			wantLabel:  zone,
			wantNodes:  []string{"n1", "n3", "n2", "n5", "n4"},
			wantGroups: []string{"c", "c", "a", "a", "b"},
		},
		{
			name:       "by the domain label without an order",
			pol:        daemon.RolloutPolicy{DomainBudget: &daemon.DomainBudget{Label: rack}},
			wantLabel:  rack,
			wantNodes:  []string{"n1", "n2", "n4", "n3", "n5"},
			wantGroups: []string{"r1", "r1", "r1", "r2", "r2"},
		},
		{
			name:       "by zone with no rollout control",
			wantLabel:  zone,
			wantNodes:  []string{"n2", "n5", "n4", "n1", "n3"},
			wantGroups: []string{"a", "a", "b", "c", "c"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			label := groupLabel(&tt.pol, cl)
			cd := newChartRecorder("default/agent", cl, label, orderValues(&tt.pol)).cd
			if diff := cmp.Diff(tt.wantLabel, label); diff != "" {
				t.Errorf("groupLabel() (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantNodes, cd.nodes); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantGroups, cd.groups); diff != "" {
				t.Errorf("groups (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSVG: node names are never cut off (the margin fits the longest),
// no surging legend when maxSurge is 0 and nothing surged, and the budget
// line is drawn after (over) the down line.
func TestSVG(t *testing.T) {
	long := "ip-10-16-113-205.eu-central-1.compute.internal"
	cd := chartData{name: "ns/agent", nodes: []string{"a", long}, groups: []string{"", ""},
		at: []time.Duration{0, time.Second}, states: [][]nodeState{{stateOld, stateOld}, {stateNew, stateUnavailable}},
		available: []int{2, 1}, updated: []int{0, 1}, down: []int{1, 1}, budget: []int{1, 1}, desired: 2, syncs: 2}
	var b strings.Builder
	writeSVG(&b, []chartData{cd})
	svg := b.String()
	lo := layout{left: int(float64(len(long))*svgCharW) + 14}
	if !strings.Contains(svg, `<text x="`+strconv.Itoa(lo.left-4)+`"`) {
		t.Errorf("the labels do not end at the margin %d fitted to %q", lo.left, long)
	}
	if strings.Contains(svg, "surging") {
		t.Error("surging in the legend with maxSurge 0 and no surge")
	}
	if d, bud := strings.Index(svg, `stroke="#d32f2f" stroke-width="2.5"`), strings.LastIndex(svg, `stroke="#ef6c00"`); d < 0 || bud < d {
		t.Error("the budget line is not drawn after the down line")
	}
	cd.surgeBudget = 1
	b.Reset()
	writeSVG(&b, []chartData{cd})
	if !strings.Contains(b.String(), "surging") {
		t.Error("no surging legend with maxSurge 1")
	}
}
