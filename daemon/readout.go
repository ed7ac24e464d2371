package daemon

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/rollout"
)

// standing builds the plan's standing from c, after the plan's rolling
// step (step, nil when it did not run). It copies what it keeps out of
// c's memory, so that a Planner's next plan does not change it.
func (c *cluster) standing(p *RolloutPolicy, step *RollingStep, burst int) *Standing {
	ro := &Standing{BurstReplicas: burst, Nodes: make([]NodeStanding, 0, len(c.nodes)+len(c.missing))}
	npods := 0
	for _, group := range [2][]rollout.Node{c.nodes, c.missing} {
		for i := range group {
			npods += len(group[i].Pods)
		}
	}
	pods := make([]*corev1.Pod, 0, npods)
	states := make([]rollout.PodState, 0, npods)
	add := func(n *rollout.Node, node *corev1.Node) {
		r := NodeStanding{Name: n.Name, Node: node, Missing: n.Missing, ShouldRun: n.ShouldRun && !n.Missing, Oldest: -1}
		if len(n.Pods) > 0 {
			at := len(pods)
			pods = append(pods, n.Pods...)
			states = append(states, n.States...)
			r.Pods, r.States = pods[at:len(pods):len(pods)], states[at:len(states):len(states)]
			r.Oldest = oldest(r.Pods)
		}
		ro.Nodes = append(ro.Nodes, r)
	}
	for i := range c.nodes {
		add(&c.nodes[i], c.info[i].node)
	}
	for i := range c.missing {
		add(&c.missing[i], nil)
	}
	if !p.IsZero() {
		p.holds(ro, step)
	}
	return ro
}

// standingOf is the standing of a plan of ds whose create/delete pass asked
// for nothing (idle) or not, and whose rolling step is step: when the
// policy paused the step, it runs it here, for the standing only.
func (c *cluster) standingOf(ds *appsv1.DaemonSet, hash string, opts *Options, idle bool, step *RollingStep) *Standing {
	var paused *RollingStep
	var pausedErr error
	if opts.Rollout.Paused && idle && ds.Spec.UpdateStrategy.Type == appsv1.RollingUpdateDaemonSetStrategyType {
		s, err := c.rollingStep(ds, hash, opts)
		if err != nil {
			pausedErr = NewError(ds, StageRollingUpdate, err)
		} else {
			paused, step = &s, &s
		}
	}
	ro := c.standing(&opts.Rollout, step, opts.burst())
	ro.Paused, ro.PausedErr = paused, pausedErr
	return ro
}
