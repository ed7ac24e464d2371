package progressive_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// FuzzFailClosed checks the fail-closed property of the rollout
// annotations: for any three annotations (a key without "/" is taken under
// the prefix) on a drawn cluster (nodes in zones zone-a..c, rolling out or
// settled), either
//   - the parse fails, and the plan (ForDaemonSet's paused policy)
//     replaces no old pod; or
//   - every gate key present is effective: a pause-after value naming no
//     wave of the desired nodes, an order-by or domain no desired node
//     carries, an order value no desired node has, a scope no desired
//     node is in, an approved wave of this revision that is not a wave,
//     each holds at once (HoldUnresolved, naming that key and value, and
//     only keys present); and a pause-after naming a wave holds after it:
//     when nothing else holds, no wave it names (but the last) is done
//     with all before it and unapproved.
//
// With no desired node nothing is unresolved. Before the references
// resolved, the seed of finding 1 (pause-after "zone-z") failed: Hold said
// nothing and the plan rolled every node.
func FuzzFailClosed(f *testing.F) {
	seeds := []struct {
		seed                   uint64
		k1, v1, k2, v2, k3, v3 string
	}{
		{1, "order-by", zone, "canary", "1", "pause-after", "zone-z"},
		{2, "order-by", zone, "pause-after", "zone-b", "wave-bake", "0s"},
		{3, "order-by", zone, "pause-after", "every-wave", "approved", "x/" + zone + "=zone-a"},
		{4, "order-by", "zome", "order-values", "zone-a", "health-gates", "false"},
		{5, "order-by", zone, "order-values", "zone-c,zone-q", "max-unavailable", "2"},
		{6, "scope", zone + "=zone-q", "paused", "false", "strict", "true"},
		{7, "domain", "rack", "domain-max-unavailable", "1", "canary", "30%"},
		{8, "pause-after", "canary", "canary", "1", "health-gates", "false"},
		{9, "wave-bake", "2562047h", "order-by", zone, "pause-after", "zone-a"},
		{10, "progress-deadline", "1ns", "scope", "!" + zone, "order-by", zone},
		{11, "pause-after", "zone-a", "order-by", zone, "partition", "100001"},
		{12, "order-by", zone, "canary", "2", "pause-after", "canary,zone-b"},
	}
	for _, s := range seeds {
		f.Add(s.seed, s.k1, s.v1, s.k2, s.v2, s.k3, s.v3)
	}
	f.Fuzz(func(t *testing.T, seed uint64, k1, v1, k2, v2, k3, v3 string) {
		r := rand.New(rand.NewPCG(seed, 0x7265667300000000)) // "refs"
		c := dt.GenerateCluster(r, dt.ClusterConfig{Healthy: true, Rollout: r.IntN(4) != 0})
		zoned(c)
		ann := map[string]string{}
		for _, kv := range [][2]string{{k1, v1}, {k2, v2}, {k3, v3}} {
			k := kv[0]
			if !strings.Contains(k, "/") {
				k = pfx + k
			}
			ann[k] = kv[1]
		}
		ds := c.DaemonSet.DeepCopy()
		ds.Annotations = ann
		if r.IntN(2) == 0 {
			ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
		}
		ro, err := progressive.ForDaemonSet(ds)
		plan, perr := daemon.Compute(ro.DaemonSet, c.Nodes, c.Pods, ro.Options(daemon.Options{Now: c.Now, Revisions: c.Revisions}))
		if err != nil {
			if !ro.Policy.Paused {
				t.Fatalf("refused annotations (%v) planned unpaused", err)
			}
			if perr == nil {
				for _, d := range plan.Deletes {
					if d.Reason == daemon.ReasonRollingUpdate || d.Reason == daemon.ReasonReplaceUnavailable {
						t.Fatalf("refused annotations (%v): the plan replaces %s on %s", err, d.Pod.Name, d.NodeName)
					}
				}
			}
			return
		}
		if ro.Annotations == nil || perr != nil || plan.Skip != daemon.SkipNone {
			return
		}
		j, err := progressive.Judge(ro.DaemonSet, &plan)
		if err != nil {
			return
		}
		g := ro.Annotations.Gates
		h, err := g.Hold(ro.DaemonSet, &plan, j, c.Now, nil)
		if err != nil {
			return // a window without zones: an error, never a pass
		}
		want := expectedUnresolved(ann, &plan, j, &ro.Policy)
		var got []string
		for _, u := range h.Unresolved {
			if _, ok := ann[u.Key]; !ok {
				t.Fatalf("Unresolved %s names a key not given: %v", u, ann)
			}
			got = append(got, u.Key+" "+u.Value)
		}
		for _, w := range want {
			if !slices.ContainsFunc(got, func(g string) bool { return g == w || strings.HasSuffix(w, " ") && strings.HasPrefix(g, w) }) {
				t.Fatalf("%s resolves to nothing, but Hold is %q (%s); annotations %v", w, h.Cause, h, ann)
			}
		}
		if len(h.Unresolved) > 0 && h.Cause != progressive.HoldUnresolved {
			t.Fatalf("Unresolved set under cause %q", h.Cause)
		}
		if h.Cause == progressive.HoldUnresolved || h.Cause == progressive.HoldHealthGate || h.Cause == progressive.HoldApproval || j.Complete {
			return
		}
		// Nothing holds: no wave pause-after names is done and waiting.
		for i := 0; i < len(j.Waves)-1; i++ {
			if !j.Waves[i].Done() {
				break
			}
			w := j.Waves[i].Wave
			for _, p := range g.PauseAfter {
				named := p == "every-wave" || p == w || strings.HasSuffix(w, "="+p)
				covered := g.Approved != nil && g.Approved.Hash == plan.Hash &&
					slices.IndexFunc(j.Waves, func(t progressive.Tally) bool { return t.Wave == g.Approved.Wave }) >= i
				if named && !covered {
					t.Fatalf("pause-after %q names done wave %s, unapproved, but Hold is %q", p, w, h.Cause)
				}
			}
		}
	})
}

// expectedUnresolved is what a slow reading of ann says resolves to
// nothing in plan: "<key> <value>" for each pause-after value naming no
// wave, order-by or domain no desired node carries, order value no desired
// node has, scope no desired node is in, approved wave of this revision
// that is not a wave. Nothing without a desired node.
func expectedUnresolved(ann map[string]string, plan *daemon.Plan, j progressive.Judgement, p *daemon.RolloutPolicy) []string {
	var desired []*daemon.NodeStanding
	for i := range plan.Standing.Nodes {
		if n := &plan.Standing.Nodes[i]; n.ShouldRun {
			desired = append(desired, n)
		}
	}
	if len(desired) == 0 {
		return nil
	}
	carried := func(label string) bool {
		return slices.ContainsFunc(desired, func(n *daemon.NodeStanding) bool { _, ok := n.Node.Labels[label]; return ok })
	}
	var out []string
	if p.Order.Label != "" && !carried(p.Order.Label) {
		out = append(out, progressive.AnnotationOrderBy+" "+p.Order.Label)
	} else {
		for _, v := range p.Order.Values {
			if !slices.ContainsFunc(desired, func(n *daemon.NodeStanding) bool { return n.Node.Labels[p.Order.Label] == v }) {
				out = append(out, progressive.AnnotationOrderValues+" "+v)
			}
		}
	}
	if d := p.DomainBudget; d != nil && !carried(d.Label) {
		out = append(out, progressive.AnnotationDomain+" "+d.Label)
	}
	if _, ok := ann[progressive.AnnotationScope]; ok && !slices.ContainsFunc(desired, func(n *daemon.NodeStanding) bool { return n.Held != daemon.HeldScope }) {
		out = append(out, progressive.AnnotationScope+" ") // the value as written back: any
	}
	a, _ := progressive.ParseAnnotations(ann)
	for _, v := range a.Gates.PauseAfter {
		if v == "every-wave" {
			continue
		}
		if !slices.ContainsFunc(j.Waves, func(t progressive.Tally) bool { return t.Wave == v || strings.HasSuffix(t.Wave, "="+v) }) {
			out = append(out, progressive.AnnotationPauseAfter+" "+v)
		}
	}
	if ap := a.Gates.Approved; ap != nil && ap.Hash == plan.Hash && !slices.ContainsFunc(j.Waves, func(t progressive.Tally) bool { return t.Wave == ap.Wave }) {
		out = append(out, progressive.AnnotationApproved+" "+ap.Wave)
	}
	return out
}
