package daemontest

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/simulate"
)

// InvariantCanary: with RolloutPolicy.Canary, the canary wave has the
// size Count asks for, and no more; the step replaces within the budgets
// on its nodes as everywhere.
const InvariantCanary Invariant = "CanaryWave"

// canaryNodes returns the canary of the checked input: the names
// RolloutPolicy.CanaryNodes gives for the desired input nodes, each with
// its earliest created live updated pod. nil without a canary.
func (c *checker) canaryNodes() map[string]bool {
	pol := &c.in.Options.Rollout
	if pol.Canary == nil {
		return nil
	}
	var desired []*corev1.Node
	updated := map[*corev1.Node]*corev1.Pod{}
	for _, name := range c.names {
		nv := c.nodes[name]
		if nv.node == nil || !nv.shouldRun {
			continue
		}
		desired = append(desired, nv.node)
		for _, p := range live(nv.pods) {
			if u := updated[nv.node]; c.updated(p) && (u == nil || p.CreationTimestamp.Before(&u.CreationTimestamp)) {
				updated[nv.node] = p
			}
		}
	}
	in := map[string]bool{}
	for _, name := range pol.CanaryNodes(desired, func(n *corev1.Node) *corev1.Pod { return updated[n] }) {
		in[name] = true
	}
	return in
}

// checkCanary is CanaryWave, checked by checkPolicy with the canary
// (canaryNodes) and the scope. With D the desired in-scope nodes and N
// Count scaled against D (a percentage rounded up), at least 1:
//  1. the canary has min(N, D) nodes, each desired and in scope;
//  2. the step's report of the canary wave (Rolling.Policy.Wave named
//     daemon.CanaryWave) counts at most N desired nodes;
//  3. with maxSurge 0, the canary's desired nodes with no available live
//     pod after the plan number at most max(maxUnavailable, before); with
//     surge, its nodes surging (an available old pod beside a new one not
//     available) at most max(maxSurge, before).
func (c *checker) checkCanary(canary map[string]bool, inScope func(*nodeView) bool) {
	pol := &c.in.Options.Rollout
	desired := 0
	for _, name := range c.names {
		if nv := c.nodes[name]; nv.node != nil && nv.shouldRun && inScope(nv) {
			desired++
		}
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(&pol.Canary.Count, desired, true)
	if err != nil {
		return // Compute refuses it
	}
	n = max(n, 1)
	if len(canary) != min(n, desired) {
		c.add(InvariantCanary, "the canary has %d nodes; Count %s of %d desired nodes in scope asks for %d", len(canary), pol.Canary.Count.String(), desired, min(n, desired))
	}
	for _, name := range slices.Sorted(mapKeys(canary)) {
		if nv := c.nodes[name]; nv == nil || nv.node == nil || !nv.shouldRun || !inScope(nv) {
			c.add(InvariantCanary, "the canary has %q, not a desired node in scope", name)
		}
	}
	st := c.plan.Rolling
	if w := st.Policy; w != nil && w.Wave != nil && w.Wave.Name == daemon.CanaryWave && w.Wave.Desired > n {
		c.add(InvariantCanary, "the step's canary wave counts %d desired nodes; Count allows %d", w.Wave.Desired, n)
	}
	deleted := podSet(nil)
	for _, d := range c.plan.Deletes {
		deleted[d.Pod] = true
	}
	created := map[string]bool{}
	for _, cr := range c.plan.Creates {
		created[cr.NodeName] = true
	}
	b := simulate.BudgetsOf(c.ds, c.desired)
	var before, after int
	for name := range canary {
		nv := c.nodes[name]
		for k, gone := range []map[*corev1.Pod]bool{nil, deleted} {
			anyAvailable, oldAvailable, newUnavailable := c.nodeAvailability(nv.pods, gone)
			newUnavailable = newUnavailable || (k == 1 && created[name])
			hit := !anyAvailable
			if b.MaxSurge > 0 {
				hit = oldAvailable && newUnavailable
			}
			if hit && k == 0 {
				before++
			} else if hit {
				after++
			}
		}
	}
	budget := b.MaxUnavailable
	if b.MaxSurge > 0 {
		budget = b.MaxSurge
	}
	if after > max(budget, before) {
		c.add(InvariantCanary, "%d canary nodes unavailable or surging after the plan, %d before, budget %d", after, before, budget)
	}
}

// waveOf names the wave of the node name, given the canary: CanaryWave
// for its nodes, RolloutPolicy.WaveOf otherwise.
func waveOf(pol *daemon.RolloutPolicy, canary map[string]bool, name string, node *corev1.Node) string {
	if canary[name] {
		return daemon.CanaryWave
	}
	return pol.WaveOf(node)
}

// compareUpdate orders two nodes as the step does: the canary's first,
// then by RolloutPolicy.CompareNodes.
func compareUpdate(pol *daemon.RolloutPolicy, canary map[string]bool, a, b *nodeView, nameA, nameB string) int {
	if ca, cb := canary[nameA], canary[nameB]; ca != cb {
		if ca {
			return -1
		}
		return 1
	}
	return pol.CompareNodes(a.node, b.node)
}
