package daemontest

import (
	"cmp"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/rollout"
)

// InvariantWaveBarrier: with RolloutPolicy.Waves (or Canary), the step starts nothing
// on a node of a wave while an earlier wave is not updated, available and
// baked.
const InvariantWaveBarrier Invariant = "WaveBarrier"

// checkWaves is WaveBarrier, checked by checkPolicy with the step's
// replacements (node name to reason), the scope and the canary (see
// canaryNodes). Waves are the canary, then the groups of
// RolloutPolicy.WaveOf over the other nodes in CompareNodes order (missing
// nodes as nil). A wave is done when each of its desired in-scope nodes
// runs exactly one live pod, updated and available, and baked when the
// last of those pods became available (Ready's lastTransitionTime plus
// minReadySeconds) at least Bake before Now; the last wave needs no bake.
// No replacement may be on a node of a wave after the first wave that is
// not done and baked.
func (c *checker) checkWaves(replaced map[string]rollout.Reason, inScope func(*nodeView) bool, canary map[string]bool) {
	pol := &c.in.Options.Rollout
	type named struct {
		name string
		nv   *nodeView
	}
	views := make([]named, 0, len(c.names))
	for _, name := range c.names {
		views = append(views, named{name, c.nodes[name]})
	}
	slices.SortStableFunc(views, func(a, b named) int {
		return cmp.Or(compareUpdate(pol, canary, a.nv, b.nv, a.name, b.name), cmp.Compare(a.name, b.name))
	})
	type wave struct {
		name        string
		done, baked bool
		nodes       []named
	}
	var waves []*wave
	for _, v := range views {
		w := waveOf(pol, canary, v.name, v.nv.node)
		if len(waves) == 0 || waves[len(waves)-1].name != w {
			waves = append(waves, &wave{name: w, done: true})
		}
		waves[len(waves)-1].nodes = append(waves[len(waves)-1].nodes, v)
	}
	minReady := c.ds.Spec.MinReadySeconds
	now := c.in.Options.Now
	for _, w := range waves {
		var last time.Time
		for _, v := range w.nodes {
			nv := v.nv
			if nv.node == nil || !nv.shouldRun || !inScope(nv) {
				continue
			}
			pods := live(nv.pods)
			if len(pods) != 1 || !c.updated(pods[0]) || !c.available(pods[0]) {
				w.done = false
				break
			}
			if at := readySince(pods[0]).Add(time.Duration(minReady) * time.Second); at.After(last) {
				last = at
			}
		}
		var bake time.Duration
		if pol.Waves != nil {
			bake = pol.Waves.Bake
		}
		w.baked = w.done && !now.Before(last.Add(bake))
	}
	for k, w := range waves {
		if w.done && (w.baked || k == len(waves)-1) {
			continue
		}
		for _, later := range waves[k+1:] {
			for _, v := range later.nodes {
				if _, ok := replaced[v.name]; ok {
					c.add(InvariantWaveBarrier, "the step starts %q of wave %s while wave %s is not updated, available and baked", v.name, later.name, w.name)
				}
			}
		}
		return
	}
}

// readySince is the lastTransitionTime of pod's Ready condition; the zero
// time when it has none.
func readySince(pod *corev1.Pod) time.Time {
	for _, cd := range pod.Status.Conditions {
		if cd.Type == corev1.PodReady {
			return cd.LastTransitionTime.Time
		}
	}
	return time.Time{}
}
