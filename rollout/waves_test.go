package rollout_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/rollout"
)

// waveNode is a node of a wave test: its wave and pods, and how it stands.
type waveNode struct {
	name  string
	wave  int32
	kinds []podKind
	// readyAgo, when set, is how long before stepNow the pods turned ready.
	readyAgo              time.Duration
	hold, missing, notRun bool
}

func waveNodes(wn ...waveNode) []rollout.Node {
	var nodes []rollout.Node
	for _, w := range wn {
		n := node(w.name, !w.notRun, w.kinds...)
		n.Wave, n.Frozen, n.Missing = w.wave, w.hold, w.missing
		if w.readyAgo != 0 {
			for _, p := range n.Pods {
				p.Status.Conditions[0].LastTransitionTime = metav1.Time{Time: stepNow.Add(-w.readyAgo)}
			}
		}
		nodes = append(nodes, n)
	}
	return nodes
}

// TestWaveBarrier covers the barrier's edges: what holds a later wave, what
// does not, and what the step reports.
func TestWaveBarrier(t *testing.T) {
	bake := rollout.Policy{Waves: &rollout.WaveBarrier{Bake: 10 * time.Minute, Names: []string{"zone=a", "zone=b", "zone=c"}}}
	noBake := rollout.Policy{Waves: &rollout.WaveBarrier{}}
	tests := []struct {
		name       string
		maxU, surg int
		minReady   int32
		p          rollout.Policy
		nodes      []waveNode
		want       string
		wantWave   *rollout.WaveProgress
	}{
		{name: "the first wave goes first, budget permitting", maxU: 10, p: bake,
			nodes: []waveNode{{name: "a1", kinds: []podKind{oldAvail}}, {name: "a2", kinds: []podKind{oldAvail}},
				{name: "b1", wave: 1, kinds: []podKind{oldAvail}}},
			want:     "-a1 -a2",
			wantWave: &rollout.WaveProgress{Name: "zone=a", Waves: 2, Desired: 2, Waiting: []string{"a1", "a2"}}},
		{name: "a done wave bakes before the next", maxU: 10, p: bake,
			nodes: []waveNode{{name: "a1", kinds: []podKind{newAvail}, readyAgo: 4 * time.Minute}, {name: "a2", kinds: []podKind{newAvail}, readyAgo: time.Hour},
				{name: "b1", wave: 1, kinds: []podKind{oldAvail}}},
			wantWave: &rollout.WaveProgress{Name: "zone=a", Waves: 2, Desired: 2, Done: 2, BakeUntil: stepNow.Add(6 * time.Minute)}},
		{name: "the bake counts from availability: minReadySeconds", maxU: 10, minReady: 60, p: bake,
			nodes: []waveNode{{name: "a1", kinds: []podKind{newAvail}, readyAgo: 4 * time.Minute},
				{name: "b1", wave: 1, kinds: []podKind{oldAvail}}},
			wantWave: &rollout.WaveProgress{Name: "zone=a", Waves: 2, Desired: 1, Done: 1, BakeUntil: stepNow.Add(7 * time.Minute)}},
		{name: "baked: the next wave starts", maxU: 10, p: bake,
			nodes: []waveNode{{name: "a1", kinds: []podKind{newAvail}, readyAgo: 10 * time.Minute},
				{name: "b1", wave: 1, kinds: []podKind{oldAvail}}, {name: "c1", wave: 2, kinds: []podKind{oldAvail}}},
			want:     "-b1",
			wantWave: &rollout.WaveProgress{Wave: 1, Name: "zone=b", Index: 1, Waves: 3, Desired: 1, Waiting: []string{"b1"}}},
		{name: "a new pod never available holds the next wave", maxU: 10, p: noBake,
			nodes: []waveNode{{name: "a1", kinds: []podKind{newUnavail}}, {name: "a2", kinds: []podKind{newAvail}},
				{name: "b1", wave: 1, kinds: []podKind{oldAvail}}},
			wantWave: &rollout.WaveProgress{Waves: 2, Desired: 2, Done: 1, Waiting: []string{"a1"}}},
		{name: "a node without a pod holds the next wave", maxU: 10, p: noBake,
			nodes:    []waveNode{{name: "a1"}, {name: "b1", wave: 1, kinds: []podKind{oldAvail}}},
			wantWave: &rollout.WaveProgress{Waves: 2, Desired: 1, Waiting: []string{"a1"}}},
		{name: "unavailable old pods of a later wave wait too, and count", maxU: 10, p: noBake,
			nodes:    []waveNode{{name: "a1", kinds: []podKind{oldAvail}}, {name: "b1", wave: 1, kinds: []podKind{oldUnavail}}},
			want:     "-a1",
			wantWave: &rollout.WaveProgress{Waves: 2, Desired: 1, Waiting: []string{"a1"}}},
		{name: "held, missing and ineligible nodes hold no wave", maxU: 10, p: noBake,
			nodes: []waveNode{{name: "a1", kinds: []podKind{oldAvail}, hold: true}, {name: "a2", kinds: []podKind{oldAvail}, missing: true},
				{name: "a3", kinds: []podKind{oldAvail}, notRun: true}, {name: "a4", kinds: []podKind{newAvail}},
				{name: "b1", wave: 1, kinds: []podKind{oldAvail}}},
			want:     "-a2 -a3 -b1",
			wantWave: &rollout.WaveProgress{Wave: 1, Index: 1, Waves: 2, Desired: 1, Waiting: []string{"b1"}}},
		{name: "surge: the old pod beside an available new one goes, the wave is done next step", surg: 10, p: noBake,
			nodes:    []waveNode{{name: "a1", kinds: []podKind{oldAvail, newAvail}}, {name: "b1", wave: 1, kinds: []podKind{oldAvail}}},
			want:     "-a1",
			wantWave: &rollout.WaveProgress{Waves: 2, Desired: 1, Waiting: []string{"a1"}}},
		{name: "surge: later waves get no surge pod", surg: 10, p: noBake,
			nodes:    []waveNode{{name: "a1", kinds: []podKind{oldAvail}}, {name: "b1", wave: 1, kinds: []podKind{oldUnavail}}},
			want:     "+a1",
			wantWave: &rollout.WaveProgress{Waves: 2, Desired: 1, Waiting: []string{"a1"}}},
		{name: "the last wave's bake holds nothing", maxU: 10, p: bake,
			nodes:    []waveNode{{name: "a1", kinds: []podKind{newAvail}, readyAgo: time.Minute}},
			wantWave: &rollout.WaveProgress{Name: "zone=a", Waves: 1, Desired: 1, Done: 1}},
		{name: "waves by number, not by rank, and unnamed beyond Names", maxU: 10, p: bake,
			nodes:    []waveNode{{name: "a1", wave: 7, kinds: []podKind{oldAvail}}, {name: "b1", wave: 9, kinds: []podKind{oldAvail}}},
			want:     "-a1",
			wantWave: &rollout.WaveProgress{Wave: 7, Waves: 2, Desired: 1, Waiting: []string{"a1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := stepDS(ip(tt.maxU), ip(tt.surg))
			ds.Spec.MinReadySeconds = tt.minReady
			st, err := rollout.RollingUpdatePolicy(ds, waveNodes(tt.nodes...), newHash, stepNow, tt.p)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, stepNodes(st)); diff != "" {
				t.Errorf("step (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantWave, st.Policy.Wave); diff != "" {
				t.Errorf("Policy.Wave (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWaveBarrierWaitingCap: the report names at most MaxWaiting nodes.
func TestWaveBarrierWaitingCap(t *testing.T) {
	var wn []waveNode
	for i := range 13 {
		wn = append(wn, waveNode{name: fmt.Sprintf("a%02d", i), kinds: []podKind{newUnavail}})
	}
	st, err := rollout.RollingUpdatePolicy(stepDS(ip(1), ip(0)), waveNodes(wn...), newHash, stepNow, rollout.Policy{Waves: &rollout.WaveBarrier{}})
	if err != nil {
		t.Fatal(err)
	}
	want := &rollout.WaveProgress{Waves: 1, Desired: 13, WaitingMore: 3,
		Waiting: []string{"a00", "a01", "a02", "a03", "a04", "a05", "a06", "a07", "a08", "a09"}}
	if diff := cmp.Diff(want, st.Policy.Wave); diff != "" {
		t.Errorf("Policy.Wave (-want +got):\n%s", diff)
	}
}

func TestWaveProgressString(t *testing.T) {
	tests := []struct {
		w    rollout.WaveProgress
		want string
	}{
		{rollout.WaveProgress{Name: "zone=b", Index: 1, Waves: 3, Desired: 10, Done: 4, Waiting: []string{"w-17"}},
			"wave zone=b (2 of 3): 4/10 updated and available; waiting for w-17"},
		{rollout.WaveProgress{Wave: 4, Waves: 5, Index: 4, Desired: 12, Waiting: []string{"a"}, WaitingMore: 11},
			"wave 4 (5 of 5): 0/12 updated and available; waiting for a and 11 more"},
		{rollout.WaveProgress{Name: "zone=a", Waves: 2, Desired: 3, Done: 3, BakeUntil: stepNow},
			"wave zone=a (1 of 2): 3/3 updated and available; baking until 2025-06-01T12:00:00Z"},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.w.String()); diff != "" {
			t.Errorf("String (-want +got):\n%s", diff)
		}
	}
}
